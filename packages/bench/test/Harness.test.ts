/**
 * The benchmark harness cannot rot: a smoke run (tiny sizes, one round, the built harness)
 * measures every client on both transports, and the `effect-mcp` binary against the Inspector
 * CLI, and writes its tables and JSON. No assertion is made on timing.
 */

import { execFile } from "node:child_process"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"

const harness = fileURLToPath(new URL("../dist/run.js", import.meta.url))
const hostHarness = fileURLToPath(new URL("../dist/host.js", import.meta.url))

/**
 * Runs Node with `args` and resolves with how it ended. Not `spawnSync`: a run of minutes would
 * block the test worker, and vitest's own calls to it would time out.
 */
const runNode = (
  args: ReadonlyArray<string>,
  timeout: number
): Promise<{ readonly status: number | null; readonly stdout: string; readonly stderr: string }> =>
  new Promise((resolve) => {
    execFile(
      process.execPath,
      [...args],
      { encoding: "utf8", timeout, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) =>
        resolve({ status: error === null ? 0 : typeof error.code === "number" ? error.code : null, stdout, stderr })
    )
  })

describe("benchmark harness", () => {
  it("a smoke run measures raw, SDK v1, SDK v2 and effect-mcp (Promise client, effects, and the floor of a fiber per call) on stdio and HTTP", async () => {
    const result = await runNode([harness, "--smoke", "--only", "sequential,pending,sessions"], 240_000)
    expect(result.status, result.stderr).toBe(0)
    const rows = result.stdout.split("\n").filter((line) => line.startsWith("| stdio") || line.startsWith("| http"))
    const metrics = rows.map((row) => row.split("|")[1]?.trim() + " / " + row.split("|")[2]?.trim().split(" ")[0])
    expect(metrics).toStrictEqual([
      "stdio sequential echo / callsPerSec",
      "stdio sequential echo / p50Us",
      "stdio sequential echo / p99Us",
      "stdio sequential echo / cpuUsPerCall",
      "stdio 5,000 pending / heapKBPerPending",
      "http sequential echo / callsPerSec",
      "http sequential echo / p50Us",
      "http sequential echo / p99Us",
      "http sequential echo / cpuUsPerCall",
      "http 50 sessions / sessionsMs",
      "http 50 sessions / heapKBPerSession",
      "http 50 sessions / rssMB"
    ])
    // Every cell is a number and every ratio is finite.
    for (const row of rows) {
      const cells = row
        .split("|")
        .slice(3, /stdio sequential/.test(row) ? 14 : 12)
        .map((cell) => cell.trim().replace(/[,×]/g, ""))
      for (const cell of cells) expect(Number.isFinite(Number(cell)), row).toBe(true)
      if (!/stdio sequential/.test(row)) expect(row, row).toMatch(/\| – \| – \|$/)
    }
    const file = /JSON: (\S+)/.exec(result.stdout)?.[1] ?? ""
    const json = JSON.parse(readFileSync(file, "utf8")) as {
      rows: ReadonlyArray<{ workload: string; rounds: Record<string, ReadonlyArray<number>> }>
    }
    expect(json.rows).toHaveLength(rows.length)
    // The floor of a fiber per call where calls are timed over stdio, nowhere else.
    for (const row of json.rows)
      expect(Object.keys(row.rounds)).toStrictEqual([
        "raw",
        "sdk",
        "sdkV2",
        "effect",
        "effects",
        ...(/stdio sequential/.test(row.workload) ? ["floor"] : [])
      ])
  }, 240_000)

  it("a smoke run of the cli workload times effect-mcp against the Inspector CLI and mcporter: help, version, tools list, a call", async () => {
    const result = await runNode([harness, "--smoke", "--only", "cli"], 300_000)
    expect(result.status, result.stderr).toBe(0)
    expect(result.stdout).toMatch(
      /^\| workload \| metric \| Inspector CLI \| mcporter \| effect-mcp \| effect-mcp \/ Inspector CLI \| effect-mcp \/ mcporter \|$/m
    )
    const rows = result.stdout.split("\n").filter((line) => line.startsWith("| cli"))
    expect(
      rows.map((row) => `${row.split("|")[1]?.trim()} / ${row.split("|")[2]?.trim().split(" ")[0]}`)
    ).toStrictEqual([
      "cli --help / wallMs",
      "cli --help / cpuMs",
      "cli --help / rssMB",
      "cli --version / wallMs",
      "cli --version / cpuMs",
      "cli --version / rssMB",
      "cli tools list (stdio, reference server) / wallMs",
      "cli tools list (stdio, reference server) / outputMs",
      "cli tools list (stdio, reference server) / cpuMs",
      "cli tools list (stdio, reference server) / rssMB",
      "cli tools call echo (stdio, reference server) / wallMs",
      "cli tools call echo (stdio, reference server) / outputMs",
      "cli tools call echo (stdio, reference server) / cpuMs",
      "cli tools call echo (stdio, reference server) / rssMB"
    ])
    for (const row of rows) {
      const cells = row
        .split("|")
        .slice(3, 8)
        .map((cell) => cell.trim().replace(/[,×]/g, ""))
      for (const cell of cells) expect(Number.isFinite(Number(cell)), row).toBe(true)
    }
    const file = /JSON: (\S+)/.exec(result.stdout)?.[1] ?? ""
    const json = JSON.parse(readFileSync(file, "utf8")) as {
      rows: ReadonlyArray<unknown>
      cli: ReadonlyArray<{ rounds: Record<string, ReadonlyArray<number>> }>
    }
    expect(json.rows).toStrictEqual([])
    expect(json.cli).toHaveLength(rows.length)
    for (const row of json.cli) expect(Object.keys(row.rounds)).toStrictEqual(["inspector", "mcporter", "effect"])
  }, 300_000)

  it("a smoke run of the host benchmark connects stdio servers and HTTP sessions through McpHost", async () => {
    const result = await runNode(["--expose-gc", hostHarness, "--stdio", "2", "--http", "2", "--rounds", "1"], 120_000)
    expect(result.status, result.stderr).toBe(0)
    for (const figure of ["slowest single server alone", "all 4 at once through McpHost", "heap per connected client"])
      expect(result.stdout).toMatch(new RegExp(`\\| ${figure}[^|]*\\| [0-9.]+×? \\|`))
  }, 120_000)
})
