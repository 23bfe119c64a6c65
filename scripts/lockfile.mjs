#!/usr/bin/env node
/**
 * Completes package-lock.json with the other platforms' optional packages.
 *
 * The registry this project is built against carries only this platform's builds of
 * packages such as @biomejs/cli-*, @esbuild/* and @rollup/rollup-*. npm then leaves the
 * other platforms out of the lockfile, and `npm ci` refuses that lockfile ("Missing: … from
 * lock file"). Recording each missing optional package by name and version (as npm itself
 * does when it can see them) makes `npm ci` work here and installs the right build elsewhere.
 *
 *   node scripts/lockfile.mjs          complete the lockfile in place (run after npm install)
 *   node scripts/lockfile.mjs --check  exit 1, naming them, if entries are missing
 */
import { readFileSync, writeFileSync } from "node:fs"

const path = new URL("../package-lock.json", import.meta.url)
const lock = JSON.parse(readFileSync(path, "utf8"))
const packages = lock.packages ?? {}
const exact = /^\d+\.\d+\.\d+(?:-[\w.]+)?$/
const missing = []

for (const [location, entry] of Object.entries(packages)) {
  const base = location === "" ? "" : `${location}/`
  for (const [name, spec] of Object.entries(entry.optionalDependencies ?? {})) {
    const nested = `${base}node_modules/${name}`
    const hoisted = `node_modules/${name}`
    if (packages[nested] !== undefined || packages[hoisted] !== undefined) continue
    if (!exact.test(spec)) throw new Error(`${location || "root"} wants ${name}@${spec}: not an exact version`)
    missing.push([hoisted, { version: spec, ...(entry.dev ? { dev: true } : {}), optional: true }])
  }
}

if (process.argv.includes("--check")) {
  if (missing.length > 0) {
    console.error(
      `package-lock.json lacks ${missing.length} optional packages (${missing[0][0]}, …): run npm run lockfile`
    )
    process.exit(1)
  }
} else if (missing.length > 0) {
  for (const [key, entry] of missing) packages[key] = entry
  lock.packages = Object.fromEntries(
    Object.entries(packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : 1))
  )
  writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`)
  console.log(`package-lock.json: recorded ${missing.length} optional packages of other platforms`)
}
