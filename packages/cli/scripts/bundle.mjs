#!/usr/bin/env node
/**
 * Bundles the built CLI (`dist/bin.js`, after `tsc -b`) into `dist/bundle/` with esbuild:
 * `effect-mcp.js`, the entry (help, `--version`, "did you mean": no `effect` loaded), and
 * chunks it imports on demand (the command tree and everything a command runs on; each
 * provider of `chat`). `bin/effect-mcp.js` runs the bundle.
 *
 * Why: Node resolves, reads and links the ~1,100 ES modules of effect, @effect/cli,
 * @effect/platform and the workspace one by one; as a few files the same code loads five times
 * faster (see ARCHITECTURE.md, "@effect-mcp/cli"). Help's data is read from the command tree
 * here, at build time, and embedded in the entry (it replaces `src/internal/helpData.ts`).
 *
 *   node scripts/bundle.mjs     (the root `npm run build` runs it after `tsc -b`)
 */
import { copyFileSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { bundle } from "../../../scripts/bundle.mjs"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const outdir = join(root, "dist", "bundle")

const { helpCatalogue } = await import(join(root, "dist", "Cli.js"))
const catalogue = JSON.stringify(helpCatalogue())

/** `internal/helpData.js` with the catalogue in it. */
const helpData = {
  name: "help-data",
  setup: (plugin) =>
    plugin.onLoad({ filter: /[\\/]dist[\\/]internal[\\/]helpData\.js$/ }, () => ({
      contents: `export const embedded = ${catalogue}`,
      loader: "js"
    }))
}

/**
 * Bundled modules that read files next to themselves (`__dirname`): the files they read, copied
 * next to the chunks. The build fails on any other, so that a new one is seen.
 */
const resources = [
  // The Anthropic tokenizer's WebAssembly.
  { module: /[\\/]tiktoken[\\/]lite[\\/]tiktoken\.cjs$/, files: ["tiktoken_bg.wasm"] }
]

const result = await bundle(root, { "effect-mcp": "dist/bin.js" }, { plugins: [helpData] })

// The modules in the bundle (the metafile also lists those esbuild read and left out).
const bundled = new Set(
  Object.values(result.metafile.outputs).flatMap((output) =>
    Object.entries(output.inputs)
      .filter(([, { bytesInOutput }]) => bytesInOutput > 0)
      .map(([input]) => input)
  )
)
for (const input of bundled) {
  if (!input.endsWith(".js") && !input.endsWith(".cjs")) continue
  const path = join(root, input)
  if (!/\b__(dirname|filename)\b/.test(readFileSync(path, "utf8"))) continue
  const known = resources.find((resource) => resource.module.test(input))
  if (known === undefined)
    throw new Error(`${input} reads files next to itself: add them to resources in ${fileURLToPath(import.meta.url)}`)
  for (const file of known.files) copyFileSync(join(dirname(path), file), join(outdir, "chunks", file))
}
