/**
 * The Node HTTP transport (POSTs and event streams on `node:http`) against loopback servers:
 * what the generic transport's tests check, through the fast route: headers and DELETE, JSON
 * and SSE answers, the GET listener, the body-size limit, a body cut short, error statuses with
 * `Retry-After`, closing aborting the POSTs unanswered on a route that outlives the transport, no
 * connection or fiber left (closing with a POST unanswered, and the rest of the
 * transport's faults, run on this route in StreamableHttp.test.ts); and OAuth, where a
 * refusal hands the request to the authorizing `HttpClient`, with and without a `TokenStore`.
 */
import type { ServerResponse } from "node:http"
import * as HttpClient from "@effect/platform/HttpClient"
import { describe, expect, it } from "@effect/vitest"
import { Authorizer, HttpTransport, McpClient, TokenStore, Transport } from "@effect-mcp/client"
import type { RouteAnswer } from "@effect-mcp/client/Platform"
import * as NodeHttpTransport from "@effect-mcp/node/NodeHttpTransport"
import * as NodeTransports from "@effect-mcp/node/NodeTransports"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import {
  authorizationServer,
  bearerRequests,
  resourceServer,
  TokenRegistry
} from "../../client/test/support/authServers.js"
import { faultServer, type Handler, initialized, json, rpc } from "../../client/test/support/faultServer.js"
import { noFibersLeft } from "../../client/test/support/fibers.js"
import { keepAliveHttpClient } from "../../client/test/support/httpClient.js"
import { connectionsTo, freePort } from "../../client/test/support/httpServers.js"

/** Answers initialize (with a session id), notifications and ping; hands tools/call to `onCall`. */
const mcp =
  (onCall: Handler): Handler =>
  (request, response, index) => {
    const message = rpc(request)
    if (request.method === "DELETE") return response.writeHead(200).end()
    if (request.method === "GET") return response.writeHead(405).end()
    if (message.method === "initialize") return json(response, initialized(message.id), { "mcp-session-id": "s1" })
    if (message.id === undefined) return response.writeHead(202).end()
    if (message.method === "tools/call") return onCall(request, response, index)
    if (message.method === "tools/list")
      return json(response, { jsonrpc: "2.0", id: message.id, result: { tools: [] } })
    return json(response, { jsonrpc: "2.0", id: message.id, result: {} })
  }

const text = (request: Parameters<Handler>[0], value: string) => ({
  jsonrpc: "2.0",
  id: rpc(request).id,
  result: { content: [{ type: "text", text: value }] }
})

const connect = (url: string, options: Partial<HttpTransport.HttpOptions> = {}) =>
  Effect.map(
    Layer.build(
      McpClient.layer({ name: "node", protocolVersion: "2025-11-25" }).pipe(
        Layer.provide(NodeHttpTransport.layer({ url, name: "node", transport: "http", auth: false, ...options })),
        Layer.provide(keepAliveHttpClient)
      )
    ),
    (context) => Context.get(context, McpClient.McpClient)
  )

/** The tests' HTTP client, recording the method of each request that goes through it. */
const countingClient = (methods: Array<string>) =>
  Layer.effect(
    HttpClient.HttpClient,
    Effect.map(HttpClient.HttpClient, (client) =>
      HttpClient.tapRequest(client, (request) => Effect.sync(() => methods.push(request.method)))
    )
  ).pipe(Layer.provide(keepAliveHttpClient))

describe("NodeHttpTransport", () => {
  it.live("sends the session id, the negotiated version and custom headers over few connections; DELETE on close", () =>
    Effect.gen(function* () {
      const { url, received, port } = yield* faultServer(
        mcp((request, response) => json(response, text(request, "ok")))
      )
      yield* Effect.scoped(
        Effect.gen(function* () {
          const client = yield* connect(url, { headers: { authorization: "Bearer t0k3n" } })
          for (let call = 0; call < 20; call++) yield* client.callTool("x")
          yield* Effect.forEach(Array.from({ length: 20 }), () => client.callTool("x"), { concurrency: 20 })
        })
      )
      const [initialize, notification, , call] = received
      expect(initialize?.headers["mcp-session-id"]).toBeUndefined()
      expect(initialize?.headers.accept).toBe("application/json, text/event-stream")
      expect(initialize?.headers["content-type"]).toBe("application/json")
      expect(notification?.headers["mcp-session-id"]).toBe("s1")
      expect(notification?.headers["mcp-protocol-version"]).toBe("2025-11-25")
      expect(call?.headers.authorization).toBe("Bearer t0k3n")
      // initialize, initialized, the GET attempt, tools/list and 20 calls one after another
      expect(new Set(received.slice(0, 24).map((request) => request.remotePort)).size).toBeLessThanOrEqual(3)
      expect(received.find((request) => request.method === "DELETE")?.headers["mcp-session-id"]).toBe("s1")
      expect(connectionsTo(port)).toBe(0)
    }).pipe(Effect.scoped, noFibersLeft)
  )

  it.live("an SSE answer to a POST, and server-initiated messages on the GET listener", () =>
    Effect.gen(function* () {
      const { url } = yield* faultServer((request, response, index) => {
        if (request.method === "GET") {
          response.writeHead(200, { "content-type": "text/event-stream" })
          const notification = JSON.stringify({ jsonrpc: "2.0", method: "notifications/tools/list_changed" })
          const timer = setInterval(() => response.write(`data: ${notification}\r\n\r\n`), 50)
          response.on("close", () => clearInterval(timer))
          return
        }
        return mcp((call, res) => {
          res.writeHead(200, { "content-type": "text/event-stream" })
          res.write(": comment\n\nid: 1\ndata:\n\n")
          res.end(`event: message\ndata: ${JSON.stringify(text(call, "streamed"))}\n\n`)
        })(request, response, index)
      })
      const client = yield* connect(url)
      const result = yield* client.callTool("x")
      expect(result.content).toStrictEqual([{ type: "text", text: "streamed" }])
      const first = yield* client.listChanged.pipe(Stream.runHead, Effect.timeout("5 seconds"))
      expect(first).toStrictEqual(Option.some("tools"))
    }).pipe(Effect.scoped, noFibersLeft)
  )

  // The answers every HTTP path must refuse (garbage, HTML, over-size, a truncated event, a JSON
  // body without the response) are StreamableHttp.test.ts's fault suite, which runs on this route
  // too; what only the route's own body reader meets is here.
  it.live("a JSON body cut short fails the request with a typed error, and the next request works", () =>
    Effect.gen(function* () {
      const { url } = yield* faultServer(
        mcp((request, response: ServerResponse) => {
          const written = JSON.stringify(text(request, "cut")).slice(0, 40)
          response.writeHead(200, {
            "content-type": "application/json",
            "content-length": String(written.length + 4096)
          })
          response.write(written)
          setTimeout(() => response.socket?.destroy(), 20)
        })
      )
      const client = yield* connect(url, { maxMessageBytes: 65536 })
      const error = yield* Effect.flip(client.callTool("x", {}, { timeout: "10 seconds" }))
      expect(error._tag).toBe("TransportError")
      expect(error.message).toMatch(
        /^node: transport failed: the connection closed before the response was complete \(40 bytes of the body received; ECONNRESET: aborted\)$/
      )
      yield* client.ping()
    }).pipe(Effect.scoped, noFibersLeft)
  )

  it.live("a kept-alive connection the server resets before answering: the request is sent again on a new one", () =>
    Effect.gen(function* () {
      let calls = 0
      const { url } = yield* faultServer(
        mcp((request, response: ServerResponse) => {
          calls += 1
          // The first call, on a connection that served requests before: reset, nothing answered
          // (as when the server closes an idle connection just as the request comes).
          if (calls === 1) return response.socket?.resetAndDestroy()
          json(response, text(request, "again"))
        })
      )
      const client = yield* connect(url)
      const result = yield* client.callTool("x", {}, { timeout: "10 seconds" })
      expect([result.content, calls]).toStrictEqual([[{ type: "text", text: "again" }], 2])
    }).pipe(Effect.scoped, noFibersLeft)
  )

  it.live("a 503 says its status and the server's Retry-After", () =>
    Effect.gen(function* () {
      const { url } = yield* faultServer(
        mcp((_, response) => response.writeHead(503, { "content-type": "text/plain", "retry-after": "7" }).end("busy"))
      )
      const client = yield* connect(url)
      const error = yield* Effect.flip(client.callTool("x"))
      expect(error._tag === "TransportError" && error.status).toBe(503)
      expect(error._tag === "TransportError" && error.retryAfter).toBe(7000)
      expect(error.message).toMatch(/HTTP 503: busy/)
    }).pipe(Effect.scoped, noFibersLeft)
  )

  it.live("a closed port says so in plain words and ECONNREFUSED once, after the request it refused", () =>
    Effect.gen(function* () {
      const port = yield* Effect.promise(freePort)
      const url = `http://127.0.0.1:${port}/mcp`
      const error = yield* Effect.flip(connect(url))
      expect(error.message).toBe(
        `node: transport failed: POST ${url} failed: nothing is listening at 127.0.0.1:${port}: is the server running, on that port? (ECONNREFUSED)`
      )
    }).pipe(Effect.scoped, noFibersLeft)
  )

  it.live("a 403 that asks for no scope is the request's own answer: sent once, and the route stays", () =>
    Effect.gen(function* () {
      const viaClient: Array<string> = []
      const { url, received } = yield* faultServer(
        mcp((request, response) =>
          rpc(request).params?.name === "forbidden"
            ? response.writeHead(403, { "content-type": "text/plain" }).end("policy says no")
            : json(response, text(request, "ok"))
        )
      )
      const client = yield* Effect.map(
        Layer.build(
          McpClient.layer({ name: "node", protocolVersion: "2025-11-25" }).pipe(
            Layer.provide(NodeHttpTransport.layer({ url, name: "node", transport: "http" })),
            Layer.provide(countingClient(viaClient))
          )
        ),
        (context) => Context.get(context, McpClient.McpClient)
      )
      const error = yield* Effect.flip(client.callTool("forbidden"))
      expect(error._tag === "TransportError" && error.status).toBe(403)
      expect(received.filter((entry) => rpc(entry).params?.name === "forbidden")).toHaveLength(1)
      yield* client.callTool("allowed")
      // Nothing went through the authorizing client: the 403 did not hand the transport to OAuth.
      expect(viaClient.filter((method) => method === "POST")).toStrictEqual([])
    }).pipe(Effect.scoped, noFibersLeft)
  )

  it.live(
    "the client's HTTP transports stay generic in a Node program: every request goes through their HttpClient",
    () =>
      Effect.gen(function* () {
        const { url } = yield* faultServer(mcp((request, response) => json(response, text(request, "ok"))))
        const generic = [
          HttpTransport.layer({ url, name: "direct", transport: "http", auth: false }),
          HttpTransport.layer({ url, name: "direct" })
        ]
        for (const transport of generic) {
          const viaClient: Array<string> = []
          yield* Effect.scoped(
            Effect.gen(function* () {
              const context = yield* Layer.build(
                McpClient.layer({ name: "direct", protocolVersion: "2025-11-25" }).pipe(
                  Layer.provide(transport),
                  Layer.provide(countingClient(viaClient))
                )
              )
              yield* Context.get(context, McpClient.McpClient).callTool("x")
            }).pipe(Effect.provide(NodeTransports.layer.pipe(Layer.provide(keepAliveHttpClient))))
          )
          // Its client (which may authorize, sign or proxy) saw every request.
          expect(viaClient.filter((method) => method === "POST").length).toBeGreaterThanOrEqual(4)
        }
      }).pipe(Effect.scoped, noFibersLeft)
  )

  it.live("an answer whose connection broke before its body was read fails the read, not hangs it", () =>
    Effect.gen(function* () {
      const serverClosed = yield* Deferred.make<void>()
      const { url } = yield* faultServer((_, response) => {
        response.writeHead(200, { "content-type": "text/event-stream" })
        response.socket?.on("close", () => Deferred.unsafeDone(serverClosed, Exit.void))
        // Headers and part of the body reach the client, then the connection is reset.
        response.write("data: partial", () => response.socket?.destroy())
      })
      const route = yield* NodeHttpTransport.makeRoute()
      const answer = yield* Effect.async<RouteAnswer>((resume) => {
        route.request("POST", url, { accept: "text/event-stream" }, "{}", {
          onAnswer: (answer) => resume(Effect.succeed(answer)),
          onError: (cause) => resume(Effect.die(cause)),
          onRefused: () => resume(Effect.dieMessage("refused"))
        })
      })
      // The reset reaches the client's socket while nobody reads the body yet.
      yield* Deferred.await(serverClosed)
      yield* Effect.sleep("100 millis")
      const outcome = yield* answer
        .forEachChunk(() => true)
        .pipe(Effect.flip, Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => "hung" }))
      expect(outcome).toMatch(/the connection closed before the response was complete/)
    }).pipe(Effect.scoped, noFibersLeft)
  )

  it.live("closing the transport aborts the POSTs still unanswered, on a route that outlives it", () =>
    Effect.gen(function* () {
      // Two calls the server holds, the second after its headers, in the middle of its JSON body;
      // each one's connection closing before it answered is an abort.
      const held: Array<ServerResponse> = []
      const aborted = yield* Deferred.make<void>()
      let closedUnanswered = 0
      const { url } = yield* faultServer(
        mcp((_, response: ServerResponse) => {
          held.push(response)
          if (held.length === 2) {
            response.writeHead(200, { "content-type": "application/json" })
            response.write("{")
          }
          response.on("close", () => {
            if (!response.writableEnded && ++closedUnanswered === 2) Deferred.unsafeDone(aborted, Exit.void)
          })
        })
      )
      // The route (its keep-alive agents) outlives the transport: only the transport's close ends those POSTs.
      const route = yield* NodeHttpTransport.makeRoute()
      yield* Effect.scoped(
        Effect.gen(function* () {
          const transport = yield* HttpTransport.makeWithRoute(
            { url, name: "node", transport: "http", auth: false },
            route
          )
          const context = yield* Layer.build(
            McpClient.layer({ name: "node", protocolVersion: "2025-11-25" }).pipe(
              Layer.provide(Layer.succeed(Transport.Transport, transport))
            )
          )
          const client = Context.get(context, McpClient.McpClient)
          yield* Effect.forkScoped(Effect.all([client.callTool("x"), client.callTool("y")], { concurrency: 2 }))
          for (let i = 0; i < 200 && held.length < 2; i++) yield* Effect.sleep("10 millis")
          expect(held.length).toBe(2)
        })
      ).pipe(Effect.provide(keepAliveHttpClient))
      yield* Deferred.await(aborted).pipe(
        Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error("the held POSTs were not aborted") })
      )
      expect(closedUnanswered).toBe(2)
    }).pipe(Effect.scoped, noFibersLeft)
  )

  for (const store of ["a TokenStore", "no TokenStore"] as const) {
    it.scopedLive(
      `OAuth with ${store}: a refusal goes to the flow (one bare request), and the token only to the MCP server`,
      () =>
        Effect.gen(function* () {
          const registry = new TokenRegistry()
          const authorization = yield* authorizationServer(registry, {})
          const resource = yield* resourceServer(registry, { authorizationServer: () => authorization.origin })
          const url = `${resource.origin}/mcp`
          yield* Effect.scoped(
            Effect.gen(function* () {
              const context = yield* Layer.build(
                McpClient.layer({ name: "protected" }).pipe(
                  Layer.provide(NodeHttpTransport.layer({ url, name: "protected", transport: "http", listen: false })),
                  Layer.provide(
                    store === "a TokenStore"
                      ? Layer.merge(Authorizer.followRedirect(), TokenStore.layerMemory)
                      : Authorizer.followRedirect()
                  ),
                  Layer.provide(keepAliveHttpClient)
                )
              )
              const client = Context.get(context, McpClient.McpClient)
              expect((yield* client.tools).map((tool) => tool.name)).toStrictEqual(["secret"])
              yield* client.callTool("secret")
            })
          )
          expect(authorization.seen.map((entry) => `${entry.method} ${entry.path}`)).toContain("POST /token")
          expect(bearerRequests(authorization.seen)).toStrictEqual([])
          const withToken = bearerRequests(resource.seen)
          expect(withToken.every((entry) => entry.path === "/mcp")).toBe(true)
          expect(withToken.length).toBeGreaterThanOrEqual(3)
          // The route's refusal starts the flow: the request is not sent bare a second time first.
          const bare = resource.seen.filter(
            (entry) => entry.path === "/mcp" && entry.headers.authorization === undefined
          )
          expect(bare.map((entry) => entry.method)).toStrictEqual(["POST"])
        })
    )
  }
})
