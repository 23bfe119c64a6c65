/**
 * The benchmark harness cannot rot: a smoke run (tiny sizes, one round, the built harness)
 * measures every client on both transports, and the `effect-mcp` binary against the Inspector
 * CLI, and writes its tables and JSON. No assertion is made on timing.
 */

import { execFile } from "node:child_process"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import { type ClientName, clientTable, type Results } from "../src/run.js"

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
  it("a smoke run measures raw, SDK v1, SDK v2 and effect-mcp (Promise client, Effect program, runPromise per call, and both floors) on stdio and HTTP, in both windows", async () => {
    const result = await runNode([harness, "--smoke", "--only", "sequential,pending,sessions"], 240_000)
    expect(result.status, result.stderr).toBe(0)
    const rows = result.stdout.split("\n").filter((line) => line.startsWith("| stdio") || line.startsWith("| http"))
    const metrics = rows.map((row) => `${row.split("|")[1]?.trim()} / ${row.split("|")[2]?.trim().split(" ")[0]}`)
    const timed = (workload: string) =>
      ["callsPerSec", "p50Us", "p99Us", "cpuUsPerCall"].map((metric) => `${workload} / ${metric}`)
    expect(metrics).toStrictEqual([
      ...timed("stdio sequential echo"),
      ...timed("stdio sequential echo, steady state"),
      "stdio 5,000 pending / heapKBPerPending",
      ...timed("http sequential echo"),
      ...timed("http sequential echo, steady state"),
      "http 50 sessions / sessionsMs",
      "http 50 sessions / heapKBPerSession",
      "http 50 sessions / rssMB"
    ])
    // Cells 3-9: raw, SDK v1, SDK v2, effect-mcp and its ratios; then pairs (figure, ratio to SDK v1)
    // for the Effect program, its floor, runPromise per call, the fiber floor.
    const measured = (row: string) => {
      const looped = /sequential/.test(row)
      const floors = looped && row.startsWith("| stdio")
      return [looped, floors, true, floors]
    }
    for (const row of rows) {
      const cells = row
        .split("|")
        .slice(3, 18)
        .map((cell) => cell.trim().replace(/[,×]/g, ""))
      expect(cells, row).toHaveLength(15)
      for (const cell of cells.slice(0, 7)) expect(Number.isFinite(Number(cell)), row).toBe(true)
      measured(row).forEach((shown, pair) => {
        const [figure, ratio] = [cells[7 + 2 * pair], cells[8 + 2 * pair]]
        if (shown)
          expect(
            [figure, ratio].every((cell) => Number.isFinite(Number(cell))),
            row
          ).toBe(true)
        else expect([figure, ratio], row).toStrictEqual(["–", "–"])
      })
    }
    const file = /JSON: (\S+)/.exec(result.stdout)?.[1] ?? ""
    const json = JSON.parse(readFileSync(file, "utf8")) as {
      rows: ReadonlyArray<{ workload: string; rounds: Record<string, ReadonlyArray<number>> }>
    }
    expect(json.rows).toHaveLength(rows.length)
    // The Effect program where calls are looped; the floors there over stdio, nowhere else.
    for (const row of json.rows) {
      const looped = /sequential/.test(row.workload)
      const floors = looped && row.workload.startsWith("stdio")
      expect(Object.keys(row.rounds)).toStrictEqual([
        "raw",
        "sdk",
        "sdkV2",
        "effect",
        ...(looped ? ["program"] : []),
        ...(floors ? ["programFloor"] : []),
        "effects",
        ...(floors ? ["floor"] : [])
      ])
    }
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

  it("a client whose worker failed shows `failed` and why, and the other rounds stay paired (SDK v2 running out of memory over HTTP no longer loses the run)", () => {
    const figures = (byClient: Partial<Record<ClientName, ReadonlyArray<number | undefined>>>) =>
      new Map(
        Object.entries(byClient).map(([client, rounds]) => {
          const values: Array<number> = []
          rounds?.forEach((value, round) => {
            if (value !== undefined) values[round] = value
          })
          return [client as ClientName, new Map([["callsPerSec", values]])]
        })
      )
    const results: Results = new Map([
      [
        "http sequential echo, steady state",
        figures({ "sdk-v1": [100, 100, 100], "effect-mcp": [110, 300, 130], raw: [220, undefined, 130] })
      ]
    ])
    const oom =
      "FATAL ERROR: Ineffective mark-compacts near heap limit Allocation failed - JavaScript heap out of memory"
    const { lines, rows } = clientTable(results, [
      ...[0, 1, 2].map((round) => ({
        label: "http sequential echo, steady state",
        client: "sdk-v2" as const,
        round,
        reason: oom
      })),
      { label: "http sequential echo, steady state", client: "raw", round: 1, reason: "exit 1" }
    ])
    const cells = (lines[2] ?? "").split("|").map((cell) => cell.trim())
    // raw (rounds 1 and 3), SDK v1, SDK v2, effect-mcp, / SDK v1, / SDK v2, / raw
    expect(cells.slice(3, 10)).toStrictEqual(["175", "100", "failed", "130", "1.30×", "–", "0.75×"])
    expect(lines.slice(3)).toStrictEqual([
      "",
      `- sdk-v2, http sequential echo, steady state, round 1: failed (${oom})`,
      `- sdk-v2, http sequential echo, steady state, round 2: failed (${oom})`,
      `- sdk-v2, http sequential echo, steady state, round 3: failed (${oom})`,
      "- raw, http sequential echo, steady state, round 2: failed (exit 1)"
    ])
    expect(rows[0]).toMatchObject({ raw: 175, sdk: 100, effect: 130, ratioToSdk: 1.3 })
    expect(rows[0]?.["sdkV2"]).toBeUndefined()
  })
})
