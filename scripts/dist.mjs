#!/usr/bin/env node
/**
 * The JavaScript of each library package's `dist/`: the package's modules in one file,
 * `dist/package.js`, built by esbuild from `src/`, with a module imported by `import()` (the JSON
 * Schema engines, the YAML parser) in a chunk of its own under `dist/chunks/`, loaded at its
 * first use; and for each entry of the `exports` map a file `dist/<Entry>.js` that re-exports that
 * entry's members from it (an entry that only passes another package's module on does just that).
 * Every package is external (`effect`, the other `@effect-mcp/*` packages, Ajv, …): each module
 * of the workspace is in exactly one package's file, so its classes and tags exist once. `tsc -b`
 * writes the declarations beside them. The bundles (the CLI's, `NodePromiseClient`) take the
 * packages from their sources, not from here.
 *
 * Why: Node resolves, reads and links modules one by one; an Effect program importing the client
 * paid for its ~170 modules one at a time (ARCHITECTURE.md, "Packages").
 *
 *   node scripts/dist.mjs     (the root `npm run build` runs it after `tsc -b`)
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join, relative, sep } from "node:path"
import { fileURLToPath } from "node:url"
import { build } from "esbuild"

const packages = fileURLToPath(new URL("../packages/", import.meta.url))

/** The libraries: every package whose `exports` are built from `src/` (the CLI and the benchmark have their own builds). */
const libraries = ["protocol", "jsonrpc", "client", "node", "host", "gateway", "ai", "web"]

/** The package's entries: path under `dist/` without extension → source file (`./src/….ts`). */
const entriesOf = (root) => {
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"))
  return Object.values(manifest.exports)
    .map((target) => target["@effect-mcp/source"])
    .filter((source) => typeof source === "string")
    .map((source) => ({ name: source.replace(/^\.\/src\//, "").replace(/\.ts$/, ""), source }))
}

/** Other builds' folders in a package's dist: the bundles, the web package's page. */
const others = new Set(["bundle", "page"])

/** Removes the JavaScript a previous build left in `dir` (declarations stay: they are tsc's; {@link others} are other builds'). */
const clean = (dir) => {
  mkdirSync(dir, { recursive: true })
  for (const file of readdirSync(dir, { recursive: true, encoding: "utf8" })) {
    if (/\.js(\.map)?$/.test(file) && !others.has(file.split(sep)[0])) rmSync(join(dir, file), { force: true })
  }
  rmSync(join(dir, "chunks"), { recursive: true, force: true })
}

/**
 * The names each of `sources` exports, as esbuild reads them (a build in memory, every source an
 * entry; nothing is written or run).
 */
const exportsOf = async (root, sources) => {
  const { metafile } = await build({
    absWorkingDir: root,
    entryPoints: sources,
    outdir: join(root, "dist"),
    bundle: true,
    splitting: true,
    packages: "external",
    format: "esm",
    platform: "node",
    tsconfig: join(root, "tsconfig.src.json"),
    write: false,
    metafile: true,
    logLevel: "warning"
  })
  const byEntry = new Map(
    Object.values(metafile.outputs)
      .filter((output) => output.entryPoint !== undefined)
      .map((output) => [output.entryPoint, output.exports])
  )
  return sources.map((source) => byEntry.get(source.replace(/^\.\//, "")) ?? [])
}

/** The package in one file from `contents` (a module of re-exports), its lazy parts in chunks. */
const buildPackage = (root, contents) =>
  build({
    stdin: { contents, resolveDir: root, sourcefile: "package.ts", loader: "ts" },
    absWorkingDir: root,
    outdir: join(root, "dist"),
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

/**
 * A source module that only passes another package's module on (`export * from "@effect-mcp/…"`):
 * its entry does the same, so it gives whatever that package's version has.
 */
const passedOn = (root, source) => {
  const code = readFileSync(join(root, source), "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .trim()
  const match = /^export \* from "([^".][^"]*)"$/.exec(code)
  return match?.[1]
}

const buildOne = async (name) => {
  const root = join(packages, name)
  const outdir = join(root, "dist")
  const entries = entriesOf(root).map((entry) => ({ ...entry, passedOn: passedOn(root, entry.source) }))
  const own = entries.filter((entry) => entry.passedOn === undefined)
  if (entries.some((entry) => entry.name === "package")) throw new Error(`${name}: an entry may not be named package`)
  const exported = await exportsOf(
    root,
    own.map((entry) => entry.source)
  )
  const names = exported.map((members, i) => {
    const unnamed = members.filter((member) => !/^[A-Za-z_$][\w$]*$/.test(member) || member === "default")
    if (members.length === 0 || unnamed.length > 0)
      throw new Error(`${name}/${own[i]?.name}: exports none, or some that cannot be named: ${unnamed.join(", ")}`)
    return members
  })
  clean(outdir)
  // The package with each entry's names flat (`e0_make`, …): each entry re-exports its own.
  await buildPackage(
    root,
    own
      .map(({ source }, i) => {
        const list = names[i]?.map((member) => `${member} as e${i}_${member}`).join(", ") ?? ""
        return `export { ${list} } from ${JSON.stringify(source)}`
      })
      .join("\n")
  )
  for (const entry of entries) {
    const file = join(outdir, `${entry.name}.js`)
    mkdirSync(dirname(file), { recursive: true })
    if (entry.passedOn !== undefined) {
      writeFileSync(file, `export * from "${entry.passedOn}"\n`)
      continue
    }
    const i = own.indexOf(entry)
    const from = relative(dirname(file), join(outdir, "package.js")).replace(/^(?!\.)/, "./")
    const list = names[i]?.map((member) => `e${i}_${member} as ${member}`).join(", ") ?? ""
    writeFileSync(file, `export { ${list} } from "${from}"\n`)
  }
}

await Promise.all(libraries.map(buildOne))
