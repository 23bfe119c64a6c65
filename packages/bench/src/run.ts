/**
 * The benchmark: effect-mcp, the official SDK clients (v1 and v2) and a raw client against the same
 * SDK-built server, each measurement in its own process against a server of its own, interleaved (the client order rotates
 * every round), at least 5 rounds. effect-mcp is measured as a Promise program uses it
 * (`NodePromiseClient`, the one-file bundle); as an Effect program calls it (`clients/program.ts`:
 * the loop is Effect, one fiber in turn or `Effect.forEach` in flight) beside its floor, the same
 * program awaiting the Promise client; and with `runtime.runPromise` per call (`clients/effect.ts`,
 * "effects") beside its floor, the Promise client's calls each in a fiber (`clients/floor.ts`).
 * Calls are timed in a short window (200 warm-up calls, then a few thousand) and in steady state
 * (5,000 warm-up, then 20,000 sequential or 50,000 in flight). Prints medians per client and, per
 * round, the ratio of each to SDK v1 (the median of those ratios is the claim); writes everything
 * as JSON to `bench-results/`. The `cli` workloads (`cli.ts`) time the `effect-mcp` binary against
 * the MCP Inspector's CLI in the same rounds, in a table of their own. The `gateway` workloads
 * (`gateway.ts`) time calls through `effect-mcp serve --port` against the same server reached
 * directly and through mcp-proxy, in a third table.
 *
 *   npm run bench                      the full run (a few minutes)
 *   node dist/run.js --smoke           tiny sizes, one round: checks that the harness works
 *   node dist/run.js --rounds 7 --only sequential,inflight
 *   node dist/run.js --rounds 5 --only steady  the steady-state windows only
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
const clients = [
  "raw",
  "sdk-v1",
  "sdk-v2",
  "effect-mcp",
  "effect-program",
  "program-floor",
  "effect-mcp-effects",
  "effect-floor"
] as const
export type ClientName = (typeof clients)[number]
/** The clients that are not effect-mcp's: one failing is reported, and the run goes on. */
const rivals: ReadonlySet<ClientName> = new Set(["raw", "sdk-v1", "sdk-v2"])

/**
 * The Effect program (`clients/program.ts`) is measured where calls are looped (sequential, in
 * flight). The floors (`clients/floor.ts`, `program-floor`) only there over stdio: over HTTP the
 * Promise client runs each call in a fiber of its own (session recovery is on), so an effect
 * around it is no floor.
 */
const measures = (client: ClientName, workload: WorkloadSpec) => {
  const looped = workload.name === "sequential" || workload.name === "inflight"
  if (client === "effect-program") return looped
  if (client === "effect-floor" || client === "program-floor") return looped && workload.transport === "stdio"
  return true
}

/** The columns of the client table, each with the key of its figures in the JSON; ratios are to SDK v1. */
const clientColumns: ReadonlyArray<{ readonly client: ClientName; readonly key: string; readonly header: string }> = [
  { client: "raw", key: "raw", header: "raw" },
  { client: "sdk-v1", key: "sdk", header: "SDK v1" },
  { client: "sdk-v2", key: "sdkV2", header: "SDK v2" },
  { client: "effect-mcp", key: "effect", header: "effect-mcp" },
  { client: "effect-program", key: "program", header: "Effect program" },
  { client: "program-floor", key: "programFloor", header: "program floor" },
  { client: "effect-mcp-effects", key: "effects", header: "effects" },
  { client: "effect-floor", key: "floor", header: "fiber floor" }
]

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

/** The steady-state windows over `transport`: 5,000 warm-up calls, then 20,000 sequential or 50,000 in flight. */
const steadyState = (
  transport: "stdio" | "http",
  smoke: boolean
): ReadonlyArray<WorkloadSpec & { readonly label: string }> => [
  {
    label: `${transport} sequential echo, steady state`,
    name: "sequential",
    transport,
    n: smoke ? 20 : 20_000,
    warmup: smoke ? 10 : 5000
  },
  {
    label: `${transport} 100 in flight, steady state`,
    name: "inflight",
    transport,
    n: smoke ? 200 : 50_000,
    concurrency: 100,
    warmup: smoke ? 100 : 5000
  }
]

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
  ...steadyState("stdio", smoke),
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
  ...steadyState("http", smoke),
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
  "serverHeapKBPerSession",
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

/**
 * The line that says why a worker failed: V8's out-of-memory line when it is there, else the last
 * line that is not a stack frame.
 */
const failureReason = (error: unknown) => {
  const text = error instanceof Error ? error.message : String(error)
  const lines = text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
  const oom = lines.find((line) => line.includes("heap out of memory"))
  return oom ?? lines.filter((line) => !line.startsWith("at ") && !/^\d+: 0x/.test(line)).at(-1) ?? "no output"
}

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

/** The median of the finite values (a round that failed is a hole or `NaN`, and is left out). */
export const median = (values: ReadonlyArray<number>) => {
  const sorted = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b)
  if (sorted.length === 0) return Number.NaN
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2
}

const format = (value: number) =>
  Math.abs(value) >= 100 ? Math.round(value).toLocaleString("en-US") : value.toFixed(Math.abs(value) >= 10 ? 1 : 2)

/** Per workload label, per client (or CLI), per metric: the value of each round. */
export type Results<Name extends string = ClientName> = Map<string, Map<Name, Map<string, Array<number>>>>

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

/** A round in which a client's worker failed, and why. */
export interface Failure {
  readonly label: string
  readonly client: ClientName
  readonly round: number
  readonly reason: string
}

/**
 * The client table and its JSON rows: per workload and metric, each client's median and
 * effect-mcp's ways of calling over SDK v1 (medians of same-round ratios). A client with no round
 * measured shows `failed` where it failed and `–` where it is not measured; the failures are
 * listed under the table.
 */
export const clientTable = (results: Results, failures: ReadonlyArray<Failure>) => {
  const lines: Array<string> = []
  const rows: Array<Record<string, unknown>> = []
  // After raw, the SDKs and the Promise client: the other ways of calling effect-mcp, each beside SDK v1.
  const others = clientColumns.slice(4)
  lines.push(
    `| workload | metric | raw | SDK v1 | SDK v2 | effect-mcp | / SDK v1 | / SDK v2 | / raw | ${others
      .map((column) => `${column.header} | / SDK v1`)
      .join(" | ")} |`,
    `| --- | --- |${" ---: |".repeat(7 + 2 * others.length)}`
  )
  for (const [label, perClient] of results) {
    for (const metric of perClient.get("effect-mcp")?.keys() ?? []) {
      const values = (client: ClientName) => perClient.get(client)?.get(metric) ?? []
      const ratio = (other: ClientName, of: ClientName = "effect-mcp") =>
        median(values(of).map((value, round) => value / (values(other)[round] ?? Number.NaN)))
      const better = lowerIsBetter.has(metric) ? "↓" : "↑"
      const measured = clientColumns.filter((column) => values(column.client).length > 0)
      const row = {
        workload: label,
        metric,
        better: lowerIsBetter.has(metric) ? "lower" : "higher",
        ...Object.fromEntries(measured.map((column) => [column.key, median(values(column.client))])),
        ratioToSdk: ratio("sdk-v1"),
        ratioToSdkV2: ratio("sdk-v2"),
        ratioToRaw: ratio("raw"),
        ...Object.fromEntries(
          measured
            .filter((column) => others.includes(column))
            .map((column) => [`${column.key}RatioToSdk`, ratio("sdk-v1", column.client)])
        ),
        rounds: Object.fromEntries(measured.map((column) => [column.key, values(column.client)]))
      }
      rows.push(row)
      const failed = (client: ClientName) =>
        failures.some((failure) => failure.label === label && failure.client === client)
      const cell = (client: ClientName) =>
        values(client).length > 0 ? format(median(values(client))) : failed(client) ? "failed" : "–"
      // No round of both measured (one of them failed throughout): no ratio.
      const ratioCell = (client: ClientName, to: ClientName = "sdk-v1") => {
        const value = ratio(to, client)
        return Number.isFinite(value) ? `${value.toFixed(2)}×` : "–"
      }
      lines.push(
        `| ${label} | ${metric} ${better} | ${cell("raw")} | ${cell("sdk-v1")} | ${cell("sdk-v2")} | ${cell("effect-mcp")} | ${ratioCell("effect-mcp")} | ${ratioCell("effect-mcp", "sdk-v2")} | ${ratioCell("effect-mcp", "raw")} | ${others
          .map((column) => `${cell(column.client)} | ${ratioCell(column.client)}`)
          .join(" | ")} |`
      )
    }
  }
  if (failures.length > 0)
    lines.push(
      "",
      ...failures.map(
        (failure) => `- ${failure.client}, ${failure.label}, round ${failure.round + 1}: failed (${failure.reason})`
      )
    )
  return { lines, rows }
}

/** Runs the benchmark; returns the results and the printed table. */
export const run = async (settings: Settings) => {
  // `--only`: transports (stdio, http) and kinds (a workload's name, or steady), each given set narrowing.
  const only = settings.only ?? []
  const transports = only.filter((name) => name === "stdio" || name === "http")
  const kinds = only.filter((name) => name !== "stdio" && name !== "http")
  const workloads = workloadsFor(settings.smoke).filter(
    (workload) =>
      (transports.length === 0 || transports.includes(workload.transport)) &&
      (kinds.length === 0 ||
        kinds.includes(workload.name) ||
        (kinds.includes("steady") && workload.warmup !== undefined))
  )
  const cliRuns = cliWorkloads.filter(
    (workload) => settings.only === undefined || settings.only.includes(workload.name)
  )
  const gatewayRuns =
    settings.only === undefined || settings.only.includes("gateway") ? gatewayWorkloads(settings.smoke) : []
  if (cliRuns.length > 0) installRivals()
  const stdio: Target = { kind: "stdio", command: process.execPath, args: [serverScript, "stdio"] }
  // Over HTTP each measurement gets a server of its own, as over stdio: what one client leaves in
  // the server (the SDK's sessions, its garbage) is not another's to pay for, and a server that
  // runs out of memory takes one cell with it, not the rest of the run.
  const measure = async (client: ClientName, workload: WorkloadSpec) => {
    if (workload.transport === "stdio") return runWorker(client, workload, stdio)
    const http = await startHttpServer()
    try {
      return await runWorker(client, workload, { kind: "http", url: http.url })
    } finally {
      http.child.kill()
    }
  }
  const results: Results = new Map()
  const cliResults: Results<CliTool> = new Map()
  const gatewayResults: Results<GatewayRoute> = new Map()
  // Each round's value at its round's index, so that a round a client failed is a hole and
  // same-round ratios stay paired.
  const record = <Name extends string>(
    results: Results<Name>,
    label: string,
    name: Name,
    round: number,
    figures: Figures
  ) => {
    const perClient = getOrAdd(
      getOrAdd(results, label, () => new Map()),
      name,
      () => new Map()
    )
    for (const [metric, value] of Object.entries(figures))
      getOrAdd(perClient, metric, (): Array<number> => [])[round] = value
  }
  // A client that fails a workload (a rival running out of memory in the steady window) loses that
  // cell, not the run: the table says `failed` and the reason is printed under it.
  const failures: Array<Failure> = []
  for (let round = 0; round < settings.rounds; round++) {
    for (const workload of workloads) {
      const order = clients.map((_, index) => clients[(index + round) % clients.length] as ClientName)
      for (const client of order) {
        if (!measures(client, workload)) continue
        const figures = await measure(client, workload).catch((error: unknown) => {
          failures.push({ label: workload.label, client, round, reason: failureReason(error) })
          return undefined
        })
        if (figures !== undefined) record(results, workload.label, client, round, figures)
      }
    }
    for (const workload of cliRuns) {
      const order = cliTools.map((_, index) => cliTools[(index + round) % cliTools.length] as CliTool)
      for (const tool of order) record(cliResults, workload.label, tool, round, await measureCli(tool, workload))
    }
    for (const workload of gatewayRuns) {
      const order = gatewayRoutes.map(
        (_, index) => gatewayRoutes[(index + round) % gatewayRoutes.length] as GatewayRoute
      )
      for (const route of order) {
        const figures = await measureRoute(route, (target) => runWorker("sdk-v1", workload, target))
        record(gatewayResults, workload.label, route, round, figures)
      }
    }
  }
  const { lines, rows } = clientTable(results, failures)
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
    ...(lines.length > 2 ? [lines] : []),
    ...(cli.rows.length > 0 ? [cli.lines] : []),
    ...(gateway.rows.length > 0 ? [gateway.lines] : [])
  ]
  return {
    rows,
    failures,
    cliRows: cli.rows,
    gatewayRows: gateway.rows,
    table: tables.map((table) => table.join("\n")).join("\n\n")
  }
}

const isMain = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]
if (isMain) {
  const settings = parseSettings(process.argv.slice(2))
  const started = Date.now()
  const { rows, failures, cliRows, gatewayRows, table } = await run(settings)
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
    `${JSON.stringify({ node: process.version, settings, rows, failures, cli: cliRows, gateway: gatewayRows }, null, 2)}\n`
  )
  // A rival failing is a figure; one of effect-mcp's clients failing is a defect.
  if (failures.some((failure) => !rivals.has(failure.client))) process.exitCode = 1
  console.log(`\nJSON: ${file} (${Math.round((Date.now() - started) / 1000)} s)`)
}
