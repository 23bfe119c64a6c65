/**
 * What an operator reads off the gateway: `/healthz`, `/readyz` (the servers started), `/metrics`
 * (Prometheus' text format: requests by method, server and outcome, durations, restarts; behind its
 * token), and the audit log (one entry per call: who, which server, how it ended, arguments masked
 * unless kept), with the reference server over stdio behind it.
 */
import * as fs from "node:fs/promises"
import * as http from "node:http"
import * as os from "node:os"
import * as nodePath from "node:path"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { expect, layer, it as plain } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as MetricBoundaries from "effect/MetricBoundaries"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import { AuditLog, NodeStreamableHttpServer } from "../src/index.js"
import * as Prometheus from "../src/internal/prometheus.js"
import { connect, everything, gatewayHost, stdio } from "./support/gateway.js"

const METRICS_TOKEN = "m3trics"

/** A gateway on a free loopback port: its base URL. */
const base = Effect.map(
  NodeStreamableHttpServer.listen({ port: 0, ops: { metricsToken: METRICS_TOKEN } }),
  ({ port }) => `http://127.0.0.1:${port}`
)

/** A GET with exactly these headers (`Host` included, which `fetch` would not send as given). */
const get = (url: string, headers: Record<string, string> = {}) =>
  Effect.async<{ status: number; type: string; body: string }>((resume) => {
    const request = http.get(url, { headers }, (response) => {
      let body = ""
      response.setEncoding("utf8")
      response.on("data", (chunk: string) => {
        body += chunk
      })
      response.on("end", () =>
        resume(Effect.succeed({ status: response.statusCode ?? 0, type: response.headers["content-type"] ?? "", body }))
      )
    })
    request.on("error", (cause) => resume(Effect.die(cause)))
  })

/** The value of one series of `/metrics`, 0 when absent. */
const seriesValue = (text: string, series: string): number => {
  const line = text.split("\n").find((entry) => entry.startsWith(`${series} `))
  return line === undefined ? 0 : Number(line.slice(series.length + 1))
}

const metrics = (url: string) =>
  Effect.map(get(`${url}/metrics`, { authorization: `Bearer ${METRICS_TOKEN}` }), (r) => r.body)

const Entries = Schema.Array(AuditLog.Entry)

layer(gatewayHost({ servers: [{ name: "ev", target: everything }] }), {
  excludeTestServices: true,
  timeout: "60 seconds"
})("the gateway's operator endpoints and audit log", (it) => {
  it.scoped("/healthz and /readyz answer, the servers' states in /readyz", () =>
    Effect.gen(function* () {
      const url = yield* base
      const health = yield* get(`${url}/healthz`)
      expect(health.status).toBe(200)
      expect(JSON.parse(health.body)).toStrictEqual({ status: "ok" })
      const ready = yield* get(`${url}/readyz`)
      expect(ready.status).toBe(200)
      expect(JSON.parse(ready.body)).toStrictEqual({ status: "ready", servers: { ev: "Ready" } })
      // Not for browsers, nor for a Host the gateway does not answer to.
      expect((yield* get(`${url}/healthz`, { origin: "https://evil.example" })).status).toBe(403)
      expect((yield* get(`${url}/metrics`, { host: "evil.example" })).status).toBe(403)
      // The MCP endpoint is where it was.
      expect((yield* get(`${url}/mcp`)).status).toBe(400)
    })
  )

  it.scoped("/metrics needs its token, and counts a call by method, server and outcome", () =>
    Effect.gen(function* () {
      const url = yield* base
      const refused = yield* get(`${url}/metrics`)
      expect(refused.status).toBe(401)
      expect((yield* get(`${url}/metrics`, { authorization: "Bearer wrong" })).status).toBe(401)
      const ok = 'mcp_gateway_requests_total{method="tools/call",server="ev",outcome="ok"}'
      const toolError = 'mcp_gateway_requests_total{method="tools/call",server="ev",outcome="tool_error"}'
      const before = yield* metrics(url)
      const { client } = yield* connect({ validateToolInput: false })
      yield* client.callTool("ev__echo", { message: "hi" })
      // Arguments the tool refuses: a tool error (isError), counted as such.
      yield* client.callTool("ev__get-sum", { a: "x" })
      const scraped = yield* get(`${url}/metrics`, { authorization: `Bearer ${METRICS_TOKEN}` })
      expect(scraped.status).toBe(200)
      expect(scraped.type).toMatch(/^text\/plain; version=0\.0\.4/)
      expect(seriesValue(scraped.body, ok) - seriesValue(before, ok)).toBe(1)
      expect(seriesValue(scraped.body, toolError) - seriesValue(before, toolError)).toBe(1)
      expect(scraped.body).toContain("# TYPE mcp_gateway_requests_total counter")
      // A 2025-11-25 session over HTTP is counted while it is open.
      const open = (text: string) => seriesValue(text, "mcp_gateway_sessions")
      const opened = yield* Effect.promise(() =>
        fetch(`${url}/mcp`, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "initialize",
            params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } }
          })
        })
      )
      const session = opened.headers.get("mcp-session-id") ?? ""
      expect(open(yield* metrics(url)) - open(scraped.body)).toBe(1)
      yield* Effect.promise(() => fetch(`${url}/mcp`, { method: "DELETE", headers: { "mcp-session-id": session } }))
      yield* Effect.promise(() => opened.text())
      // The session's fiber ends after the DELETE is answered: bounded, 100 looks 20 ms apart.
      let after = open(yield* metrics(url))
      for (let looks = 0; looks < 100 && after !== open(scraped.body); looks++) {
        yield* Effect.sleep("20 millis")
        after = open(yield* metrics(url))
      }
      expect(after).toBe(open(scraped.body))
      expect(scraped.body).toContain("# TYPE mcp_gateway_request_duration_seconds histogram")
      expect(scraped.body).toMatch(/mcp_gateway_request_duration_seconds_bucket\{method="tools\/call",le="\+Inf"\} \d+/)
    })
  )

  it.scoped("the audit log has an entry per call: who, which server, how it ended; arguments masked", () =>
    Effect.gen(function* () {
      const entries = yield* Queue.unbounded<AuditLog.Entry>()
      const program = Effect.gen(function* () {
        const { client } = yield* connect({ validateToolInput: false })
        yield* client.callTool("ev__echo", { message: "a secret" })
        yield* client.callTool("ev__get-sum", { a: "x" })
        // A call cancelled by its client.
        const long = yield* Effect.fork(
          client.callTool("ev__trigger-long-running-operation", { duration: 30, steps: 30 })
        )
        yield* Effect.sleep("300 millis")
        yield* Fiber.interrupt(long)
        yield* Effect.ignore(client.request("tools/call", { name: "nosuch", arguments: {} }))
      })
      yield* program.pipe(Effect.provide(AuditLog.layer((entry) => Queue.offer(entries, entry))))
      // Each is written as its call ends: a cancelled call's may come after a later call's.
      const taken = yield* Effect.all(Array.from({ length: 4 }, () => Queue.take(entries)))
      const byName = (name: string) => taken.find((entry) => entry.name === name)
      const [echo, sum, cancelled, unknown] = [
        byName("ev__echo"),
        byName("ev__get-sum"),
        byName("ev__trigger-long-running-operation"),
        byName("nosuch")
      ]
      expect(echo).toMatchObject({
        principal: "anonymous",
        principalKind: "anonymous",
        method: "tools/call",
        server: "ev",
        name: "ev__echo",
        outcome: "ok",
        arguments: { message: "[masked]" }
      })
      expect(echo?.durationMs).toBeGreaterThanOrEqual(0)
      expect(JSON.stringify(echo)).not.toContain("a secret")
      expect(sum).toMatchObject({ name: "ev__get-sum", outcome: "tool_error" })
      expect(cancelled).toMatchObject({ name: "ev__trigger-long-running-operation", outcome: "cancelled" })
      expect(unknown).toMatchObject({ name: "nosuch", outcome: "error" })
      expect(unknown).not.toHaveProperty("server")
      expect(unknown?.error?.message).toMatch(/nosuch/)
    })
  )

  it.scoped("a file audit log appends JSON lines (mode 0600), arguments as given when told to keep them", () =>
    Effect.gen(function* () {
      const directory = yield* Effect.promise(() => fs.mkdtemp(nodePath.join(os.tmpdir(), "audit-")))
      yield* Effect.addFinalizer(() => Effect.promise(() => fs.rm(directory, { recursive: true, force: true })))
      const file = nodePath.join(directory, "audit.jsonl")
      yield* Effect.gen(function* () {
        const { client } = yield* connect()
        yield* client.callTool("ev__echo", { message: "one" })
        yield* client.callTool("ev__echo", { message: "two" })
      }).pipe(
        Effect.provide(AuditLog.layerFile(file, { keepArguments: true }).pipe(Layer.provide(NodeFileSystem.layer)))
      )
      const text = yield* Effect.promise(() => fs.readFile(file, "utf8"))
      const lines = text
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line))
      const decoded = Schema.decodeUnknownSync(Entries)(lines)
      expect(decoded.map((entry) => entry.arguments)).toStrictEqual([{ message: "one" }, { message: "two" }])
      const mode = (yield* Effect.promise(() => fs.stat(file))).mode & 0o777
      expect(mode).toBe(0o600)
    })
  )
})

layer(
  gatewayHost({
    servers: [{ name: "gone", target: stdio("/nonexistent/server.mjs") }]
  }),
  { timeout: "60 seconds" }
)("the gateway's readiness with no server ready", (it) => {
  it.scoped("/readyz is 503 and says which server is not ready", () =>
    Effect.gen(function* () {
      const url = yield* base
      const ready = yield* get(`${url}/readyz`)
      expect(ready.status).toBe(503)
      const body = JSON.parse(ready.body)
      expect(body.status).toBe("starting")
      expect(Object.keys(body.servers)).toStrictEqual(["gone"])
      expect(body.servers.gone).not.toBe("Ready")
      expect((yield* get(`${url}/healthz`)).status).toBe(200)
    })
  )
})

plain.effect("Prometheus' text format: help, type, labels escaped, histogram buckets cumulative with +Inf", () =>
  Effect.gen(function* () {
    const counter = Metric.counter("test_ops_render_total", { description: "A counter", incremental: true })
    yield* Metric.increment(Metric.tagged(counter, "who", 'a "quoted"\nname'))
    const histogram = Metric.histogram("test_ops_render_seconds", MetricBoundaries.fromIterable([0.1, 1]))
    yield* Metric.update(histogram, 0.05)
    yield* Metric.update(histogram, 0.5)
    yield* Metric.update(histogram, 5)
    const text = yield* Prometheus.scrape
    expect(text).toContain("# HELP test_ops_render_total A counter")
    expect(text).toContain('test_ops_render_total{who="a \\"quoted\\"\\nname"} 1')
    expect(text).toContain('test_ops_render_seconds_bucket{le="0.1"} 1')
    expect(text).toContain('test_ops_render_seconds_bucket{le="1"} 2')
    expect(text).toContain('test_ops_render_seconds_bucket{le="+Inf"} 3')
    expect(text).toContain("test_ops_render_seconds_count 3")
    expect(text).toContain("test_ops_render_seconds_sum 5.55")
  })
)
