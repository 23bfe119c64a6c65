/**
 * The benchmark: effect-mcp, the official SDK clients (v1 and v2) and a raw client against the same
 * SDK-built server (effect-mcp twice: as a Promise program uses it, `NodePromiseClient`, the
 * one-file bundle; and as an Effect program imports it, each call run as an effect with
 * `runtime.runPromise`, the "effects" column), each measurement in its own process, interleaved (the client order rotates
 * every round), at least 5 rounds. Prints medians per client and, per round, the ratio of
 * effect-mcp to the SDK and to the raw client (the median of those ratios is the claim);
 * writes everything as JSON to `bench-results/`. The `cli` workloads (`cli.ts`) time the
 * `effect-mcp` binary against the MCP Inspector's CLI in the same rounds, in a table of their own.
 *
 *   npm run bench                      the full run (a few minutes)
 *   node dist/run.js --smoke           tiny sizes, one round: checks that the harness works
 *   node dist/run.js --rounds 7 --only sequential,inflight
 *   node dist/run.js --rounds 3 --only cli     the CLI start-up and listing only
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { type CliTool, cliTools, cliWorkloads, installRivals, measureCli } from "./cli.js"
import type { Target } from "./clients/Client.js"
import type { Figures, WorkloadSpec } from "./workloads.js"

const here = dirname(fileURLToPath(import.meta.url))
const serverScript = join(here, "server.js")
const workerScript = join(here, "worker.js")
const clients = ["raw", "sdk-v1", "sdk-v2", "effect-mcp", "effect-mcp-effects"] as const
type ClientName = (typeof clients)[number]

/** Command-line settings. */
export interface Settings {
  readonly rounds: number
  readonly smoke: boolean
  readonly only: ReadonlyArray<string> | undefined
}

const parseSettings = (argv: ReadonlyArray<string>): Settings => {
  const value = (flag: string) => {
    const index = argv.indexOf(flag)
    return index === -1 ? undefined : argv[index + 1]
  }
  const smoke = argv.includes("--smoke")
  return { smoke, rounds: Number(value("--rounds") ?? (smoke ? 1 : 5)), only: value("--only")?.split(",") }
}

/** The workloads of a full run, or of a smoke run. */
export const workloadsFor = (smoke: boolean): ReadonlyArray<WorkloadSpec & { readonly label: string }> => [
  { label: "stdio import, effect and @effect/platform loaded", name: "import", transport: "stdio", n: 1 },
  { label: "stdio cold start (import + connect + first list)", name: "cold", transport: "stdio", n: 1 },
  { label: "stdio sequential echo", name: "sequential", transport: "stdio", n: smoke ? 20 : 3000 },
  { label: "stdio 100 in flight", name: "inflight", transport: "stdio", n: smoke ? 200 : 10_000, concurrency: 100 },
  {
    label: "stdio 100 in flight, effect-mcp bounded (maxInFlight 1000)",
    name: "inflight",
    transport: "stdio",
    n: smoke ? 200 : 10_000,
    concurrency: 100,
    limit: 1000
  },
  { label: "stdio 1 MB results", name: "big", transport: "stdio", n: smoke ? 2 : 40, kb: 1024 },
  { label: "stdio 8 MB results", name: "big", transport: "stdio", n: smoke ? 1 : 5, kb: 8192 },
  { label: "stdio 5,000 pending", name: "pending", transport: "stdio", n: smoke ? 50 : 5000 },
  { label: "http cold start", name: "cold", transport: "http", n: 1 },
  { label: "http sequential echo", name: "sequential", transport: "http", n: smoke ? 20 : 2000 },
  { label: "http 100 in flight", name: "inflight", transport: "http", n: smoke ? 200 : 10_000, concurrency: 100 },
  { label: "http 1 MB results", name: "big", transport: "http", n: smoke ? 2 : 40, kb: 1024 },
  { label: "http 50 sessions", name: "sessions", transport: "http", n: smoke ? 3 : 50 }
]

/** Metrics where less is better. */
const lowerIsBetter = new Set([
  "p50Us",
  "p99Us",
  "cpuUsPerCall",
  "heapMB",
  "rssMB",
  "coldMs",
  "importMs",
  "heapKBPerPending",
  "sessionsMs",
  "heapKBPerSession",
  "wallMs",
  "outputMs",
  "cpuMs"
])

/** Starts the benchmark server over Streamable HTTP on a free loopback port. */
export const startHttpServer = () =>
  new Promise<{ readonly url: string; readonly child: ChildProcess }>((resolve, reject) => {
    const child = spawn(process.execPath, [serverScript, "http", "0"], { stdio: ["ignore", "pipe", "inherit"] })
    let out = ""
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      const match = /listening (\d+)/.exec(out)
      if (match !== null) resolve({ url: `http://127.0.0.1:${match[1]}/mcp`, child })
    })
    child.once("exit", (code) => reject(new Error(`the HTTP server exited with ${code}`)))
  })

const runWorker = (client: ClientName, spec: WorkloadSpec, target: Target) =>
  new Promise<Figures>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--expose-gc", workerScript, client, JSON.stringify(spec), JSON.stringify(target)],
      {
        stdio: ["ignore", "pipe", "pipe"]
      }
    )
    let out = ""
    let err = ""
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString()
    })
    child.stderr?.on("data", (chunk: Buffer) => {
      err += chunk.toString()
    })
    const timer = setTimeout(() => child.kill("SIGKILL"), 300_000)
    child.once("exit", (code) => {
      clearTimeout(timer)
      const line = out.split("\n").find((candidate) => candidate.startsWith("RESULT "))
      if (code === 0 && line !== undefined) resolve(JSON.parse(line.slice(7)) as Figures)
      else reject(new Error(`${client} ${spec.name} (${spec.transport}) failed with ${code}: ${err.slice(-2000)}`))
    })
  })

/** The median of the values. */
export const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2
}

const format = (value: number) =>
  Math.abs(value) >= 100 ? Math.round(value).toLocaleString("en-US") : value.toFixed(Math.abs(value) >= 10 ? 1 : 2)

/** Per workload label, per client (or CLI), per metric: the value of each round. */
type Results<Name extends string = ClientName> = Map<string, Map<Name, Map<string, Array<number>>>>

const getOrAdd = <K, V>(map: Map<K, V>, key: K, make: () => V): V => {
  const found = map.get(key)
  if (found !== undefined) return found
  const made = make()
  map.set(key, made)
  return made
}

/** Runs the benchmark; returns the results and the printed table. */
export const run = async (settings: Settings) => {
  const workloads = workloadsFor(settings.smoke).filter(
    (workload) =>
      settings.only === undefined || settings.only.includes(workload.name) || settings.only.includes(workload.transport)
  )
  const cli = cliWorkloads.filter((workload) => settings.only === undefined || settings.only.includes(workload.name))
  if (cli.length > 0) installRivals()
  const http = workloads.some((workload) => workload.transport === "http") ? await startHttpServer() : undefined
  const stdio: Target = { kind: "stdio", command: process.execPath, args: [serverScript, "stdio"] }
  const results: Results = new Map()
  const cliResults: Results<CliTool> = new Map()
  const record = <Name extends string>(results: Results<Name>, label: string, name: Name, figures: Figures) => {
    const perClient = getOrAdd(
      getOrAdd(results, label, () => new Map()),
      name,
      () => new Map()
    )
    for (const [metric, value] of Object.entries(figures))
      getOrAdd(perClient, metric, (): Array<number> => []).push(value)
  }
  try {
    for (let round = 0; round < settings.rounds; round++) {
      for (const workload of workloads) {
        const target: Target = workload.transport === "stdio" ? stdio : { kind: "http", url: http?.url ?? "" }
        const order = clients.map((_, index) => clients[(index + round) % clients.length] as ClientName)
        for (const client of order) record(results, workload.label, client, await runWorker(client, workload, target))
      }
      for (const workload of cli) {
        const order = cliTools.map((_, index) => cliTools[(index + round) % cliTools.length] as CliTool)
        for (const tool of order) record(cliResults, workload.label, tool, await measureCli(tool, workload))
      }
    }
  } finally {
    http?.child.kill()
  }
  const lines: Array<string> = []
  const rows: Array<Record<string, unknown>> = []
  lines.push(
    `| workload | metric | raw | SDK v1 | SDK v2 | effect-mcp | effect-mcp / SDK v1 | effect-mcp / SDK v2 | effect-mcp / raw | effects | effects / SDK v1 |`,
    `| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |`
  )
  for (const [label, perClient] of results) {
    for (const metric of perClient.get("effect-mcp")?.keys() ?? []) {
      const values = (client: ClientName) => perClient.get(client)?.get(metric) ?? []
      const ratio = (other: ClientName, of: ClientName = "effect-mcp") =>
        median(values(of).map((value, round) => value / (values(other)[round] ?? Number.NaN)))
      const better = lowerIsBetter.has(metric) ? "↓" : "↑"
      const row = {
        workload: label,
        metric,
        better: lowerIsBetter.has(metric) ? "lower" : "higher",
        raw: median(values("raw")),
        sdk: median(values("sdk-v1")),
        sdkV2: median(values("sdk-v2")),
        effect: median(values("effect-mcp")),
        ratioToSdk: ratio("sdk-v1"),
        ratioToSdkV2: ratio("sdk-v2"),
        ratioToRaw: ratio("raw"),
        effects: median(values("effect-mcp-effects")),
        effectsRatioToSdk: ratio("sdk-v1", "effect-mcp-effects"),
        rounds: {
          raw: values("raw"),
          sdk: values("sdk-v1"),
          sdkV2: values("sdk-v2"),
          effect: values("effect-mcp"),
          effects: values("effect-mcp-effects")
        }
      }
      rows.push(row)
      lines.push(
        `| ${label} | ${metric} ${better} | ${format(row.raw)} | ${format(row.sdk)} | ${format(row.sdkV2)} | ${format(row.effect)} | ${row.ratioToSdk.toFixed(2)}× | ${row.ratioToSdkV2.toFixed(2)}× | ${row.ratioToRaw.toFixed(2)}× | ${format(row.effects)} | ${row.effectsRatioToSdk.toFixed(2)}× |`
      )
    }
  }
  const cliLines = [
    `| workload | metric | Inspector CLI | mcporter | effect-mcp | effect-mcp / Inspector CLI | effect-mcp / mcporter |`,
    `| --- | --- | ---: | ---: | ---: | ---: | ---: |`
  ]
  const cliRows: Array<Record<string, unknown>> = []
  for (const [label, perTool] of cliResults) {
    for (const metric of perTool.get("effect-mcp")?.keys() ?? []) {
      const values = (tool: CliTool) => perTool.get(tool)?.get(metric) ?? []
      /** The median over rounds of effect-mcp's value over the rival's in the same round. */
      const ratioTo = (rival: CliTool) =>
        median(values("effect-mcp").map((value, round) => value / (values(rival)[round] ?? Number.NaN)))
      const row = {
        workload: label,
        metric,
        better: lowerIsBetter.has(metric) ? "lower" : "higher",
        inspector: median(values("inspector")),
        mcporter: median(values("mcporter")),
        effect: median(values("effect-mcp")),
        ratioToInspector: ratioTo("inspector"),
        ratioToMcporter: ratioTo("mcporter"),
        rounds: { inspector: values("inspector"), mcporter: values("mcporter"), effect: values("effect-mcp") }
      }
      cliRows.push(row)
      cliLines.push(
        `| ${label} | ${metric} ${lowerIsBetter.has(metric) ? "↓" : "↑"} | ${format(row.inspector)} | ${format(row.mcporter)} | ${format(row.effect)} | ${row.ratioToInspector.toFixed(2)}× | ${row.ratioToMcporter.toFixed(2)}× |`
      )
    }
  }
  const tables = [...(rows.length > 0 ? [lines] : []), ...(cliRows.length > 0 ? [cliLines] : [])]
  return { rows, cliRows, table: tables.map((table) => table.join("\n")).join("\n\n") }
}

const isMain = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]
if (isMain) {
  const settings = parseSettings(process.argv.slice(2))
  const started = Date.now()
  const { rows, cliRows, table } = await run(settings)
  console.log(
    `effect-mcp benchmark: ${settings.rounds} round(s), Node ${process.version}, ${settings.smoke ? "smoke sizes" : "full sizes"}`
  )
  console.log("↑ higher is better, ↓ lower is better; ratios are medians of same-round ratios\n")
  console.log(table)
  const directory = join(here, "..", "bench-results")
  mkdirSync(directory, { recursive: true })
  const file = join(directory, `bench-${new Date(started).toISOString().replaceAll(":", "-")}.json`)
  writeFileSync(file, `${JSON.stringify({ node: process.version, settings, rows, cli: cliRows }, null, 2)}\n`)
  console.log(`\nJSON: ${file} (${Math.round((Date.now() - started) / 1000)} s)`)
}
