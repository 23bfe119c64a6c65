#!/usr/bin/env node
/**
 * Runs the official MCP conformance suite (client side) against the built `effect-mcp`
 * binary, with Node 24 from this folder's own install (never on the workspace's PATH).
 * Installs this folder with `npm ci` when needed, then these runs, each into its own folder:
 * `--suite all` with the expected failures (every scenario's checks.json read back and printed
 * as scenario → verdict); `--suite all` again at the current revision (`--spec-version
 * 2026-07-28`); the official scoring of both revisions (`--requirements 2025-11-25` and
 * `--requirements 2026-07-28`, each exits 0 only when every scenario that revision requires
 * passes); the server side through the gateway (`server.mjs` against `effect-mcp serve --port 0`
 * in front of the SDK v2 fixture: `--suite active` and `--requirements 2025-11-25`, then
 * `--requirements 2026-07-28`). The runs share nothing (every test server the runner starts and
 * every gateway listens on a port of its own; the conformance command keeps tokens in memory),
 * so the gateway's runs go alongside some of the client runs (see `stages`; `CONFORMANCE_JOBS=1`
 * runs everything in turn); each run's output is held and printed whole, in the order above,
 * with the seconds it took. Exits non-zero when any run does, or when a scenario that must pass
 * recorded no checks.
 */
import { spawn, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { availableParallelism } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))
const cli = join(here, "..", "bin", "effect-mcp.js")
const node24 = join(here, "node_modules", ".bin", "node")
const runner = join(here, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
const output = join(here, "..", "build", "conformance")
const gatewayFolder = join(here, "..", "build", "conformance-gateway")
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
/** 1: every run after the one before it (CONFORMANCE_JOBS=1, or a machine of one core). */
const jobs = Number(process.env.CONFORMANCE_JOBS ?? availableParallelism())
if (!Number.isInteger(jobs) || jobs < 1) {
  process.stderr.write(`CONFORMANCE_JOBS must be a positive integer, not '${process.env.CONFORMANCE_JOBS}'\n`)
  process.exit(2)
}

if (!existsSync(node24) || !existsSync(runner)) {
  const install = spawnSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: here, stdio: "inherit" })
  if (install.status !== 0) process.exit(install.status ?? 1)
}
rmSync(output, { recursive: true, force: true })
rmSync(gatewayFolder, { recursive: true, force: true })
mkdirSync(gatewayFolder, { recursive: true })

/** Runs a command to its end, holding its output: resolves with its exit status (1 when killed), stdout, stderr and seconds taken. */
const capture = (command, args) =>
  new Promise((resolve) => {
    const started = performance.now()
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] })
    const stdout = []
    const stderr = []
    child.stdout.on("data", (chunk) => stdout.push(chunk))
    child.stderr.on("data", (chunk) => stderr.push(chunk))
    const done = (status, error) =>
      resolve({
        status,
        stdout: Buffer.concat(stdout).toString("utf8"),
        stderr: Buffer.concat(stderr).toString("utf8") + (error === undefined ? "" : `${error.message}\n`),
        seconds: Math.round((performance.now() - started) / 1000)
      })
    child.once("error", (error) => done(1, error))
    child.once("close", (code) => done(code ?? 1))
  })

/** The runner's client suite with these arguments, writing into `folder`. */
const conformance = (args, folder) =>
  capture(node24, [
    runner,
    "client",
    "--command",
    `exec "${process.execPath}" "${cli}" conformance`,
    ...args,
    "--timeout",
    "120000",
    "-o",
    folder
  ])

const plain = (text) => text.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g"), "")
const totalOf = (result) =>
  plain(result.stdout + result.stderr)
    .split("\n")
    .filter((line) => line.startsWith("Total"))
    .join(" ")

/** Every scenario's checks under `folder` (scenarios such as `auth/…` are nested): scenario → counts. */
const verdictsIn = (folder) => {
  const verdicts = new Map()
  const walk = (directory) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const path = join(directory, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (entry.name === "checks.json") {
        const scenario = path
          .slice(folder.length + 1, -"/checks.json".length)
          .replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, "")
        const checks = JSON.parse(readFileSync(path, "utf8"))
        const failed = checks.filter((check) => check.status === "FAILURE").length
        const passed = checks.filter((check) => check.status === "SUCCESS").length
        verdicts.set(scenario, { passed, failed })
      }
    }
  }
  if (existsSync(folder)) walk(folder)
  return verdicts
}

/** A run: `start` begins it, `report` turns its result into the text to print and its exit status (0: passed). */
const expectedFailures = ["--expected-failures", join(here, "expected-failures.yml")]

/** `--suite all`, each scenario at its own revision: prints every scenario's verdict. */
const suiteAll = {
  start: () => conformance(["--suite", "all", ...expectedFailures], join(output, "all")),
  report: (run) => {
    const lines = []
    if (run.status !== 0) lines.push(run.stdout + run.stderr)
    const verdicts = verdictsIn(join(output, "all"))
    lines.push(`conformance (client, @modelcontextprotocol/conformance 0.2.0-alpha.12, --suite all; ${run.seconds} s):`)
    for (const [scenario, { passed, failed }] of [...verdicts].sort(([a], [b]) => a.localeCompare(b))) {
      const verdict = failed > 0 ? "FAIL" : passed > 0 ? "pass" : "no checks"
      lines.push(`  ${scenario.padEnd(44)} ${verdict.padEnd(9)} ${passed} passed, ${failed} failed`)
    }
    const missing = required.filter((scenario) => {
      const verdict = verdicts.get(scenario)
      return verdict === undefined || verdict.failed > 0 || verdict.passed === 0
    })
    if (missing.length > 0) lines.push(`required scenarios without a real pass: ${missing.join(", ")}`)
    const summary = run.stdout.slice(run.stdout.indexOf("=== SUITE SUMMARY ==="))
    lines.push(...summary.split("\n").filter((line) => line.startsWith("Total")))
    return { text: `${lines.join("\n")}\n`, status: run.status !== 0 ? run.status : missing.length > 0 ? 1 : 0 }
  }
}

/** The current revision: every scenario that applies to it, at that revision. */
const currentRevision = {
  start: () =>
    conformance(
      ["--suite", "all", "--spec-version", "2026-07-28", ...expectedFailures],
      join(output, "spec-2026-07-28")
    ),
  report: (run) => ({
    text:
      (run.status !== 0 ? run.stdout + run.stderr : "") +
      `--suite all --spec-version 2026-07-28: ${run.status === 0 ? "pass" : "FAIL"} (${totalOf(run)}; ${run.seconds} s)\n`,
    status: run.status
  })
}

/** The official scoring of a revision: exits 0 only when every scored scenario passes. */
const scoring = (revision) => ({
  start: () => conformance(["--requirements", revision], join(output, `requirements-${revision}`)),
  report: (run) => ({
    text:
      (run.status !== 0 ? run.stdout + run.stderr : "") +
      `official scoring, --requirements ${revision}: ${run.status === 0 ? "conformant" : "NOT conformant"} (${totalOf(run)}; ${run.seconds} s)\n`,
    status: run.status
  })
})

// The server side, through the gateway: `effect-mcp serve` over Streamable HTTP in front of the
// SDK v2 fixture server (over stdio, spoken to at 2025-11-25), graded by the runner's server suite.
const gatewayConfig = join(gatewayFolder, ".mcp.json")
const tsx = join(here, "..", "..", "..", "node_modules", ".bin", "tsx")
const fixture = join(here, "..", "..", "gateway", "test", "fixtures", "conformanceServer.ts")
writeFileSync(gatewayConfig, JSON.stringify({ mcpServers: { fixture: { command: tsx, args: [fixture, "stdio"] } } }))
/** The server suite's `runs` through a gateway of its own (with these `serve` options), results in `name`'s folder. */
const throughGateway = (name, runs, serveOptions, extra = []) => ({
  start: () =>
    capture(process.execPath, [
      join(here, "server.mjs"),
      "--runs",
      runs,
      "--output",
      join(gatewayFolder, name),
      ...extra,
      "--",
      `exec "${process.execPath}" "${cli}" serve --port 0 --namespace none ${serveOptions} --config "${gatewayConfig}"`
    ]),
  report: (run) => {
    const lines = run.stdout
      .split("\n")
      .filter((line) => line.startsWith("--"))
      .map((line) => `the gateway, server side: ${line}`)
    if (run.status !== 0) lines.push(run.stdout + run.stderr)
    lines.push(`the gateway, server side: ${runs.split(",").join(" and ")} in ${run.seconds} s`)
    return { text: `${lines.join("\n")}\n`, status: run.status }
  }
})

// The runner starts every scenario of a client run at once, one `effect-mcp` process each, and
// the client's requests time out after 25 s: while the 48 of `--suite all` start, both cores are
// busy, and anything run beside them starves some past that timeout (measured on 2 cores: another
// client run beside it failed 40 scenarios, the gateway's runs beside it 3). So the client runs go
// one after another, and the gateway's runs (one server, its scenarios one after another) go
// alongside the smaller client runs that follow `--suite all`. CONFORMANCE_JOBS=1 runs all in turn.
const [firstClientRun, ...clientRuns] = [suiteAll, currentRevision, scoring("2025-11-25"), scoring("2026-07-28")]
const gatewayRuns = [
  // The fixture at 2025-11-25 for the stateful runs (its old-style tools ask by server requests),
  // and at 2026-07-28 (its input rounds) for that revision's scoring.
  throughGateway("2025-11-25", "active,2025-11-25", "--protocol-version 2025-11-25"),
  throughGateway("2026-07-28", "2026-07-28", "", ["--expected-failures", join(here, "gateway-expected-failures.yml")])
]
/** The runs in the order they print. */
const runs = [firstClientRun, ...clientRuns, ...gatewayRuns]
/** Stages one after another; within a stage, lanes side by side; within a lane, runs one after another. */
const stages = jobs === 1 ? [[runs]] : [[[firstClientRun]], [clientRuns, gatewayRuns]]

/** Each run's result, settled when it ends. */
const results = new Map(
  runs.map((run) => {
    let resolve
    const promise = new Promise((done) => {
      resolve = done
    })
    return [run, { promise, resolve }]
  })
)
const stagesDone = (async () => {
  for (const lanes of stages) {
    await Promise.all(
      lanes.map(async (lane) => {
        for (const run of lane) results.get(run).resolve(await run.start())
      })
    )
  }
})()

const statuses = []
for (const run of runs) {
  const { text, status } = run.report(await results.get(run).promise)
  process.stdout.write(text)
  statuses.push(status)
}
await stagesDone
process.exit(statuses.find((status) => status !== 0) ?? 0)
