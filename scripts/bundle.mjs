/**
 * The esbuild settings both bundles share (the CLI's and `@effect-mcp/node`'s `NodePromiseClient`):
 * ES modules for Node 20, split into an entry and chunks loaded on demand, CommonJS dependencies
 * given `require`, `__filename` and `__dirname`, the workspace's packages taken from their
 * sources, an import of a workspace package's index taken to the modules it names, and no
 * fast-check (see `withoutArbitraries`).
 * `bundle(root, entries, extra)` empties `dist/bundle/` under `root` and builds into it.
 */
import { readFileSync, rmSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { build } from "esbuild"

// CommonJS dependencies bundled into ES modules still call require() (Node's built-ins) and
// read __dirname.
const commonJsGlobals = [
  'import { createRequire as __createRequire } from "node:module";',
  'import { dirname as __pathDirname } from "node:path";',
  'import { fileURLToPath as __fileURLToPath } from "node:url";',
  "const require = __createRequire(import.meta.url);",
  "const __filename = __fileURLToPath(import.meta.url);",
  "const __dirname = __pathDirname(__filename);"
].join(" ")

/** `import { A, type B, C as D } from "@effect-mcp/x"` (one declaration; `type` ones are erased). */
const INDEX_IMPORT = /^import\s+(type\s+)?\{([^}]*)\}\s*from\s*"(@effect-mcp\/[a-z-]+)";?[ \t]*$/gm

/**
 * What a package's index re-exports: name → the module (`from`, as written) and the name there
 * (`*` for `export * as Name from …`); `undefined` when the index holds anything else.
 */
const indexExports = (path) => {
  const text = readFileSync(path, "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/\/\/.*$/gm, "")
  const names = new Map()
  const rest = text
    .replace(/export\s+\*\s+as\s+(\w+)\s+from\s+"([^"]+)";?/g, (_, name, from) => {
      names.set(name, { from, imported: "*" })
      return ""
    })
    .replace(/export\s+\{([^}]*)\}\s+from\s+"([^"]+)";?/g, (_, list, from) => {
      for (const item of list
        .split(",")
        .map((part) => part.trim())
        .filter((part) => part !== "")) {
        const [imported, local = imported] = item.split(/\s+as\s+/)
        names.set(local, { from, imported })
      }
      return ""
    })
  return rest.trim() === "" ? names : undefined
}

/**
 * Imports of a workspace package's index (`import { McpClient, Transport } from "@effect-mcp/client"`)
 * taken to the modules the index re-exports them from (`import * as McpClient from ".../McpClient.ts"`).
 * Why: esbuild's code splitting puts every module that a file it reaches imports in the chunks
 * that file's entry loads, used or not; through an index, a command that needs one module of a
 * package would load all of them (the CLI's `conformance` the host's config writer, router and
 * supervisor). An import the index does not plainly re-export is left as written.
 */
export const workspaceIndexes = {
  name: "workspace-indexes",
  setup: (build) => {
    /** Per package: its index's exports, each module resolved to its file. */
    const indexes = new Map()
    const indexOf = (specifier, resolveDir) => {
      if (!indexes.has(specifier))
        indexes.set(
          specifier,
          (async () => {
            const index = await build.resolve(specifier, { kind: "import-statement", resolveDir })
            const names = index.errors.length === 0 ? indexExports(index.path) : undefined
            if (names === undefined) return undefined
            const files = new Map()
            for (const [name, { from, imported }] of names) {
              const module = await build.resolve(from, { kind: "import-statement", resolveDir: dirname(index.path) })
              if (module.errors.length > 0) return undefined
              files.set(name, { path: module.path, imported })
            }
            return files
          })()
        )
      return indexes.get(specifier)
    }
    build.onLoad({ filter: /\.(ts|js)$/ }, async (args) => {
      if (args.path.includes("node_modules")) return undefined
      const text = await readFile(args.path, "utf8")
      if (!text.includes('"@effect-mcp/')) return undefined
      const resolveDir = dirname(args.path)
      const replacements = new Map()
      for (const [statement, typeOnly, list, specifier] of text.matchAll(INDEX_IMPORT)) {
        if (typeOnly !== undefined) continue
        const files = await indexOf(specifier, resolveDir)
        if (files === undefined) continue
        const items = list
          .split(",")
          .map((part) => part.trim())
          .filter((part) => part !== "" && !part.startsWith("type "))
          .map((item) => {
            const [name, local = name] = item.split(/\s+as\s+/)
            return { file: files.get(name), local }
          })
        if (items.some(({ file }) => file === undefined)) continue
        replacements.set(
          statement,
          items
            .map(({ file, local }) =>
              file.imported === "*"
                ? `import * as ${local} from ${JSON.stringify(file.path)};`
                : `import { ${file.imported} as ${local} } from ${JSON.stringify(file.path)};`
            )
            .join(" ")
        )
      }
      if (replacements.size === 0) return undefined
      const contents = text.replace(INDEX_IMPORT, (statement) => replacements.get(statement) ?? statement)
      return { contents, loader: args.path.endsWith(".ts") ? "ts" : "js", resolveDir }
    })
  }
}

/**
 * effect's `FastCheck` (fast-check, 320 KB) and `Arbitrary` modules as functions of the same
 * names that throw. Only `Arbitrary.make` draws on fast-check, and nothing bundled draws
 * arbitrary values: the protocol's arbitraries (its Schemas' annotations) serve its property
 * tests, which run from the sources; yet every start would parse and evaluate both.
 */
const withoutArbitraries = {
  name: "without-arbitraries",
  setup: (build) =>
    build.onLoad({ filter: /[\\/]effect[\\/]dist[\\/]esm[\\/](FastCheck|Arbitrary)\.js$/ }, async (args) => {
      const names = args.path.endsWith("Arbitrary.js")
        ? [...readFileSync(args.path, "utf8").matchAll(/^export (?:const|function|class) (\w+)/gm)].map(
            ([, name]) => name
          )
        : await fastCheckNames(build, args.path)
      if (names.length < 5) throw new Error(`the exports of ${args.path} were not found`)
      return {
        contents: [
          'const absent = () => { throw new Error("fast-check is not bundled: draw arbitrary values with the unbundled effect") }',
          ...names.map((name) => `export const ${name} = absent`)
        ].join("\n"),
        loader: "js"
      }
    })
}

/** The names fast-check exports (its ES module's `export { … }` list), as resolved from the file `from`. */
const fastCheckNames = async (build, from) => {
  const { path } = await build.resolve("fast-check", { kind: "import-statement", resolveDir: dirname(from) })
  const source = readFileSync(join(dirname(path), "fast-check-default.js"), "utf8")
  return [...source.matchAll(/^export \{([^}]*)\};?$/gm)]
    .flatMap(([, list]) => list.split(","))
    .map(
      (name) =>
        name
          .trim()
          .split(/\s+as\s+/)
          .at(-1) ?? ""
    )
    .filter((name) => name !== "")
}

/** Builds `entries` (name → file under `root`) into `root/dist/bundle`; esbuild's result, with its metafile. */
export const bundle = (root, entries, extra = {}) => {
  const outdir = join(root, "dist", "bundle")
  rmSync(outdir, { recursive: true, force: true })
  return build({
    absWorkingDir: root,
    entryPoints: entries,
    outdir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    chunkNames: "chunks/[name]-[hash]",
    banner: { js: commonJsGlobals },
    legalComments: "none",
    metafile: true,
    logLevel: "warning",
    // The workspace's packages from their sources, module by module (their dist/ is one file per
    // package, which a bundle could not take apart).
    conditions: ["@effect-mcp/source"],
    tsconfig: fileURLToPath(new URL("../tsconfig.base.json", import.meta.url)),
    ...extra,
    plugins: [...(extra.plugins ?? []), workspaceIndexes, withoutArbitraries]
  })
}
