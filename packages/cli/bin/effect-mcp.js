#!/usr/bin/env node
// The built CLI: the bundle when `npm run build` made one (see scripts/bundle.mjs), else tsc's output.
import { existsSync } from "node:fs"

const bundle = new URL("../dist/bundle/effect-mcp.js", import.meta.url)
await import(existsSync(bundle) ? bundle.href : "../dist/bin.js")
