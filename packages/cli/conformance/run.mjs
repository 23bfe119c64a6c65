#!/usr/bin/env node
/**
 * Runs the official MCP conformance suite (client side) against the built `effect-mcp`
 * binary, with Node 24 from this folder's own install (never on the workspace's PATH).
 * Installs this folder with `npm ci` when needed, runs `--suite all` with the expected
 * failures, then reads every scenario's checks.json and prints scenario → verdict; runs
 * `--suite all` again at the current revision (`--spec-version 2026-07-28`); then the official
 * scoring of both revisions (`--requirements 2025-11-25` and `--requirements 2026-07-28`, each
 * exits 0 only when every scenario that revision requires passes); then the server side through
 * the gateway (`server.mjs` against `effect-mcp serve --port 0` in front of the SDK v2 fixture:
 * `--suite active` and `--requirements 2025-11-25`). Exits non-zero when any run does, or when a
 * scenario that must pass recorded no checks.
 */
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))
const cli = join(here, "..", "bin", "effect-mcp.js")
const node24 = join(here, "node_modules", ".bin", "node")
const runner = join(here, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
const output = join(here, "..", "build", "conformance")
/** Scenarios that are not about authorization: each must pass with real checks. */
const required = [
  "initialize",
  "tools_call",
  "elicitation-sep1034-client-defaults",
  "sse-retry",
  "json-schema-2020-12-preservation",
  "json-schema-ref-no-deref",
  "request-metadata",
  "sep-2322-client-request-state",
  "http-standard-headers",
  "http-custom-headers",
  "http-invalid-tool-headers",
  "sep-2640-client-no-prefetch",
  "sep-2640-client-verify-digest",
  "sep-2640-client-verify-size",
  "sep-2640-client-verify-frontmatter"
]

if (!existsSync(node24) || !existsSync(runner)) {
  const install = spawnSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: here, stdio: "inherit" })
  if (install.status !== 0) process.exit(install.status ?? 1)
}
rmSync(output, { recursive: true, force: true })
/** Runs the runner's client suite with these arguments, writing into `folder`. */
const conformance = (args, folder) =>
  spawnSync(
    node24,
    [
      runner,
      "client",
      "--command",
      `exec "${process.execPath}" "${cli}" conformance`,
      ...args,
      "--timeout",
      "120000",
      "-o",
      folder
    ],
    { stdio: ["ignore", "pipe", "pipe"], encoding: "utf8", maxBuffer: 64 * 1024 * 1024 }
  )
const run = conformance(["--suite", "all", "--expected-failures", join(here, "expected-failures.yml")], output)
const summary = run.stdout.slice(run.stdout.indexOf("=== SUITE SUMMARY ==="))
if (run.status !== 0) process.stdout.write(run.stdout + run.stderr)

const verdicts = new Map()
const walk = (directory) => {
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name)
    if (entry.isDirectory()) walk(path)
    else if (entry.name === "checks.json") {
      const scenario = path.slice(output.length + 1, -"/checks.json".length).replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, "")
      const checks = JSON.parse(readFileSync(path, "utf8"))
      const failed = checks.filter((check) => check.status === "FAILURE").length
      const passed = checks.filter((check) => check.status === "SUCCESS").length
      verdicts.set(scenario, { passed, failed })
    }
  }
}
if (existsSync(output)) walk(output)
console.log("conformance (client, @modelcontextprotocol/conformance 0.2.0-alpha.12, --suite all):")
for (const [scenario, { passed, failed }] of [...verdicts].sort(([a], [b]) => a.localeCompare(b))) {
  const verdict = failed > 0 ? "FAIL" : passed > 0 ? "pass" : "no checks"
  console.log(`  ${scenario.padEnd(44)} ${verdict.padEnd(9)} ${passed} passed, ${failed} failed`)
}
const missing = required.filter((scenario) => {
  const verdict = verdicts.get(scenario)
  return verdict === undefined || verdict.failed > 0 || verdict.passed === 0
})
if (missing.length > 0) console.log(`required scenarios without a real pass: ${missing.join(", ")}`)
console.log(
  summary
    .split("\n")
    .filter((line) => line.startsWith("Total"))
    .join("\n")
)

// The current revision: every scenario that applies to it, at that revision.
const current = conformance(
  ["--suite", "all", "--spec-version", "2026-07-28", "--expected-failures", join(here, "expected-failures.yml")],
  join(output, "spec-2026-07-28")
)
if (current.status !== 0) process.stdout.write(current.stdout + current.stderr)
const plain = (text) => text.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g"), "")
const totalOf = (result) =>
  plain(result.stdout + result.stderr)
    .split("\n")
    .filter((line) => line.startsWith("Total"))
    .join(" ")
console.log(`--suite all --spec-version 2026-07-28: ${current.status === 0 ? "pass" : "FAIL"} (${totalOf(current)})`)

// The official scoring of both revisions: exits 0 only when every scored scenario passes.
const scoring = ["2025-11-25", "2026-07-28"].map((revision) => {
  const scored = conformance(["--requirements", revision], join(output, `requirements-${revision}`))
  if (scored.status !== 0) process.stdout.write(scored.stdout + scored.stderr)
  console.log(
    `official scoring, --requirements ${revision}: ${scored.status === 0 ? "conformant" : "NOT conformant"} (${totalOf(scored)})`
  )
  return scored.status ?? 1
})
// The server side, through the gateway: `effect-mcp serve` over Streamable HTTP in front of the
// SDK v2 fixture server (over stdio, spoken to at 2025-11-25), graded by the runner's server suite.
const gatewayFolder = join(here, "..", "build", "conformance-gateway")
mkdirSync(gatewayFolder, { recursive: true })
const gatewayConfig = join(gatewayFolder, ".mcp.json")
const tsx = join(here, "..", "..", "..", "node_modules", ".bin", "tsx")
const fixture = join(here, "..", "..", "gateway", "test", "fixtures", "conformanceServer.ts")
writeFileSync(gatewayConfig, JSON.stringify({ mcpServers: { fixture: { command: tsx, args: [fixture, "stdio"] } } }))
/** One run of the server suite through the gateway: `runs`, with the gateway's `serve` options. */
const throughGateway = (runs, serveOptions, extra = []) => {
  const result = spawnSync(
    process.execPath,
    [
      join(here, "server.mjs"),
      "--runs",
      runs,
      ...extra,
      "--",
      `exec "${process.execPath}" "${cli}" serve --port 0 --namespace none ${serveOptions} --config "${gatewayConfig}"`
    ],
    { encoding: "utf8" }
  )
  for (const line of result.stdout.split("\n").filter((line) => line.startsWith("--")))
    console.log(`the gateway, server side: ${line}`)
  if (result.status !== 0) process.stdout.write(result.stdout + result.stderr)
  return result.status ?? 1
}
// The fixture at 2025-11-25 for the stateful runs (its old-style tools ask by server requests), and
// at 2026-07-28 (its input rounds) for that revision's scoring.
const served = [
  throughGateway("active,2025-11-25", "--protocol-version 2025-11-25"),
  throughGateway("2026-07-28", "", ["--expected-failures", join(here, "gateway-expected-failures.yml")])
].find((status) => status !== 0)

process.exit(
  served !== undefined
    ? served
    : run.status !== 0
      ? (run.status ?? 1)
      : current.status !== 0
        ? (current.status ?? 1)
        : (scoring.find((status) => status !== 0) ?? (missing.length > 0 ? 1 : 0))
)
