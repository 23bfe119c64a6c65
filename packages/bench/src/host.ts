/**
 * The host benchmark: `McpHost` connecting N stdio servers (each its own process) and N
 * Streamable HTTP sessions (to one server process) at once. Reports the host's startup time
 * against the slowest single server connected alone (and the sum, which a sequential start
 * would pay), and heap and RSS per connected client. Median of `--rounds` (default 5).
 *
 *   npm run bench:host -w @effect-mcp/bench                 20 + 20, 5 rounds
 *   node dist/host.js --stdio 3 --http 3 --rounds 1         a smoke run
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Transports } from "@effect-mcp/client"
import { McpHost, type ServerEntry } from "@effect-mcp/host"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { median, startHttpServer } from "./run.js"

const here = dirname(fileURLToPath(import.meta.url))
const SLOW_START_MS = 2000
const serverScript = join(here, "server.js")

const gc = () => (globalThis as { gc?: () => void }).gc?.()
const heapUsed = () => {
  gc()
  gc()
  return process.memoryUsage()
}

/** The client's generic transports (StdioTransport, HttpTransport) over Node's platform. */
const platform = Transports.layer.pipe(
  Layer.provide(NodeContext.layer),
  Layer.provide(NodeHttpClient.layerWithoutAgent),
  Layer.provide(NodeHttpClient.makeAgentLayer({ keepAlive: true }))
)

/** Starts a host of these servers, checks every one is ready, and measures. */
const measure = (servers: ReadonlyArray<McpHost.ServerConfig>) =>
  Effect.gen(function* () {
    const before = heapUsed()
    const started = performance.now()
    return yield* Effect.gen(function* () {
      const host = yield* McpHost.McpHost
      const elapsed = performance.now() - started
      const statuses = yield* host.servers
      const failed = statuses.filter((server) => server.status._tag !== "Ready")
      if (failed.length > 0) throw new Error(`not ready: ${failed.map((server) => server.name).join(", ")}`)
      if ((yield* host.tools).length !== servers.length * 3) throw new Error("tools missing")
      const after = heapUsed()
      return {
        ms: elapsed,
        heapKBPerClient: (after.heapUsed - before.heapUsed) / servers.length / 1024,
        rssKBPerClient: (after.rss - before.rss) / servers.length / 1024
      }
    }).pipe(Effect.provide(McpHost.layer({ servers }).pipe(Layer.provide(platform))))
  })

const arg = (flag: string, fallback: number) => {
  const index = process.argv.indexOf(flag)
  return index === -1 ? fallback : Number(process.argv[index + 1])
}

const main = Effect.gen(function* () {
  const stdioCount = arg("--stdio", 20)
  const httpCount = arg("--http", 20)
  const rounds = arg("--rounds", 5)
  const http = yield* Effect.promise(() => startHttpServer())
  try {
    const stdio = (name: string, startDelayMs = 0): McpHost.ServerConfig => ({
      name,
      target: {
        _tag: "Stdio",
        command: process.execPath,
        args: [serverScript, "stdio", "0", String(startDelayMs)],
        env: {}
      }
    })
    const remote = (name: string): McpHost.ServerConfig => ({
      name,
      target: { _tag: "Http", url: http.url, transport: "http", headers: {} } satisfies ServerEntry.HttpTarget
    })
    const all = [
      ...Array.from({ length: stdioCount }, (_, i) => stdio(`stdio${i}`)),
      ...Array.from({ length: httpCount }, (_, i) => remote(`http${i}`))
    ]
    const results: Array<{
      single: number
      sum: number
      host: number
      heap: number
      rss: number
      httpOnly: number
      httpSingle: number
      slowSingle: number
      slowAll: number
    }> = []
    for (let round = 0; round < rounds; round++) {
      const aloneStdio = yield* measure([stdio("alone")])
      const aloneHttp = yield* measure([remote("alone")])
      const host = yield* measure(all)
      // HTTP sessions alone: the host's own concurrency, without N server processes starting on 2 cores.
      const httpOnly = yield* measure(all.filter((server) => server.target._tag === "Http"))
      // Servers that wait 2 s before serving (as a server loading a model does): concurrency is
      // visible when starting is waiting, not CPU; 2 cores cannot boot 20 Node servers at once.
      const slowAlone = yield* measure([stdio("slow", SLOW_START_MS)])
      const slowAll = yield* measure(
        Array.from({ length: Math.min(stdioCount, 10) }, (_, i) => stdio(`slow${i}`, SLOW_START_MS))
      )
      results.push({
        single: Math.max(aloneStdio.ms, aloneHttp.ms),
        sum: aloneStdio.ms * stdioCount + aloneHttp.ms * httpCount,
        host: host.ms,
        heap: host.heapKBPerClient,
        rss: host.rssKBPerClient,
        httpOnly: httpOnly.ms,
        httpSingle: aloneHttp.ms,
        slowSingle: slowAlone.ms,
        slowAll: slowAll.ms
      })
    }
    const pick = (key: keyof (typeof results)[number]) => median(results.map((result) => result[key]))
    const rows = {
      servers: { stdio: stdioCount, http: httpCount },
      slowestSingleMs: pick("single"),
      sequentialSumMs: pick("sum"),
      hostStartupMs: pick("host"),
      hostOverSlowest: median(results.map((result) => result.host / result.single)),
      heapKBPerClient: pick("heap"),
      rssKBPerClient: pick("rss"),
      rounds: results
    }
    console.log(
      `effect-mcp host benchmark: ${stdioCount} stdio servers + ${httpCount} HTTP sessions, ${rounds} round(s), Node ${process.version}`
    )
    console.log(`| figure | median |`)
    console.log(`| --- | ---: |`)
    console.log(`| slowest single server alone (connect + list), ms | ${rows.slowestSingleMs.toFixed(0)} |`)
    console.log(`| all ${all.length} at once through McpHost, ms | ${rows.hostStartupMs.toFixed(0)} |`)
    console.log(`| host / slowest single | ${rows.hostOverSlowest.toFixed(2)}× |`)
    console.log(`| one after another (sum of singles), ms | ${rows.sequentialSumMs.toFixed(0)} |`)
    console.log(`| one HTTP session alone, ms | ${pick("httpSingle").toFixed(0)} |`)
    console.log(`| the ${httpCount} HTTP sessions at once through McpHost, ms | ${pick("httpOnly").toFixed(0)} |`)
    console.log(`| one stdio server that takes ${SLOW_START_MS} ms to start, ms | ${pick("slowSingle").toFixed(0)} |`)
    console.log(
      `| ${Math.min(stdioCount, 10)} such servers at once through McpHost, ms | ${pick("slowAll").toFixed(0)} |`
    )
    console.log(`| heap per connected client, KB | ${rows.heapKBPerClient.toFixed(0)} |`)
    console.log(`| RSS per connected client, KB | ${rows.rssKBPerClient.toFixed(0)} |`)
    const directory = join(here, "..", "bench-results")
    mkdirSync(directory, { recursive: true })
    const file = join(directory, `host-${new Date().toISOString().replaceAll(":", "-")}.json`)
    writeFileSync(file, `${JSON.stringify({ node: process.version, ...rows }, null, 2)}\n`)
    console.log(`\nJSON: ${file}`)
  } finally {
    http.child.kill()
  }
})

Effect.runPromise(main).then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error)
    process.exit(1)
  }
)
