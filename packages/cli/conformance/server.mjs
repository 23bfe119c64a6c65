#!/usr/bin/env node
/**
 * Runs the official MCP conformance suite (server side) against one MCP server over
 * Streamable HTTP, with Node 24 from this folder's own install (as run.mjs does).
 *
 *   node packages/cli/conformance/server.mjs <url>
 *   node packages/cli/conformance/server.mjs -- <command…>
 *
 * With a URL it tests the server listening there. With a command it starts the command
 * (through the shell, in its own process group), waits for the line `listening <url>` on its
 * stdout, tests that URL and stops the whole group at the end. For example:
 *
 *   node packages/cli/conformance/server.mjs -- npx tsx packages/gateway/test/fixtures/conformanceServer.ts
 *
 * Three runs: the active suite (`--suite active`) and the official scoring of both revisions
 * (`--requirements 2025-11-25`, `--requirements 2026-07-28`, each at its revision's wire).
 * After each run it reads every scenario's checks.json and prints scenario → verdict,
 * because the runner's summary counts a scenario that recorded no passing check as passed.
 * Exits non-zero when a run does, or when a scenario that counts has no real pass.
 *
 * Options: `--timeout <ms>` per scenario (default 120000: whole runs time out on a loaded
 * 2-core machine at the runner's 30 s), `--runs active,2025-11-25,2026-07-28` to pick runs.
 * Results are written to <folder>/<run>/ (a started server's stderr to <folder>/server-stderr.log),
 * the folder `--output <folder>` names (emptied first), by default packages/cli/build/conformance-server.
 */
import { spawn, spawnSync } from "node:child_process"
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))
const node24 = join(here, "node_modules", ".bin", "node")
const runner = join(here, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
const defaultOutput = join(here, "..", "build", "conformance-server")
const allRuns = ["active", "2025-11-25", "2026-07-28"]
const startupLimitMs = 120_000

const usage = () => {
  process.stderr.write(
    "usage: server.mjs [--timeout <ms>] [--runs active,2025-11-25,2026-07-28] [--expected-failures <yaml>] [--output <folder>] (<url> | -- <command…>)\n"
  )
  process.exit(2)
}

/** The scenarios an --expected-failures file lists whole (not `scenario:check` entries). */
const expectedScenarios = new Set()

/** Reads the command line: options, then a URL or `--` and a command. */
const parseArguments = (args) => {
  const options = {
    timeout: "120000",
    runs: allRuns,
    output: defaultOutput,
    url: undefined,
    command: undefined,
    expected: undefined
  }
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]
    if (arg === "--") {
      options.command = args.slice(index + 1).join(" ")
      break
    } else if (arg === "--timeout") {
      options.timeout = args[++index] ?? usage()
      if (!/^\d+$/.test(options.timeout)) usage()
    } else if (arg === "--expected-failures") {
      options.expected = args[++index] ?? usage()
      for (const line of readFileSync(options.expected, "utf8").split("\n")) {
        const entry = /^\s*-\s*([\w-]+)\s*$/.exec(line)?.[1]
        if (entry !== undefined) expectedScenarios.add(entry)
      }
    } else if (arg === "--output") {
      options.output = args[++index] ?? usage()
    } else if (arg === "--runs") {
      options.runs = (args[++index] ?? usage()).split(",")
      if (options.runs.some((run) => !allRuns.includes(run))) usage()
    } else if (/^https?:\/\//.test(arg) && options.url === undefined) options.url = arg
    else usage()
  }
  if ((options.url === undefined) === (options.command === undefined || options.command === "")) usage()
  return options
}

/** Starts `command` in its own process group (its stderr into `log`) and resolves with the URL it announces. */
const start = (command, log) =>
  new Promise((resolve, reject) => {
    const stderr = openSync(log, "w")
    const child = spawn(command, { shell: true, detached: true, stdio: ["ignore", "pipe", stderr] })
    closeSync(stderr)
    const timer = setTimeout(() => {
      void stop(child)
      reject(new Error(`no 'listening <url>' line from '${command}' within ${startupLimitMs / 1000} s`))
    }, startupLimitMs)
    child.once("exit", (code, signal) => {
      clearTimeout(timer)
      reject(new Error(`'${command}' exited (${signal ?? code}) before announcing its URL; see ${log}`))
    })
    createInterface({ input: child.stdout }).on("line", (line) => {
      const match = /^listening (\S+)$/.exec(line.trim())
      if (match === null) return
      clearTimeout(timer)
      child.removeAllListeners("exit")
      resolve({ child, url: match[1] })
    })
  })

/** Whether any process of the group this script started is still alive. */
const groupAlive = (child) => {
  try {
    process.kill(-child.pid, 0)
    return true
  } catch {
    return false
  }
}

/** Ends the process group this script started: SIGTERM, then SIGKILL if it outlives 10 s. */
const stop = async (child) => {
  if (!groupAlive(child)) return
  process.kill(-child.pid, "SIGTERM")
  for (let waited = 0; waited < 10_000 && groupAlive(child); waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  if (groupAlive(child)) process.kill(-child.pid, "SIGKILL")
}

/** Runs one conformance run into `folder`, returning the runner's exit status and output. */
const conformance = (url, args, folder, timeout) => {
  const result = spawnSync(node24, [runner, "server", "--url", url, ...args, "--timeout", timeout, "-o", folder], {
    stdio: ["ignore", "pipe", "pipe"],
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024
  })
  return { status: result.status ?? 1, text: plain((result.stdout ?? "") + (result.stderr ?? "")) }
}

const plain = (text) => text.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g"), "")

/** Every scenario's checks in `folder`: scenario → { counts by status, failed checks }. */
const verdictsIn = (folder) => {
  const verdicts = new Map()
  if (!existsSync(folder)) return verdicts
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name, "checks.json")
    if (!entry.isDirectory() || !existsSync(path)) continue
    const scenario = entry.name.replace(/^server-/, "").replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, "")
    const checks = JSON.parse(readFileSync(path, "utf8"))
    const counts = { SUCCESS: 0, FAILURE: 0, WARNING: 0, SKIPPED: 0, INFO: 0 }
    for (const check of checks) counts[check.status] = (counts[check.status] ?? 0) + 1
    const failures = checks.filter((check) => check.status === "FAILURE")
    verdicts.set(scenario, { counts, failures })
  }
  return verdicts
}

/** The scenarios a revision runs without scoring them (the runner's frozen requirement set). */
const notScored = (revision) => {
  const YAML = createRequire(join(here, "package.json"))("yaml")
  const file = join(dirname(dirname(runner)), "requirements", `${revision}.yaml`)
  const set = YAML.parse(readFileSync(file, "utf8"))
  return new Map((set.not_scored ?? []).filter((e) => e.leg === "server").map((e) => [e.scenario, e.reason]))
}

const verdictOf = ({ counts }) => (counts.FAILURE > 0 ? "FAIL" : counts.SUCCESS > 0 ? "pass" : "no pass")

const main = async () => {
  const options = parseArguments(process.argv.slice(2))
  if (!existsSync(node24) || !existsSync(runner)) {
    const install = spawnSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: here, stdio: "inherit" })
    if (install.status !== 0) process.exit(install.status ?? 1)
  }
  const output = options.output
  rmSync(output, { recursive: true, force: true })
  mkdirSync(output, { recursive: true })
  const log = join(output, "server-stderr.log")
  const started = options.command === undefined ? undefined : await start(options.command, log)
  const url = started?.url ?? options.url
  process.once("SIGINT", () => {
    const stopping = started === undefined ? Promise.resolve() : stop(started.child)
    void stopping.then(() => process.exit(130))
  })
  console.log(`conformance server (@modelcontextprotocol/conformance 0.2.0-alpha.12) against ${url}`)
  if (started !== undefined) console.log(`the server's stderr: ${log}`)
  let failed = false
  try {
    for (const run of options.runs) {
      const args = [
        ...(run === "active" ? ["--suite", "active"] : ["--requirements", run]),
        ...(options.expected === undefined ? [] : ["--expected-failures", options.expected])
      ]
      const folder = join(output, run)
      const result = conformance(url, args, folder, options.timeout)
      const unscored = run === "active" ? new Map() : notScored(run)
      const verdicts = verdictsIn(folder)
      const total = result.text.split("\n").find((line) => line.startsWith("Total")) ?? "no total printed"
      const counted = [...verdicts].filter(([scenario]) => !unscored.has(scenario))
      const bad = counted.filter(([, verdict]) => verdictOf(verdict) !== "pass").map(([scenario]) => scenario)
      // A scenario listed whole in --expected-failures may fail (the runner then holds it to failing).
      const unexpected = bad.filter((scenario) => !expectedScenarios.has(scenario))
      const ok = result.status === 0 && unexpected.length === 0
      if (!ok) failed = true
      const label = run === "active" ? "--suite active" : `--requirements ${run}`
      console.log(
        `\n${label}: ${ok ? "pass" : "FAIL"} (runner exit ${result.status}; ${total}; ` +
          `${counted.length - bad.length}/${counted.length} scenarios that count have a real pass)`
      )
      for (const [scenario, verdict] of [...verdicts].sort(([a], [b]) => a.localeCompare(b))) {
        const { counts } = verdict
        const extra = ["WARNING", "SKIPPED", "INFO"].filter((status) => counts[status] > 0)
        const note = unscored.has(scenario) ? ` (not scored: ${unscored.get(scenario)})` : ""
        console.log(
          `  ${scenario.padEnd(48)} ${verdictOf(verdict).padEnd(7)} ${counts.SUCCESS} passed, ${counts.FAILURE} failed` +
            `${extra.map((status) => `, ${counts[status]} ${status.toLowerCase()}`).join("")}${note}`
        )
        for (const check of verdict.failures) {
          console.log(`      ${check.id}: ${(check.errorMessage ?? check.description ?? "").slice(0, 200)}`)
        }
      }
      if (verdicts.size === 0) process.stdout.write(result.text.split("\n").slice(-40).join("\n"))
      else if (result.status !== 0) process.stdout.write(result.text.slice(result.text.indexOf("=== SUMMARY")))
    }
  } finally {
    if (started !== undefined) await stop(started.child)
  }
  process.exit(failed ? 1 : 0)
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`)
  process.exit(1)
})
