import { fileURLToPath } from "node:url"
import { defineConfig } from "vite"

// Vite 8 compiles TSX itself (Oxc, automatic JSX runtime), so no plugin is needed for a build
// served from the package: no Fast Refresh, nothing else to install.
const root = fileURLToPath(new URL(".", import.meta.url))

export default defineConfig({
  root,
  base: "/",
  oxc: { jsx: { runtime: "automatic" } },
  build: {
    outDir: fileURLToPath(new URL("../dist/page", import.meta.url)),
    emptyOutDir: true,
    sourcemap: false,
    // The page's CSP is `script-src 'self'`: the preload polyfill would be an inline script.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    target: "es2022"
  }
})
