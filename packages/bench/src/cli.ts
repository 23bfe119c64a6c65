/**
 * The `cli` workloads: the `effect-mcp` binary against the MCP Inspector's CLI
 * (`@modelcontextprotocol/inspector --cli`), each run as a user would run it, in its own
 * process: its help, its version, and listing the reference server's tools over stdio
 * (`effect-mcp tools list --stdio "node everything stdio"` against
 * `inspector --cli node everything stdio --method tools/list`). Both are started with `node`
 * directly (not through `npx`, whose own start-up would be measured too).
 *
 * Figures: wall time from spawn to exit, peak RSS of the CLI's own process (the server it
 * starts is not counted; `rss.js`, preloaded, reports `process.resourceUsage().maxRSS` at
 * exit), and for the listing the time to the first byte of output.
 */
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
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

/** The tools compared, in the table's order. */
export const cliTools = ["inspector", "effect-mcp"] as const
export type CliTool = (typeof cliTools)[number]

/** One `cli` workload. */
export interface CliWorkload {
  readonly label: string
  readonly name: "cli"
  readonly command: "help" | "version" | "list"
}

/** The `cli` workloads (the same in a smoke run: each is one process start). */
export const cliWorkloads: ReadonlyArray<CliWorkload> = [
  { label: "cli --help", name: "cli", command: "help" },
  { label: "cli --version", name: "cli", command: "version" },
  { label: "cli tools list (stdio, reference server)", name: "cli", command: "list" }
]

const argumentsOf = (tool: CliTool, command: CliWorkload["command"]): ReadonlyArray<string> => {
  const server = [process.execPath, everything, "stdio"]
  if (tool === "effect-mcp") {
    switch (command) {
      case "help":
        return [effectMcpBin, "--help"]
      case "version":
        return [effectMcpBin, "--version"]
      case "list":
        return [effectMcpBin, "tools", "list", "--stdio", server.map((word) => JSON.stringify(word)).join(" ")]
    }
  }
  switch (command) {
    case "help":
      return [inspectorBin, "--cli", "--help"]
    case "version":
      return [inspectorBin, "--cli", "--version"]
    case "list":
      return [inspectorBin, "--cli", ...server, "--method", "tools/list"]
  }
}

/** Runs one CLI once; what it printed must show that it did the work. */
export const measureCli = (tool: CliTool, workload: CliWorkload): Promise<Figures> =>
  new Promise<Figures>((resolve, reject) => {
    const directory = mkdtempSync(join(tmpdir(), "bench-cli-"))
    const rssFile = join(directory, "rss")
    const started = performance.now()
    let firstOutput: number | undefined
    let out = ""
    let err = ""
    const child = spawn(process.execPath, ["--import", rssHook, ...argumentsOf(tool, workload.command)], {
      env: { ...process.env, NO_COLOR: "1", BENCH_RSS_FILE: rssFile },
      stdio: ["ignore", "pipe", "pipe"]
    })
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
      try {
        rssKB = Number(readFileSync(rssFile, "utf8"))
      } catch {}
      rmSync(directory, { recursive: true, force: true })
      const expected =
        workload.command === "version" ? /\d+\.\d+\.\d+/ : workload.command === "help" ? /usage/i : /echo/
      if (code !== 0 || !expected.test(out) || !Number.isFinite(rssKB))
        return reject(
          new Error(`${tool} ${workload.label} failed with ${code}: ${err.slice(-2000)}\nstdout: ${out.slice(0, 500)}`)
        )
      resolve({
        wallMs,
        ...(workload.command === "list" ? { outputMs: firstOutput ?? wallMs } : {}),
        rssMB: rssKB / 1024
      })
    })
  })
