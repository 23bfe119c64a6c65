#!/usr/bin/env node
/**
 * The JavaScript of each library package's `dist/`: the package's modules in one file,
 * `dist/package.js`, built by esbuild from `src/`, with a module imported by `import()` (the JSON
 * Schema engines, the YAML parser) in a chunk of its own under `dist/chunks/`, loaded at its
 * first use; and for each entry of the `exports` map a file `dist/<Entry>.js` that gives that
 * entry's exports from it. Every package is external (`effect`, the other `@effect-mcp/*`
 * packages, Ajv, …): each module of the workspace is in exactly one package's file, so its
 * classes and tags exist once. `tsc -b` writes the declarations beside them.
 *
 * Why: Node resolves, reads and links modules one by one; an Effect program importing the client
 * paid for its ~170 modules one at a time (ARCHITECTURE.md, "Packages").
 *
 *   node scripts/dist.mjs     (the root `npm run build` runs it after `tsc -b`)
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join, relative } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { build } from "esbuild"

const packages = fileURLToPath(new URL("../packages/", import.meta.url))

/** The libraries, each after those it imports (an entry's exports are read from the built package). */
const libraries = ["protocol", "jsonrpc", "client", "node", "host", "gateway", "ai"]

/** The package's entries: path under `dist/` without extension → source file (`./src/….ts`). */
const entriesOf = (root) => {
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"))
  return Object.values(manifest.exports)
    .map((target) => target["@effect-mcp/source"])
    .filter((source) => typeof source === "string")
    .map((source) => ({ name: source.replace(/^\.\/src\//, "").replace(/\.ts$/, ""), source }))
}

/** Removes the JavaScript a previous build left in `dir` (declarations stay: they are tsc's; `bundle/` is another build's). */
const clean = (dir) => {
  mkdirSync(dir, { recursive: true })
  for (const file of readdirSync(dir, { recursive: true, encoding: "utf8" })) {
    if (/\.js(\.map)?$/.test(file) && !file.startsWith("bundle")) rmSync(join(dir, file), { force: true })
  }
  rmSync(join(dir, "chunks"), { recursive: true, force: true })
}

const buildOne = async (name) => {
  const root = join(packages, name)
  const outdir = join(root, "dist")
  const entries = entriesOf(root)
  clean(outdir)
  // One module that holds every entry as a namespace: `e0`, `e1`, … in the order of `entries`.
  const contents = entries.map(({ source }, i) => `export * as e${i} from ${JSON.stringify(source)}`).join("\n")
  await build({
    stdin: { contents, resolveDir: root, sourcefile: "package.ts", loader: "ts" },
    absWorkingDir: root,
    outdir,
    entryNames: "package",
    bundle: true,
    splitting: true,
    packages: "external",
    format: "esm",
    platform: "node",
    target: "node20",
    tsconfig: join(root, "tsconfig.src.json"),
    chunkNames: "chunks/[name]-[hash]",
    sourcemap: "linked",
    sourcesContent: false,
    legalComments: "none",
    logLevel: "warning"
  })
  // Each entry gives its namespace's members, read from the built package.
  const built = await import(pathToFileURL(join(outdir, "package.js")).href)
  entries.forEach(({ name: entry }, i) => {
    const names = Object.keys(built[`e${i}`])
    const unnamed = names.filter((member) => !/^[A-Za-z_$][\w$]*$/.test(member) || member === "default")
    if (unnamed.length > 0) throw new Error(`${name}/${entry}: exports that cannot be named: ${unnamed.join(", ")}`)
    const file = join(outdir, `${entry}.js`)
    const from = relative(dirname(file), join(outdir, "package.js")).replace(/^(?!\.)/, "./")
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, `import { e${i} } from "${from}"\nexport const { ${names.join(", ")} } = e${i}\n`)
  })
}

for (const name of libraries) await buildOne(name)
