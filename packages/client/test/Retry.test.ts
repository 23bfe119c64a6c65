/**
 * Production behaviour against a loopback server written to misbehave: retries by what is safe
 * to repeat (429 with Retry-After, a 503 burst, a tool that fails after it ran), a bound on
 * requests in flight with a bounded queue, and lists served stale through a failed refresh.
 */
import type { ServerResponse } from "node:http"
import { describe, expect, it } from "@effect/vitest"
import { Features, HttpTransport, McpClient, Retry, Session } from "@effect-mcp/client"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { faultServer, initialized, type Received, rpc } from "./support/faultServer.js"
import { noFibersLeft } from "./support/fibers.js"
import { keepAliveHttpClient } from "./support/httpClient.js"

const TOOLS = [
  { name: "lookup", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } },
  { name: "charge", inputSchema: { type: "object" } },
  { name: "set-flag", inputSchema: { type: "object" }, annotations: { idempotentHint: true } },
  { name: "slow", inputSchema: { type: "object" } },
  { name: "change", inputSchema: { type: "object" } }
]

const json = (response: ServerResponse, body: unknown, status = 200) => {
  response.writeHead(status, { "content-type": "application/json" })
  response.end(JSON.stringify(body))
}

/** What the server does with the n-th request of a method (0-based): answer, or fail with a status. */
type Script = (
  method: string,
  tool: string | undefined,
  n: number
) => { readonly status: number; readonly headers?: Record<string, string> } | "answer"

/** A stateful Streamable HTTP server: tools that count their runs; `script` decides failures. */
const server = (script: Script) => {
  const runs: Record<string, number> = {}
  const seen: Record<string, number> = {}
  let inFlight = 0
  let mostInFlight = 0
  return Effect.map(
    faultServer((request: Received, response) => {
      const { id, method = "", params } = rpc(request)
      if (method === "initialize") return json(response, initialized(id))
      if (id === undefined) {
        response.writeHead(202).end()
        return
      }
      const tool = method === "tools/call" && typeof params?.name === "string" ? params.name : undefined
      const key = tool === undefined ? method : `${method} ${tool}`
      const n = seen[key] ?? 0
      seen[key] = n + 1
      const step = script(method, tool, n)
      // A tool runs before its answer is decided: a failure after this point happened after it ran.
      if (tool !== undefined && (step === "answer" || step.status !== 429)) runs[tool] = (runs[tool] ?? 0) + 1
      if (step !== "answer") {
        response.writeHead(step.status, { "content-type": "text/plain", ...step.headers })
        response.end("refused")
        return
      }
      if (method === "tools/list") return json(response, { jsonrpc: "2.0", id, result: { tools: TOOLS } })
      if (tool === "change") {
        // The answer as an event stream, with the list-changed notification first.
        response.writeHead(200, { "content-type": "text/event-stream" })
        response.write(
          `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/tools/list_changed" })}\n\n`
        )
        response.end(`event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id, result: { content: [] } })}\n\n`)
        return
      }
      inFlight++
      mostInFlight = Math.max(mostInFlight, inFlight)
      setTimeout(
        () => {
          inFlight--
          json(response, { jsonrpc: "2.0", id, result: { content: [{ type: "text", text: `ran ${tool}` }] } })
        },
        tool === "slow" ? 150 : 0
      )
    }),
    (started) => ({ ...started, runs, seen, mostInFlight: () => mostInFlight })
  )
}

const connect = (url: string, options: McpClient.McpClientOptions = {}) =>
  Effect.map(
    Layer.build(
      McpClient.layer({ name: "fault", protocolVersion: "2025-11-25", ...options }).pipe(
        Layer.provide(HttpTransport.layer({ url, transport: "http", auth: false })),
        Layer.provide(keepAliveHttpClient)
      )
    ),
    (context) => Context.get(context, McpClient.McpClient)
  )

const quick: Retry.RetryPolicy = { times: 3, base: "5 millis", maxDelay: "40 millis" }

describe("retries", () => {
  it.live("a read refused with 429 is sent again (Retry-After, capped by maxDelay, wins over the backoff)", () =>
    Effect.gen(function* () {
      const fault = yield* server((method, _tool, n) =>
        method === "tools/list" && n === 0 ? { status: 429, headers: { "retry-after": "3" } } : "answer"
      )
      const client = yield* connect(fault.url, { retry: { reads: quick } })
      expect((yield* client.tools).map((tool) => tool.name)).toContain("lookup")
      expect(fault.seen["tools/list"]).toBe(2)
      const [first, second] = fault.received.filter((request) => rpc(request).method === "tools/list")
      // Retry-After said 3 s; maxDelay caps it at 40 ms.
      expect((second?.at ?? 0) - (first?.at ?? 0)).toBeLessThan(2000)
    }).pipe(Effect.scoped, noFibersLeft)
  )

  it.live("a burst of 503s is ridden out within the attempts; past them the last failure is the error", () =>
    Effect.gen(function* () {
      const burst = (length: number) => (method: string, _tool: string | undefined, n: number) =>
        method === "tools/list" && n < length ? { status: 503 } : ("answer" as const)
      const riding = yield* server(burst(3))
      const client = yield* connect(riding.url, { retry: { reads: quick } })
      expect(yield* client.tools).toHaveLength(TOOLS.length)
      expect(riding.seen["tools/list"]).toBe(4)
      const longer = yield* server(burst(10))
      const failing = yield* connect(longer.url, { retry: { reads: quick } })
      const error = yield* Effect.flip(failing.tools)
      expect(error).toMatchObject({ _tag: "TransportError", status: 503 })
      expect(longer.seen["tools/list"]).toBe(4)
    }).pipe(Effect.scoped, noFibersLeft)
  )

  it.live("without a policy nothing is retried", () =>
    Effect.gen(function* () {
      const fault = yield* server((method, _tool, n) =>
        method === "tools/list" && n === 0 ? { status: 503 } : "answer"
      )
      const client = yield* connect(fault.url)
      expect(yield* Effect.flip(client.tools)).toMatchObject({ _tag: "TransportError", status: 503 })
      expect(fault.seen["tools/list"]).toBe(1)
    }).pipe(Effect.scoped, noFibersLeft)
  )

  it.live("a tool that failed after it ran is repeated only when it may be: hints, or the caller says so", () =>
    Effect.gen(function* () {
      // Every tool's first call runs, then the gateway answers 502.
      const fault = yield* server((method, _tool, n) =>
        method === "tools/call" && n === 0 ? { status: 502 } : "answer"
      )
      const client = yield* connect(fault.url, { retry: { tools: quick } })
      const charged = yield* Effect.flip(client.callTool("charge", {}))
      expect(charged).toMatchObject({ _tag: "TransportError", status: 502 })
      expect(fault.runs.charge).toBe(1)
      // Read-only and idempotent tools are repeated.
      expect(yield* client.callTool("lookup", {})).toMatchObject({ content: [{ text: "ran lookup" }] })
      expect(fault.runs.lookup).toBe(2)
      expect(yield* client.callTool("set-flag", {})).toMatchObject({ content: [{ text: "ran set-flag" }] })
      expect(fault.runs["set-flag"]).toBe(2)
      // The caller may say a call is idempotent.
      const again = yield* server((method, _tool, n) =>
        method === "tools/call" && n === 0 ? { status: 502 } : "answer"
      )
      const trusting = yield* connect(again.url, { retry: { tools: quick } })
      yield* trusting.callTool("charge", {}, { idempotent: true })
      expect(again.runs.charge).toBe(2)
    }).pipe(Effect.scoped, noFibersLeft)
  )

  it.live("a 429 says the server did not take the call: even a tool that is not idempotent is sent again", () =>
    Effect.gen(function* () {
      const fault = yield* server((method, _tool, n) =>
        method === "tools/call" && n === 0 ? { status: 429 } : "answer"
      )
      const client = yield* connect(fault.url, { retry: { tools: quick } })
      yield* client.callTool("charge", {})
      expect(fault.seen["tools/call charge"]).toBe(2)
      expect(fault.runs.charge).toBe(1)
    }).pipe(Effect.scoped, noFibersLeft)
  )

  it.live("errors that are not transient are never retried; a per-call false turns retries off", () =>
    Effect.gen(function* () {
      const fault = yield* server((method) => (method === "tools/list" ? { status: 400 } : "answer"))
      const client = yield* connect(fault.url, { retry: { reads: quick, tools: quick } })
      expect(yield* Effect.flip(client.tools)).toMatchObject({ status: 400 })
      expect(fault.seen["tools/list"]).toBe(1)
      const busy = yield* server((method, _tool, n) =>
        method === "tools/call" && n === 0 ? { status: 503 } : "answer"
      )
      const off = yield* connect(busy.url, { retry: { tools: quick } })
      expect(yield* Effect.flip(off.callTool("lookup", {}, { retry: false }))).toMatchObject({ status: 503 })
      expect(busy.seen["tools/call lookup"]).toBe(1)
    }).pipe(Effect.scoped, noFibersLeft)
  )
})

describe("the retry policy", () => {
  const transient = { reason: "HTTP 503", taken: false }
  it("doubles from base with jitter, caps at maxDelay, lets Retry-After win, stops at the attempts and the budget", () => {
    const policy: Retry.RetryPolicy = { times: 4, base: "100 millis", maxDelay: "1 second", budget: "2 seconds" }
    const millis = (delay: Duration.Duration | undefined) =>
      delay === undefined ? undefined : Duration.toMillis(delay)
    expect(millis(Retry.delayOf(policy, 1, 0, transient, 0.5))).toBe(100)
    expect(millis(Retry.delayOf(policy, 3, 0, transient, 0.5))).toBe(400)
    expect(millis(Retry.delayOf(policy, 1, 0, transient, 0))).toBe(75)
    expect(millis(Retry.delayOf(policy, 1, 0, transient, 0.999))).toBe(125)
    expect(millis(Retry.delayOf(policy, 4, 0, transient, 0.99))).toBe(996)
    expect(millis(Retry.delayOf(policy, 2, 0, { ...transient, retryAfter: 300 }, 0.5))).toBe(300)
    expect(millis(Retry.delayOf(policy, 2, 0, { ...transient, retryAfter: 60_000 }, 0.5))).toBe(1000)
    expect(Retry.delayOf(policy, 5, 0, transient, 0.5)).toBeUndefined()
    expect(Retry.delayOf(policy, 1, 1950, transient, 0.5)).toBeUndefined()
  })

  it("reads Retry-After as seconds or as an HTTP date", () => {
    const now = Date.parse("2026-11-23T10:00:00Z")
    expect(Retry.parseRetryAfter("7", now)).toBe(7000)
    expect(Retry.parseRetryAfter("Mon, 23 Nov 2026 10:00:05 GMT", now)).toBe(5000)
    expect(Retry.parseRetryAfter("soon", now)).toBeUndefined()
    expect(Retry.parseRetryAfter(undefined, now)).toBeUndefined()
  })
})

describe("requests in flight", () => {
  it.live("at most maxInFlight at once; a queue of maxQueued waits; beyond it Overloaded, never sent", () =>
    Effect.gen(function* () {
      const fault = yield* server(() => "answer")
      const client = yield* connect(fault.url, { maxInFlight: 2, maxQueued: 3 })
      yield* client.tools
      const outcomes = yield* Effect.all(
        Array.from({ length: 8 }, () => Effect.either(client.callTool("slow", {}))),
        { concurrency: "unbounded" }
      )
      const refused = outcomes.filter((outcome) => outcome._tag === "Left")
      expect(refused).toHaveLength(3)
      for (const outcome of refused)
        expect(outcome._tag === "Left" && outcome.left).toMatchObject({ _tag: "Overloaded", limit: 2, queued: 3 })
      expect(fault.runs.slow).toBe(5)
      expect(fault.mostInFlight()).toBe(2)
    }).pipe(Effect.scoped, noFibersLeft)
  )
})

describe("serve-stale", () => {
  it.live("after a change notification, a failed refresh answers with the last list (opt-in)", () =>
    Effect.gen(function* () {
      const script: Script = (method, _tool, n) => (method === "tools/list" && n > 0 ? { status: 503 } : "answer")
      const stale = yield* server(script)
      const serving = yield* connect(stale.url, { serveStaleLists: true })
      expect(yield* serving.tools).toHaveLength(TOOLS.length)
      yield* serving.callTool("change", {})
      expect(yield* serving.tools).toHaveLength(TOOLS.length)
      // Refreshed after the notification (and refused), yet the toolset is still there.
      expect(stale.seen["tools/list"]).toBeGreaterThanOrEqual(2)
      const strict = yield* server(script)
      const failing = yield* connect(strict.url)
      yield* failing.tools
      yield* failing.callTool("change", {})
      expect(yield* Effect.flip(failing.tools)).toMatchObject({ status: 503 })
    }).pipe(Effect.scoped, noFibersLeft)
  )

  it.live("the combinator a program applies to its own Tools does what the option does", () =>
    Effect.gen(function* () {
      const script: Script = (method, _tool, n) => (method === "tools/list" && n > 0 ? { status: 503 } : "answer")
      const stale = yield* server(script)
      const options: McpClient.McpClientOptions = { name: "fault", protocolVersion: "2025-11-25" }
      const staleTools = Layer.effect(Features.Tools, Effect.flatMap(Features.Tools, Features.servingStale("tools")))
      const context = yield* Layer.build(
        McpClient.layerFromFeatures().pipe(
          Layer.provide(Layer.mergeAll(Features.layerResources(), Features.layerPrompts(), Features.layerSkills)),
          Layer.provide(Features.layerTasks),
          Layer.provideMerge(staleTools),
          Layer.provideMerge(Features.layerTools(options)),
          Layer.provideMerge(Session.layer(options)),
          Layer.provide(HttpTransport.layer({ url: stale.url, transport: "http", auth: false })),
          Layer.provide(keepAliveHttpClient)
        )
      )
      const client = Context.get(context, McpClient.McpClient)
      expect(yield* client.tools).toHaveLength(TOOLS.length)
      yield* client.callTool("change", {})
      expect(yield* client.tools).toHaveLength(TOOLS.length)
      expect(stale.seen["tools/list"]).toBeGreaterThanOrEqual(2)
    }).pipe(Effect.scoped, noFibersLeft)
  )
})
