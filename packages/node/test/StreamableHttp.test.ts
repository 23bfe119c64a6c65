/**
 * The Streamable HTTP transport against loopback servers written to misbehave, twice: with every
 * request through the `HttpClient`, and with the Node route (`NodeHttpTransport`) carrying POSTs
 * and event streams; the behaviour must be the same.
 */

import { describe, expect, it } from "@effect/vitest"
import { HttpTransport, McpClient, type Transport } from "@effect-mcp/client"
import * as NodeHttpTransport from "@effect-mcp/node/NodeHttpTransport"
import { McpSchema } from "@effect-mcp/protocol"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { closesWithAnswerUnanswered } from "../../client/test/support/closing.js"
import { faultServer, type Handler, initialized, json, rpc } from "../../client/test/support/faultServer.js"
import { noFibersLeft } from "../../client/test/support/fibers.js"
import { keepAliveHttpClient } from "../../client/test/support/httpClient.js"
import { connectionsTo } from "../../client/test/support/httpServers.js"

/** Answers initialize (with a session id), initialized and ping; hands tools/call to `onCall`. */
const mcp =
  (onCall: Handler, session = "s1"): Handler =>
  (request, response, index) => {
    const message = rpc(request)
    if (request.method === "DELETE") return response.writeHead(200).end()
    if (request.method === "GET") return response.writeHead(405).end()
    if (message.method === "initialize") return json(response, initialized(message.id), { "mcp-session-id": session })
    if (message.id === undefined) return response.writeHead(202).end()
    if (message.method === "tools/call") return onCall(request, response, index)
    if (message.method === "tools/list")
      return json(response, { jsonrpc: "2.0", id: message.id, result: { tools: [] } })
    return json(response, { jsonrpc: "2.0", id: message.id, result: {} })
  }

type Options = HttpTransport.HttpOptions

/** The two ways the transport sends its requests. */
const paths: ReadonlyArray<readonly [string, (options: Options) => Layer.Layer<Transport.Transport, unknown, never>]> =
  [
    [
      "HttpClient",
      (options) =>
        HttpTransport.layer({ ...options, transport: "http", auth: false }).pipe(Layer.provide(keepAliveHttpClient))
    ],
    [
      "node:http route",
      (options) =>
        NodeHttpTransport.layer({ ...options, transport: "http", auth: false }).pipe(Layer.provide(keepAliveHttpClient))
    ]
  ]

for (const [path, transportLayer] of paths) {
  const connect = (url: string, options: Partial<Options> = {}, client: McpClient.McpClientOptions = {}) =>
    Effect.map(
      Layer.build(
        // The stateful transport's faults: no era probe unless a test asks for one.
        McpClient.layer({ name: "fault", protocolVersion: "2025-11-25", ...client }).pipe(
          Layer.provide(transportLayer({ url, name: "fault", ...options }))
        )
      ),
      (context) => Context.get(context, McpClient.McpClient)
    )

  describe(`StreamableHttpTransport faults (${path})`, () => {
    it.live("sends the session id, the negotiated version and custom headers; DELETE on close", () =>
      Effect.gen(function* () {
        const { url, received, port } = yield* faultServer(
          mcp((request, response) => json(response, { jsonrpc: "2.0", id: rpc(request).id, result: { content: [] } }))
        )
        yield* Effect.scoped(
          Effect.gen(function* () {
            const client = yield* connect(url, { headers: { authorization: "Bearer t0k3n" } })
            yield* client.callTool("x")
          })
        )
        const [initialize, notification, call] = received
        expect(initialize?.headers["mcp-session-id"]).toBeUndefined()
        expect(initialize?.headers.accept).toBe("application/json, text/event-stream")
        expect(notification?.headers["mcp-session-id"]).toBe("s1")
        expect(notification?.headers["mcp-protocol-version"]).toBe("2025-11-25")
        expect(call?.headers.authorization).toBe("Bearer t0k3n")
        const deleted = received.find((request) => request.method === "DELETE")
        expect(deleted?.headers["mcp-session-id"]).toBe("s1")
        expect(connectionsTo(port)).toBe(0)
      }).pipe(Effect.scoped, noFibersLeft)
    )

    it.live("reuses keep-alive connections for successive requests", () =>
      Effect.gen(function* () {
        const ports = new Set<number>()
        const { url } = yield* faultServer((request, response, index) => {
          ports.add(request.remotePort)
          return mcp((call, res) => json(res, { jsonrpc: "2.0", id: rpc(call).id, result: { content: [] } }))(
            request,
            response,
            index
          )
        })
        const client = yield* connect(url)
        for (let call = 0; call < 20; call++) yield* client.callTool("x")
        // initialize, initialized, the GET attempt, tools/list and 20 calls over very few connections
        expect(ports.size).toBeLessThanOrEqual(3)
      }).pipe(Effect.scoped, noFibersLeft)
    )

    it.live("resumes a broken SSE response with Last-Event-ID after the server's retry interval", () =>
      Effect.gen(function* () {
        let callId: string | number | undefined
        const { url, received } = yield* faultServer((request, response, index) => {
          if (request.method === "GET" && request.headers["last-event-id"] === "e1") {
            response.writeHead(200, { "content-type": "text/event-stream" })
            response.end(
              `id: e2\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: callId, result: { content: [{ type: "text", text: "resumed" }] } })}\n\n`
            )
            return
          }
          return mcp((call, res) => {
            callId = rpc(call).id
            res.writeHead(200, { "content-type": "text/event-stream" })
            res.write(
              `retry: 1500\nid: e1\ndata: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "working" } })}\n\n`
            )
            setTimeout(() => res.socket?.destroy(), 20)
          })(request, response, index)
        })
        const client = yield* connect(url)
        const result = yield* client.callTool("slow")
        expect(result.content).toStrictEqual([{ type: "text", text: "resumed" }])
        const post = received.find((request) => rpc(request).method === "tools/call")
        const resume = received.find((request) => request.headers["last-event-id"] === "e1")
        expect(resume?.method).toBe("GET")
        expect((resume?.at ?? 0) - (post?.at ?? 0)).toBeGreaterThanOrEqual(1500)
      }).pipe(Effect.scoped, noFibersLeft)
    )

    const logLine = (n: number) =>
      JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: `step ${n}` } })

    it.live("a long call whose stream the server closes after every event, 8 times, still gets its answer", () =>
      Effect.gen(function* () {
        let callId: string | number | undefined
        const { url, received } = yield* faultServer((request, response, index) => {
          const resumeFrom = request.headers["last-event-id"]
          if (request.method === "GET" && typeof resumeFrom === "string") {
            const next = Number(resumeFrom.slice(1)) + 1
            response.writeHead(200, { "content-type": "text/event-stream" })
            return next <= 8
              ? response.end(`id: e${next}\ndata: ${logLine(next)}\n\n`)
              : response.end(
                  `id: e${next}\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: callId, result: { content: [{ type: "text", text: "done" }] } })}\n\n`
                )
          }
          return mcp((call, res) => {
            callId = rpc(call).id
            res.writeHead(200, { "content-type": "text/event-stream" })
            res.end(`retry: 10\nid: e0\ndata: ${logLine(0)}\n\n`)
          })(request, response, index)
        })
        const client = yield* connect(url)
        const result = yield* client.callTool("long", {}, { timeout: "10 seconds" })
        expect(result.content).toStrictEqual([{ type: "text", text: "done" }])
        expect(received.filter((request) => request.headers["last-event-id"] !== undefined)).toHaveLength(9)
      }).pipe(Effect.scoped, noFibersLeft)
    )

    it.live("a stream that is resumed 5 times in a row without an event fails the call, saying so", () =>
      Effect.gen(function* () {
        const { url, received } = yield* faultServer((request, response, index) => {
          if (request.method === "GET" && request.headers["last-event-id"] !== undefined) {
            response.writeHead(200, { "content-type": "text/event-stream" })
            return response.end("id: p\ndata:\n\n")
          }
          return mcp((_, res) => {
            res.writeHead(200, { "content-type": "text/event-stream" })
            res.end(`retry: 10\nid: e0\ndata: ${logLine(0)}\n\n`)
          })(request, response, index)
        })
        const client = yield* connect(url)
        const error = yield* Effect.flip(client.callTool("long", {}, { timeout: "10 seconds" }))
        expect(error._tag).toBe("TransportError")
        expect(error.message).toBe(
          "fault: transport failed: the server's event stream ended before the response arrived; resumed 5 times in a row without receiving an event"
        )
        expect(received.filter((request) => request.headers["last-event-id"] !== undefined)).toHaveLength(5)
      }).pipe(Effect.scoped, noFibersLeft)
    )

    it.live("the GET listener keeps resuming while the server closes it after every event", () =>
      Effect.gen(function* () {
        const { url } = yield* faultServer((request, response, index) => {
          if (request.method === "GET") {
            const resumeFrom = request.headers["last-event-id"]
            const next = typeof resumeFrom === "string" ? Number(resumeFrom.slice(1)) + 1 : 0
            const changed = JSON.stringify({ jsonrpc: "2.0", method: "notifications/tools/list_changed" })
            response.writeHead(200, { "content-type": "text/event-stream" })
            return response.end(`retry: 10\nid: g${next}\ndata: ${changed}\n\n`)
          }
          return mcp(() => undefined)(request, response, index)
        })
        const client = yield* connect(url)
        const changes = yield* client.listChanged.pipe(Stream.take(8), Stream.runCollect, Effect.timeout("5 seconds"))
        expect(changes.length).toBe(8)
      }).pipe(Effect.scoped, noFibersLeft)
    )

    it.live("the GET listener reopens a stream the server ends without event ids", () =>
      Effect.gen(function* () {
        const { url, received } = yield* faultServer((request, response, index) => {
          if (request.method === "GET") {
            const changed = JSON.stringify({ jsonrpc: "2.0", method: "notifications/tools/list_changed" })
            response.writeHead(200, { "content-type": "text/event-stream" })
            return response.end(`retry: 10\ndata: ${changed}\n\n`)
          }
          return mcp(() => undefined)(request, response, index)
        })
        const client = yield* connect(url)
        const changes = yield* client.listChanged.pipe(Stream.take(3), Stream.runCollect, Effect.timeout("5 seconds"))
        expect(changes.length).toBe(3)
        expect(received.filter((request) => request.method === "GET").length).toBeGreaterThanOrEqual(3)
      }).pipe(Effect.scoped, noFibersLeft)
    )

    it.live("the GET listener gives up after 5 resumptions in a row that deliver nothing", () =>
      Effect.gen(function* () {
        const { url, received } = yield* faultServer((request, response, index) => {
          if (request.method === "GET") {
            response.writeHead(200, { "content-type": "text/event-stream" })
            return response.end("retry: 10\nid: p\ndata:\n\n")
          }
          return mcp(() => undefined)(request, response, index)
        })
        yield* connect(url)
        const gets = () => received.filter((request) => request.method === "GET").length
        for (let i = 0; i < 200 && gets() < 6; i++) yield* Effect.sleep("10 millis")
        // Bounded wait: no seventh GET comes.
        yield* Effect.sleep("300 millis")
        expect(gets()).toBe(6)
      }).pipe(Effect.scoped, noFibersLeft)
    )

    it.live("a 404 for the session re-initializes once and retries the request, saying so", () =>
      Effect.gen(function* () {
        let sessions = 0
        const { url, received } = yield* faultServer((request, response) => {
          const message = rpc(request)
          if (request.method !== "POST") return response.writeHead(405).end()
          if (message.method === "initialize") {
            sessions++
            return json(response, initialized(message.id), { "mcp-session-id": `s${sessions}` })
          }
          if (message.id === undefined) return response.writeHead(202).end()
          if (request.headers["mcp-session-id"] === "s1") return response.writeHead(404).end()
          return json(response, { jsonrpc: "2.0", id: message.id, result: { content: [{ type: "text", text: "ok" }] } })
        })
        const client = yield* connect(url)
        const result = yield* client.request("tools/call", { name: "x" })
        expect(result.content).toStrictEqual([{ type: "text", text: "ok" }])
        expect(sessions).toBe(2)
        const calls = received.filter((request) => rpc(request).method === "tools/call")
        expect(calls.map((call) => call.headers["mcp-session-id"])).toStrictEqual(["s1", "s2"])
      }).pipe(Effect.scoped, noFibersLeft)
    )

    it.live("a stalled server is a timeout, and the request is cancelled", () =>
      Effect.gen(function* () {
        const { url, received } = yield* faultServer(mcp(() => undefined))
        const client = yield* connect(url)
        const error = yield* Effect.flip(client.callTool("stall", {}, { timeout: "300 millis" }))
        expect(error._tag).toBe("RequestTimeout")
        yield* client.ping()
        expect(received.some((request) => rpc(request).method === "notifications/cancelled")).toBe(true)
      }).pipe(Effect.scoped, noFibersLeft)
    )

    const failures: ReadonlyArray<readonly [string, Handler, RegExp]> = [
      [
        "garbage bytes",
        (_, response) => response.writeHead(200, { "content-type": "application/json" }).end("\u0000\u00ffnot json"),
        /not JSON/
      ],
      [
        "an HTML page",
        (_, response) =>
          response.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>Login</title>"),
        /unexpected content type text\/html with status 200: HTTP 200, an HTML page titled "Login": this does not look like an MCP endpoint/
      ],
      [
        "a server error",
        (_, response) => response.writeHead(500, { "content-type": "text/plain" }).end("database on fire"),
        /HTTP 500: database on fire/
      ],
      [
        "an over-size body",
        (request, response) =>
          json(response, {
            jsonrpc: "2.0",
            id: rpc(request).id,
            result: { content: [{ type: "text", text: "z".repeat(200_000) }] }
          }),
        /exceeded the maximum size of 65536 bytes/
      ],
      [
        "a truncated SSE event",
        (_, response) =>
          response.writeHead(200, { "content-type": "text/event-stream" }).end('data: {"jsonrpc":"2.0","id":'),
        /event stream ended before the response/
      ],
      [
        "an answer without the response",
        (_, response) =>
          json(response, { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: 1 } }),
        /did not contain the response/
      ]
    ]

    for (const [what, handler, expected] of failures) {
      it.live(`${what} fails the request with a typed error, not a hang`, () =>
        Effect.gen(function* () {
          const { url } = yield* faultServer(mcp(handler))
          const client = yield* connect(url, { maxMessageBytes: 65536 })
          const error = yield* Effect.flip(client.callTool("x", {}, { timeout: "10 seconds" }))
          expect(error._tag).toBe("TransportError")
          expect(error.message).toMatch(expected)
          yield* client.ping()
        }).pipe(Effect.scoped, noFibersLeft)
      )
    }

    it.live("a GET listener receives server-initiated messages (a 405 elsewhere means there are none)", () =>
      Effect.gen(function* () {
        const { url, received } = yield* faultServer((request, response, index) => {
          if (request.method === "GET") {
            response.writeHead(200, { "content-type": "text/event-stream" })
            const notification = JSON.stringify({ jsonrpc: "2.0", method: "notifications/tools/list_changed" })
            const timer = setInterval(() => response.write(`data: ${notification}\n\n`), 50)
            response.on("close", () => clearInterval(timer))
            return
          }
          return mcp(() => undefined)(request, response, index)
        })
        const client = yield* connect(url)
        const first = yield* client.listChanged.pipe(Stream.runHead, Effect.timeout("5 seconds"))
        expect(first).toStrictEqual(Option.some("tools"))
        const get = received.find((request) => request.method === "GET")
        expect(get?.headers.accept).toBe("text/event-stream")
        expect(get?.headers["mcp-session-id"]).toBe("s1")
      }).pipe(Effect.scoped, noFibersLeft)
    )

    it.live(
      "2026-07-28: after -32020 the tool is listed again and the call goes again with the new Mcp-Param header",
      () =>
        Effect.gen(function* () {
          let lists = 0
          const answer = (response: Parameters<Handler>[1], id: unknown, result: object) =>
            json(response, { jsonrpc: "2.0", id, result: { resultType: "complete", ...result } })
          const { url, received } = yield* faultServer((request, response) => {
            const message = rpc(request)
            if (message.method === "server/discover")
              return answer(response, message.id, {
                supportedVersions: ["2026-07-28"],
                capabilities: { tools: {} },
                cacheScope: "private",
                ttlMs: 0,
                _meta: { [McpSchema.MetaKey.serverInfo]: { name: "headers", version: "0" } }
              })
            if (message.method === "tools/list") {
              // The tool's argument moved from the Zone header to the Region header.
              const header = lists++ === 0 ? "Zone" : "Region"
              const inputSchema = { type: "object", properties: { region: { type: "string", "x-mcp-header": header } } }
              return answer(response, message.id, {
                tools: [{ name: "t", inputSchema }],
                cacheScope: "private",
                ttlMs: 0
              })
            }
            if (message.method === "tools/call" && request.headers["mcp-param-region"] === undefined)
              return response.writeHead(400, { "content-type": "application/json" }).end(
                JSON.stringify({
                  jsonrpc: "2.0",
                  id: message.id,
                  error: { code: -32020, message: "header mismatch" }
                })
              )
            return answer(response, message.id, { content: [{ type: "text", text: "ok" }] })
          })
          const client = yield* connect(url, {}, { protocolVersion: "2026-07-28" })
          expect((yield* client.tools).map((tool) => tool.name)).toStrictEqual(["t"])
          yield* client.callTool("t", { region: "eu" })
          const calls = received.filter((entry) => rpc(entry).method === "tools/call")
          expect(
            calls.map((entry) => [entry.headers["mcp-param-zone"], entry.headers["mcp-param-region"]])
          ).toStrictEqual([
            ["eu", undefined],
            [undefined, "eu"]
          ])
        }).pipe(Effect.scoped, noFibersLeft)
    )

    it.live("closing is not held up by a POST the server never answers (our response to its request)", () =>
      Effect.gen(function* () {
        const { url, received } = yield* faultServer((request, response, index) => {
          if (request.method === "GET") {
            response.writeHead(200, { "content-type": "text/event-stream" })
            response.write(`data: ${JSON.stringify({ jsonrpc: "2.0", id: "roots-1", method: "roots/list" })}\n\n`)
            return
          }
          // Our answer to roots/list: never answered.
          if (rpc(request).id === "roots-1") return
          return mcp(() => undefined)(request, response, index)
        })
        yield* closesWithAnswerUnanswered(
          McpClient.layer({ name: "fault" }).pipe(Layer.provide(transportLayer({ url, name: "fault" }))),
          received
        )
      }).pipe(Effect.scoped, noFibersLeft)
    )
  })
}
