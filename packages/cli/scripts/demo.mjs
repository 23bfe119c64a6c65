#!/usr/bin/env node
/**
 * `npm start`'s demo (the root's `start` builds, then runs this as the `demo` script): the
 * built `effect-mcp` against the bundled reference server over stdio, an overview, then a tool
 * call, each under a heading that shows the command, so the call's result is not lost below the
 * overview. Ends with the first command's failing exit code, if any.
 *
 *   npm run demo -w @effect-mcp/cli
 */
import { spawnSync } from "node:child_process"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const bin = join(dirname(fileURLToPath(import.meta.url)), "..", "bin", "effect-mcp.js")
const server = ["--", "mcp-server-everything", "stdio"]
const runs = [
  ["inspect", ...server],
  ["tools", "call", "echo", "message=hello from effect-mcp", ...server]
]

const bold = process.stdout.isTTY === true && process.env.NO_COLOR === undefined
const quote = (word) => (/^[\w./:=@-]+$/.test(word) ? word : word.replace(/^([\w-]+=)?(.*)$/, `$1"$2"`))

for (const [index, args] of runs.entries()) {
  const heading = `$ effect-mcp ${args.map(quote).join(" ")}`
  process.stdout.write(`${index === 0 ? "" : "\n"}${bold ? `\x1b[1m${heading}\x1b[0m` : heading}\n`)
  const { status } = spawnSync(process.execPath, [bin, ...args], { stdio: "inherit" })
  if (status !== 0) process.exit(status ?? 1)
}
