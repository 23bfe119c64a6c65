/**
 * A connection reset under a request (the keep-alive race: the server closes an idle socket as
 * the request goes out; "socket hang up", ECONNRESET) is transient: a read is retried, and a
 * tool call when the rules allow (the server may have read it first).
 */
import type { ServerResponse } from "node:http"
import { describe, expect, it } from "@effect/vitest"
import { HttpTransport, McpClient, McpError, Retry } from "@effect-mcp/client"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { faultServer, initialized, rpc } from "./support/faultServer.js"
import { noFibersLeft } from "./support/fibers.js"
import { keepAliveHttpClient } from "./support/httpClient.js"

const TOOLS = [
  { name: "lookup", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } },
  { name: "charge", inputSchema: { type: "object" } },
  { name: "refund", inputSchema: { type: "object" } }
]

const json = (response: ServerResponse, body: unknown) => {
  response.writeHead(200, { "content-type": "application/json" })
  response.end(JSON.stringify(body))
}

/** A server that destroys the socket under the first request of each method (and tool); counts them. */
const resettingServer = () => {
  const seen: Record<string, number> = {}
  return Effect.map(
    faultServer((request, response) => {
      const { id, method = "", params } = rpc(request)
      if (request.method === "DELETE" || request.method === "GET") return response.writeHead(405).end()
      if (method === "initialize") return json(response, initialized(id))
      if (id === undefined) return response.writeHead(202).end()
      const key = method === "tools/call" ? `${method} ${String(params?.name)}` : method
      seen[key] = (seen[key] ?? 0) + 1
      if (seen[key] === 1) return response.socket?.destroy()
      if (method === "tools/list") return json(response, { jsonrpc: "2.0", id, result: { tools: TOOLS } })
      if (method === "tools/call") return json(response, { jsonrpc: "2.0", id, result: { content: [] } })
      return json(response, { jsonrpc: "2.0", id, result: {} })
    }),
    (started) => ({ ...started, seen })
  )
}

const connect = (url: string, options: McpClient.McpClientOptions) =>
  Effect.map(
    Layer.build(
      McpClient.layer({ name: "resetting", protocolVersion: "2025-11-25", ...options }).pipe(
        Layer.provide(HttpTransport.layer({ url, transport: "http", auth: false })),
        Layer.provide(keepAliveHttpClient)
      )
    ),
    (context) => Context.get(context, McpClient.McpClient)
  )

const quick: Retry.RetryPolicy = { times: 2, base: "5 millis", maxDelay: "20 millis" }

describe("a connection reset under a request", () => {
  it("is transient, and the server may have taken the request", () => {
    for (const reason of [
      "POST http://127.0.0.1:1/mcp failed: ECONNRESET: socket hang up",
      "POST http://127.0.0.1:1/mcp failed: socket hang up",
      "POST http://127.0.0.1:1/mcp failed: write EPIPE"
    ]) {
      expect(Retry.transient(new McpError.TransportError({ server: "s", reason }))).toMatchObject({ taken: true })
    }
  })

  it.live("a read is retried under retry.reads", () =>
    Effect.gen(function* () {
      const fault = yield* resettingServer()
      const client = yield* connect(fault.url, { retry: { reads: quick } })
      const tools = yield* client.tools
      expect(tools.map((tool) => tool.name)).toStrictEqual(["lookup", "charge", "refund"])
      yield* client.ping()
      expect(fault.seen).toMatchObject({ "tools/list": 2, ping: 2 })
    }).pipe(Effect.scoped, noFibersLeft)
  )

  it.live("a read-only tool's call is retried under retry.tools; a tool that may change things is not", () =>
    Effect.gen(function* () {
      const fault = yield* resettingServer()
      const client = yield* connect(fault.url, { retry: { reads: quick, tools: quick } })
      yield* client.callTool("lookup", {})
      expect(fault.seen["tools/call lookup"]).toBe(2)
      const error = yield* Effect.flip(client.callTool("charge", {}))
      expect(error._tag).toBe("TransportError")
      expect(error.message).toMatch(/socket hang up|ECONNRESET/)
      expect(fault.seen["tools/call charge"]).toBe(1)
      // Unless the caller says the call may be repeated: its first attempt is reset too, and it is sent again.
      yield* client.callTool("refund", {}, { idempotent: true })
      expect(fault.seen["tools/call refund"]).toBe(2)
    }).pipe(Effect.scoped, noFibersLeft)
  )

  it.live("without a retry policy the reset is the request's failure", () =>
    Effect.gen(function* () {
      const fault = yield* resettingServer()
      const client = yield* connect(fault.url, {})
      const error = yield* Effect.flip(client.ping())
      expect(error).toMatchObject({ _tag: "TransportError" })
      expect(fault.seen.ping).toBe(1)
    }).pipe(Effect.scoped, noFibersLeft)
  )
})
