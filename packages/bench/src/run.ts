/**
 * The benchmark: effect-mcp, the official SDK clients (v1 and v2) and a raw client against the same
 * SDK-built server (effect-mcp twice: as a Promise program uses it, `NodePromiseClient`, the
 * one-file bundle; and as an Effect program imports it, each call run as an effect with
 * `runtime.runPromise`, the "effects" column; and the floor of that, the Promise client's calls each
 * in a fiber, `clients/floor.ts`, where calls are timed over stdio), each measurement in its own
 * process, interleaved (the client order rotates every round), at least 5 rounds. Prints medians per client and, per round, the ratio of
 * effect-mcp to the SDK and to the raw client (the median of those ratios is the claim);
 * writes everything as JSON to `bench-results/`. The `cli` workloads (`cli.ts`) time the
 * `effect-mcp` binary against the MCP Inspector's CLI in the same rounds, in a table of their own.
 * The `gateway` workloads (`gateway.ts`) time calls through `effect-mcp serve --port` against the
 * same server reached directly and through mcp-proxy, in a third table.
 *
 *   npm run bench                      the full run (a few minutes)
 *   node dist/run.js --smoke           tiny sizes, one round: checks that the harness works
 *   node dist/run.js --rounds 7 --only sequential,inflight
 *   node dist/run.js --rounds 3 --only cli     the CLI start-up and listing only
 *   node dist/run.js --rounds 3 --only gateway the gateway against direct and mcp-proxy only
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { type CliTool, cliTools, cliWorkloads, installRivals, measureCli } from "./cli.js"
import type { Target } from "./clients/Client.js"
import { type GatewayRoute, gatewayRoutes, gatewayWorkloads, measureRoute } from "./gateway.js"
import type { Figures, WorkloadSpec } from "./workloads.js"

const here = dirname(fileURLToPath(import.meta.url))
const serverScript = join(here, "server.js")
const workerScript = join(here, "worker.js")
const clients = ["raw", "sdk-v1", "sdk-v2", "effect-mcp", "effect-mcp-effects", "effect-floor"] as const
type ClientName = (typeof clients)[number]

/**
 * The floor of a fiber per call (`clients/floor.ts`) is measured where calls are timed, over stdio:
 * over HTTP the Promise client runs each call in a fiber of its own (session recovery is on), so a
 * fiber around it is no floor.
 */
const measures = (client: ClientName, workload: WorkloadSpec) =>
  client !== "effect-floor" ||
  (workload.transport === "stdio" && (workload.name === "sequential" || workload.name === "inflight"))

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
  // A smoke run holds its 50 calls for 1 s, not 3 s: the figure is only checked to be a number.
  {
    label: "stdio 5,000 pending",
    name: "pending",
    transport: "stdio",
    n: smoke ? 50 : 5000,
    ...(smoke ? { holdMs: 1000 } : {})
  },
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
  "cpuMs",
  "serverCpuUsPerCall",
  "serverRssKBPerSession",
  "serverRssMB"
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

/** The floor's two cells (its value, its ratio), dashes where it is not measured. */
const floorCells = (floor: { readonly floor: number; readonly floorRatioToSdk: number } | undefined) =>
  floor === undefined ? "– | –" : `${format(floor.floor)} | ${floor.floorRatioToSdk.toFixed(2)}×`

/** Per workload label, per client (or CLI), per metric: the value of each round. */
type Results<Name extends string = ClientName> = Map<string, Map<Name, Map<string, Array<number>>>>

const getOrAdd = <K, V>(map: Map<K, V>, key: K, make: () => V): V => {
  const found = map.get(key)
  if (found !== undefined) return found
  const made = make()
  map.set(key, made)
  return made
}

/** One column of a comparison table: who, the key of its figures in the JSON, its header. */
interface Column<Name extends string> {
  readonly name: Name
  readonly key: string
  readonly header: string
}

/**
 * A table of `subject` beside the others, and its JSON rows: per workload and metric, the median
 * of each column and the median over rounds of the subject's value over each other's in the same
 * round (`ratioTo<Key>`).
 */
const comparison = <Name extends string>(
  results: Results<Name>,
  columns: ReadonlyArray<Column<Name>>,
  subject: Name
) => {
  const others = columns.filter((column) => column.name !== subject)
  const title = columns.find((column) => column.name === subject)?.header ?? subject
  const lines = [
    `| workload | metric | ${columns.map((column) => column.header).join(" | ")} | ${others.map((other) => `${title} / ${other.header}`).join(" | ")} |`,
    `| --- | --- |${" ---: |".repeat(columns.length + others.length)}`
  ]
  const rows: Array<Record<string, unknown>> = []
  for (const [label, perName] of results) {
    for (const metric of perName.get(subject)?.keys() ?? []) {
      const values = (name: Name) => perName.get(name)?.get(metric) ?? []
      const ratios = others.map((other) =>
        median(values(subject).map((value, round) => value / (values(other.name)[round] ?? Number.NaN)))
      )
      const medians = columns.map((column) => median(values(column.name)))
      rows.push({
        workload: label,
        metric,
        better: lowerIsBetter.has(metric) ? "lower" : "higher",
        ...Object.fromEntries(columns.map((column, index) => [column.key, medians[index]])),
        ...Object.fromEntries(
          others.map((other, index) => [`ratioTo${other.key[0]?.toUpperCase()}${other.key.slice(1)}`, ratios[index]])
        ),
        rounds: Object.fromEntries(columns.map((column) => [column.key, values(column.name)]))
      })
      lines.push(
        `| ${label} | ${metric} ${lowerIsBetter.has(metric) ? "↓" : "↑"} | ${medians.map(format).join(" | ")} | ${ratios.map((ratio) => `${ratio.toFixed(2)}×`).join(" | ")} |`
      )
    }
  }
  return { lines, rows }
}

/** Runs the benchmark; returns the results and the printed table. */
export const run = async (settings: Settings) => {
  const workloads = workloadsFor(settings.smoke).filter(
    (workload) =>
      settings.only === undefined || settings.only.includes(workload.name) || settings.only.includes(workload.transport)
  )
  const cliRuns = cliWorkloads.filter(
    (workload) => settings.only === undefined || settings.only.includes(workload.name)
  )
  const gatewayRuns =
    settings.only === undefined || settings.only.includes("gateway") ? gatewayWorkloads(settings.smoke) : []
  if (cliRuns.length > 0) installRivals()
  const http = workloads.some((workload) => workload.transport === "http") ? await startHttpServer() : undefined
  const stdio: Target = { kind: "stdio", command: process.execPath, args: [serverScript, "stdio"] }
  const results: Results = new Map()
  const cliResults: Results<CliTool> = new Map()
  const gatewayResults: Results<GatewayRoute> = new Map()
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
        for (const client of order) {
          if (measures(client, workload))
            record(results, workload.label, client, await runWorker(client, workload, target))
        }
      }
      for (const workload of cliRuns) {
        const order = cliTools.map((_, index) => cliTools[(index + round) % cliTools.length] as CliTool)
        for (const tool of order) record(cliResults, workload.label, tool, await measureCli(tool, workload))
      }
      for (const workload of gatewayRuns) {
        const order = gatewayRoutes.map(
          (_, index) => gatewayRoutes[(index + round) % gatewayRoutes.length] as GatewayRoute
        )
        for (const route of order) {
          const figures = await measureRoute(route, (target) => runWorker("sdk-v1", workload, target))
          record(gatewayResults, workload.label, route, figures)
        }
      }
    }
  } finally {
    http?.child.kill()
  }
  const lines: Array<string> = []
  const rows: Array<Record<string, unknown>> = []
  lines.push(
    `| workload | metric | raw | SDK v1 | SDK v2 | effect-mcp | effect-mcp / SDK v1 | effect-mcp / SDK v2 | effect-mcp / raw | effects | effects / SDK v1 | fiber floor | floor / SDK v1 |`,
    `| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |`
  )
  for (const [label, perClient] of results) {
    for (const metric of perClient.get("effect-mcp")?.keys() ?? []) {
      const values = (client: ClientName) => perClient.get(client)?.get(metric) ?? []
      const ratio = (other: ClientName, of: ClientName = "effect-mcp") =>
        median(values(of).map((value, round) => value / (values(other)[round] ?? Number.NaN)))
      const better = lowerIsBetter.has(metric) ? "↓" : "↑"
      const floor =
        values("effect-floor").length === 0
          ? undefined
          : { floor: median(values("effect-floor")), floorRatioToSdk: ratio("sdk-v1", "effect-floor") }
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
        ...floor,
        rounds: {
          raw: values("raw"),
          sdk: values("sdk-v1"),
          sdkV2: values("sdk-v2"),
          effect: values("effect-mcp"),
          effects: values("effect-mcp-effects"),
          ...(floor === undefined ? {} : { floor: values("effect-floor") })
        }
      }
      rows.push(row)
      lines.push(
        `| ${label} | ${metric} ${better} | ${format(row.raw)} | ${format(row.sdk)} | ${format(row.sdkV2)} | ${format(row.effect)} | ${row.ratioToSdk.toFixed(2)}× | ${row.ratioToSdkV2.toFixed(2)}× | ${row.ratioToRaw.toFixed(2)}× | ${format(row.effects)} | ${row.effectsRatioToSdk.toFixed(2)}× | ${floorCells(floor)} |`
      )
    }
  }
  const cli = comparison(
    cliResults,
    [
      { name: "inspector", key: "inspector", header: "Inspector CLI" },
      { name: "mcporter", key: "mcporter", header: "mcporter" },
      { name: "effect-mcp", key: "effect", header: "effect-mcp" }
    ],
    "effect-mcp"
  )
  const gateway = comparison(
    gatewayResults,
    [
      { name: "direct", key: "direct", header: "direct" },
      { name: "gateway", key: "gateway", header: "gateway" },
      { name: "mcp-proxy", key: "mcpProxy", header: "mcp-proxy" }
    ],
    "gateway"
  )
  const tables = [
    ...(rows.length > 0 ? [lines] : []),
    ...(cli.rows.length > 0 ? [cli.lines] : []),
    ...(gateway.rows.length > 0 ? [gateway.lines] : [])
  ]
  return {
    rows,
    cliRows: cli.rows,
    gatewayRows: gateway.rows,
    table: tables.map((table) => table.join("\n")).join("\n\n")
  }
}

const isMain = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]
if (isMain) {
  const settings = parseSettings(process.argv.slice(2))
  const started = Date.now()
  const { rows, cliRows, gatewayRows, table } = await run(settings)
  console.log(
    `effect-mcp benchmark: ${settings.rounds} round(s), Node ${process.version}, ${settings.smoke ? "smoke sizes" : "full sizes"}`
  )
  console.log("↑ higher is better, ↓ lower is better; ratios are medians of same-round ratios\n")
  console.log(table)
  const directory = join(here, "..", "bench-results")
  mkdirSync(directory, { recursive: true })
  const file = join(directory, `bench-${new Date(started).toISOString().replaceAll(":", "-")}.json`)
  writeFileSync(
    file,
    `${JSON.stringify({ node: process.version, settings, rows, cli: cliRows, gateway: gatewayRows }, null, 2)}\n`
  )
  console.log(`\nJSON: ${file} (${Math.round((Date.now() - started) / 1000)} s)`)
}
