/**
 * Checks the documents a reader starts from: in README.md, ARCHITECTURE.md and every package's
 * README.md every section heading appears once (a regenerated section pasted beside its older copy
 * has happened twice); and each front door's doc comment says *When to use* it and its *Gotchas*.
 *
 *   node scripts/docs.mjs        exits 1 and names the repeated headings
 */
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
let failed = false
const packages = readdirSync(join(root, "packages"))
  .sort()
  .map((name) => `packages/${name}/README.md`)
  .filter((file) => existsSync(join(root, file)))
for (const file of ["README.md", "ARCHITECTURE.md", ...packages]) {
  const seen = new Map()
  let fenced = false
  for (const [index, line] of readFileSync(join(root, file), "utf8").split("\n").entries()) {
    if (line.startsWith("```")) fenced = !fenced
    if (fenced || !/^#{1,3} /.test(line)) continue
    const first = seen.get(line)
    if (first === undefined) seen.set(line, index + 1)
    else {
      failed = true
      console.error(`${file}:${index + 1}: "${line}" repeats the heading of line ${first}`)
    }
  }
}

/** The front doors: the exports a newcomer starts from, by file. */
const frontDoors = [
  ["packages/client/src/McpClient.ts", "layer"],
  ["packages/client/src/Session.ts", "layer"],
  ["packages/client/src/StdioTransport.ts", "layer"],
  ["packages/client/src/HttpTransport.ts", "layer"],
  ["packages/client/src/PromiseClient.ts", "connect"],
  ["packages/node/src/NodeStdioTransport.ts", "layer"],
  ["packages/node/src/NodeHttpTransport.ts", "layer"],
  ["packages/host/src/McpHost.ts", "layer"]
]
for (const [file, name] of frontDoors) {
  const text = readFileSync(join(root, file), "utf8")
  const at = text.search(new RegExp(`^export const ${name}\\b`, "m"))
  const comment = at === -1 ? "" : text.slice(text.lastIndexOf("/**", at), at)
  for (const word of ["*When to use*", "*Gotchas*"]) {
    if (comment.includes(word)) continue
    failed = true
    console.error(`${file}: the doc comment of ${name} has no ${word}`)
  }
}
if (failed) process.exit(1)
