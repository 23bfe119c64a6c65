/**
 * The esbuild settings both bundles share (the CLI's and `@effect-mcp/node`'s `NodePromiseClient`):
 * ES modules for Node 20, split into an entry and chunks loaded on demand, CommonJS dependencies
 * given `require`, `__filename` and `__dirname`, the workspace's packages taken from their
 * sources. `bundle(root, entries, extra)` empties `dist/bundle/` under `root` and builds into it.
 */
import { rmSync } from "node:fs"
import { join } from "node:path"
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
    ...extra
  })
}
