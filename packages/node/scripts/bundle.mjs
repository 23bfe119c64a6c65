#!/usr/bin/env node
/**
 * Bundles `src/NodePromiseClient.ts` into `dist/bundle/NodePromiseClient.js` with esbuild,
 * `effect`, `@effect/platform` and the sources of `@effect-mcp/client`, `@effect-mcp/jsonrpc` and
 * `@effect-mcp/protocol` inside it, and the JSON Schema engines and the YAML parser in chunks
 * loaded at their first use. The package's `./NodePromiseClient` export is
 * that file.
 *
 * Why: Node resolves, reads and links the ~630 ES modules that entry imports one by one (223 of
 * them `fast-check`, which `effect/Schema` imports); as a few files the same code loads three
 * times faster (ARCHITECTURE.md, "Promise programs").
 *
 *   node scripts/bundle.mjs     (the root `npm run build` runs it after `tsc -b`)
 */
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { bundle } from "../../../scripts/bundle.mjs"

await bundle(join(dirname(fileURLToPath(import.meta.url)), ".."), { NodePromiseClient: "src/NodePromiseClient.ts" })
