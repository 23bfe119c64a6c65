#!/usr/bin/env node
/**
 * Writes the API reference of every published package with @effect/docgen: one Markdown page per
 * module of the package's `exports` map, in `packages/<name>/docs/modules/`. Fails when an export
 * lacks its `@since`, when an `@example` does not compile or throws (docgen type-checks the
 * examples with tsc, then runs them with tsx), or when a package's `docgen.json` documents other
 * modules than its `exports` map names.
 *
 *   node scripts/docgen.mjs                 every package with a docgen.json, one after the other
 *   node scripts/docgen.mjs client node     those packages only
 *   node scripts/docgen.mjs --jobs 2        two packages at a time
 *
 * Examples import the packages by name (`@effect-mcp/client`): docgen points a package's own name
 * at its `src/`, and the others resolve through the workspace under the `@effect-mcp/source`
 * condition (`examplesCompilerOptions.customConditions` for tsc, `--conditions` for tsx).
 */
import { spawn } from "node:child_process"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const bin = join(root, "node_modules", ".bin")
const docgen = join(root, "node_modules", "@effect/docgen", "bin.cjs")

const args = process.argv.slice(2)
const jobsAt = args.indexOf("--jobs")
const jobs = jobsAt === -1 ? 1 : Math.max(1, Number(args[jobsAt + 1]) || 1)
const named = args.filter((arg, index) => !arg.startsWith("--") && (jobsAt === -1 || index !== jobsAt + 1))

const packages = readdirSync(join(root, "packages"))
  .filter((name) => existsSync(join(root, "packages", name, "package.json")))
  .map((name) => ({ name, dir: join(root, "packages", name) }))
  .map((pkg) => ({ ...pkg, json: JSON.parse(readFileSync(join(pkg.dir, "package.json"), "utf8")) }))

const problems = []
for (const pkg of packages) {
  if (pkg.json.private !== true && !existsSync(join(pkg.dir, "docgen.json")))
    problems.push(`packages/${pkg.name}: published, but has no docgen.json`)
}
const selected = packages.filter(
  (pkg) => existsSync(join(pkg.dir, "docgen.json")) && (named.length === 0 || named.includes(pkg.name))
)
for (const name of named)
  if (!selected.some((pkg) => pkg.name === name)) problems.push(`${name}: no package of that name with a docgen.json`)

/** A glob of docgen.json's `exclude` as a RegExp over paths relative to the package (`**`, `*`). */
const globRegExp = (glob) =>
  new RegExp(
    `^${glob
      .split(/(\*\*\/|\*\*|\*)/)
      .map((part) =>
        part === "**/"
          ? "(?:.*/)?"
          : part === "**"
            ? ".*"
            : part === "*"
              ? "[^/]*"
              : part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")
      )
      .join("")}$`
  )

const sourcesOf = (dir, base = dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourcesOf(join(dir, entry.name), base)
      : entry.name.endsWith(".ts")
        ? [relative(base, join(dir, entry.name)).split("\\").join("/")]
        : []
  )

/** The modules docgen will document must be exactly the `exports` map's sources. */
for (const pkg of selected) {
  const config = JSON.parse(readFileSync(join(pkg.dir, "docgen.json"), "utf8"))
  const srcDir = config.srcDir ?? "src"
  const excluded = (config.exclude ?? []).map(globRegExp)
  const documented = sourcesOf(join(pkg.dir, srcDir))
    .map((file) => `${srcDir}/${file}`)
    .filter((file) => !excluded.some((glob) => glob.test(file)))
  // Entries with no source (a plain path such as "./package.json") are not modules.
  const entries = Object.values(pkg.json.exports ?? {})
    .filter((entry) => typeof entry === "object" && entry !== null && typeof entry["@effect-mcp/source"] === "string")
    .map((entry) => entry["@effect-mcp/source"].replace(/^\.\//, ""))
  for (const file of documented)
    if (!entries.includes(file))
      problems.push(`packages/${pkg.name}/${file}: not an entry of the exports map; add it to docgen.json's exclude`)
  for (const file of entries)
    if (!documented.includes(file))
      problems.push(`packages/${pkg.name}/${file}: an entry of the exports map that docgen.json excludes`)
  pkg.entries = entries.map((file) => file.slice(srcDir.length + 1))
  pkg.outDir = join(pkg.dir, config.outDir ?? "docs")
}
if (problems.length > 0) {
  for (const problem of problems) console.error(problem)
  process.exit(1)
}

const env = {
  ...process.env,
  PATH: `${bin}${process.platform === "win32" ? ";" : ":"}${process.env.PATH ?? ""}`,
  NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --conditions=@effect-mcp/source`.trim()
}

const run = (pkg) =>
  new Promise((resolve) => {
    const started = performance.now()
    const child = spawn(process.execPath, [docgen], { cwd: pkg.dir, env, stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    child.stdout.on("data", (chunk) => {
      output += chunk
    })
    child.stderr.on("data", (chunk) => {
      output += chunk
    })
    child.on("close", (code) => {
      const seconds = ((performance.now() - started) / 1000).toFixed(1)
      const missing =
        code === 0 ? pkg.entries.filter((file) => !existsSync(join(pkg.outDir, "modules", `${file}.md`))) : []
      const ok = code === 0 && missing.length === 0
      const examples = /(\d+) example\(s\) found/.exec(output)?.[1] ?? "0"
      const where = relative(root, join(pkg.outDir, "modules"))
      console.log(
        ok
          ? `${pkg.json.name}: ${pkg.entries.length} pages in ${where}, ${examples} examples checked (${seconds} s)`
          : `${pkg.json.name}: FAILED (${seconds} s)`
      )
      if (!ok) {
        // docgen's own report, without the stack frames of its bundle
        process.stderr.write(
          output
            .split("\n")
            .filter((line) => !/^\s+at /.test(line))
            .join("\n")
        )
        for (const file of missing) console.error(`no page for ${file}`)
      }
      resolve(ok)
    })
  })

const started = performance.now()
const queue = [...selected]
const results = []
await Promise.all(
  Array.from({ length: Math.min(jobs, queue.length) }, async () => {
    for (let pkg = queue.shift(); pkg !== undefined; pkg = queue.shift()) results.push(await run(pkg))
  })
)
console.log(`docgen: ${selected.length} packages in ${((performance.now() - started) / 1000).toFixed(1)} s`)
if (results.includes(false)) process.exit(1)
