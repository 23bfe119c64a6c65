/**
 * The `cli` workloads: the `effect-mcp` binary against the two CLIs people reach for, the MCP
 * Inspector's (`@modelcontextprotocol/inspector --cli`) and mcporter, each run as a user would
 * run it, in its own process: its help, its version, listing the reference server's tools over
 * stdio, and one tool call over stdio (`effect-mcp tools call echo message=hi -- node everything
 * stdio`; `inspector --cli … --method tools/call`; `mcporter call --stdio … echo message=hi`).
 * They are started with `node` directly (not through `npx`, whose own start-up would be measured
 * too); mcporter needs Node 24, which `rivals/` installs beside it (`npm ci` there on first use,
 * never on the workspace's PATH), and it starts the server with this Node like the others.
 *
 * Figures: wall time from spawn to exit; CPU time of the CLI and of every process it started and
 * waited for (the server included: a CLI that starts a server twice pays twice), from the `times`
 * of a `sh` that runs it; peak RSS of the CLI's own process (`rss.js`, preloaded, reports
 * `process.resourceUsage().maxRSS` at exit); for the listing and the call, the time to the first
 * byte of output.
 */
import { spawn, spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import type { Figures } from "./workloads.js"

const here = dirname(fileURLToPath(import.meta.url))
const require = createRequire(import.meta.url)

/** The `effect-mcp` binary of this workspace (`npm run build` bundles it). */
export const effectMcpBin = join(here, "..", "..", "cli", "bin", "effect-mcp.js")
/** The Inspector's launcher (`npx @modelcontextprotocol/inspector` runs it). */
export const inspectorBin = require.resolve("@modelcontextprotocol/inspector/clients/launcher/build/index.js")
/** The reference server, the one the Inspector's examples use. */
export const everything = require.resolve("@modelcontextprotocol/server-everything/dist/index.js")
const rssHook = join(here, "rss.js")
/** mcporter and the Node 24 it needs, in their own npm project. */
const rivals = join(here, "..", "rivals")
const mcporterBin = join(rivals, "node_modules", "mcporter", "dist", "cli.js")
const node24 = join(rivals, "node_modules", "node", "bin", "node")

/** Installs `rivals/` (mcporter, Node 24) when it is not there yet. */
export const installRivals = () => {
  if (existsSync(mcporterBin) && existsSync(node24)) return
  const install = spawnSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: rivals, stdio: "inherit" })
  if (install.status !== 0) throw new Error(`npm ci in ${rivals} failed with ${install.status}`)
}

/** The tools compared, in the table's order. */
export const cliTools = ["inspector", "mcporter", "effect-mcp"] as const
export type CliTool = (typeof cliTools)[number]

/** One `cli` workload. */
export interface CliWorkload {
  readonly label: string
  readonly name: "cli"
  readonly command: "help" | "version" | "list" | "call"
}

/** The `cli` workloads (the same in a smoke run: each is one process start). */
export const cliWorkloads: ReadonlyArray<CliWorkload> = [
  { label: "cli --help", name: "cli", command: "help" },
  { label: "cli --version", name: "cli", command: "version" },
  { label: "cli tools list (stdio, reference server)", name: "cli", command: "list" },
  { label: "cli tools call echo (stdio, reference server)", name: "cli", command: "call" }
]

/** The Node that runs a tool, and its arguments. */
const commandOf = (tool: CliTool, command: CliWorkload["command"]): readonly [string, ReadonlyArray<string>] => {
  const server = [process.execPath, everything, "stdio"]
  const quoted = server.map((word) => JSON.stringify(word)).join(" ")
  switch (tool) {
    case "effect-mcp":
      switch (command) {
        case "help":
          return [process.execPath, [effectMcpBin, "--help"]]
        case "version":
          return [process.execPath, [effectMcpBin, "--version"]]
        case "list":
          return [process.execPath, [effectMcpBin, "tools", "list", "--stdio", quoted]]
        case "call":
          return [process.execPath, [effectMcpBin, "tools", "call", "echo", "message=hi", "--", ...server]]
      }
      break
    case "mcporter":
      switch (command) {
        case "help":
          return [node24, [mcporterBin, "--help"]]
        case "version":
          return [node24, [mcporterBin, "--version"]]
        case "list":
          return [node24, [mcporterBin, "list", "--stdio", quoted]]
        case "call":
          return [node24, [mcporterBin, "call", "--stdio", quoted, "echo", "message=hi"]]
      }
      break
    case "inspector":
      switch (command) {
        case "help":
          return [process.execPath, [inspectorBin, "--cli", "--help"]]
        case "version":
          return [process.execPath, [inspectorBin, "--cli", "--version"]]
        case "list":
          return [process.execPath, [inspectorBin, "--cli", ...server, "--method", "tools/list"]]
        case "call":
          return [
            process.execPath,
            [
              inspectorBin,
              "--cli",
              ...server,
              "--method",
              "tools/call",
              "--tool-name",
              "echo",
              "--tool-arg",
              "message=hi"
            ]
          ]
      }
  }
}

/** What each command's output must show for the run to count (help: stdout or stderr, where mcporter prints it). */
const expected: Record<CliWorkload["command"], RegExp> = {
  version: /\d+\.\d+\.\d+/,
  help: /usage/i,
  list: /echo/,
  call: /Echo: hi/
}

/** CPU seconds of a `times` line (`0m1.230000s 0m0.120000s`): user plus system. */
const cpuOf = (line: string | undefined) =>
  [...(line ?? "").matchAll(/(\d+)m([\d.]+)s/g)].reduce(
    (sum, match) => sum + Number(match[1]) * 60 + Number(match[2]),
    0
  )

/** Runs one CLI once; what it printed must show that it did the work. */
export const measureCli = (tool: CliTool, workload: CliWorkload): Promise<Figures> =>
  new Promise<Figures>((resolve, reject) => {
    const directory = mkdtempSync(join(tmpdir(), "bench-cli-"))
    const rssFile = join(directory, "rss")
    const started = performance.now()
    let firstOutput: number | undefined
    let out = ""
    let err = ""
    const timesFile = join(directory, "times")
    const [node, args] = commandOf(tool, workload.command)
    // `times` in the shell that waited for it: the CLI's CPU and its descendants' (the server).
    const child = spawn(
      "sh",
      ["-c", '"$@"; code=$?; times > "$BENCH_TIMES_FILE"; exit $code', "sh", node, "--import", rssHook, ...args],
      {
        env: { ...process.env, NO_COLOR: "1", BENCH_RSS_FILE: rssFile, BENCH_TIMES_FILE: timesFile },
        stdio: ["ignore", "pipe", "pipe"]
      }
    )
    child.stdout?.on("data", (chunk: Buffer) => {
      firstOutput ??= performance.now() - started
      out += chunk.toString()
    })
    child.stderr?.on("data", (chunk: Buffer) => {
      err += chunk.toString()
    })
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000)
    child.once("exit", (code) => {
      const wallMs = performance.now() - started
      clearTimeout(timer)
      let rssKB = Number.NaN
      let cpuMs = Number.NaN
      try {
        rssKB = Number(readFileSync(rssFile, "utf8"))
        cpuMs = cpuOf(readFileSync(timesFile, "utf8").split("\n")[1]) * 1000
      } catch {}
      rmSync(directory, { recursive: true, force: true })
      if (
        code !== 0 ||
        !expected[workload.command].test(workload.command === "help" ? out + err : out) ||
        !Number.isFinite(rssKB) ||
        !Number.isFinite(cpuMs)
      )
        return reject(
          new Error(`${tool} ${workload.label} failed with ${code}: ${err.slice(-2000)}\nstdout: ${out.slice(0, 500)}`)
        )
      resolve({
        wallMs,
        ...(workload.command === "list" || workload.command === "call" ? { outputMs: firstOutput ?? wallMs } : {}),
        cpuMs,
        rssMB: rssKB / 1024
      })
    })
  })
