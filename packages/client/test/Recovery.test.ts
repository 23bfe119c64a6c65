/** Recovery from an expired HTTP session: the session is re-established with what the new handshake says. */

import type { ServerResponse } from "node:http"
import { describe, expect, it } from "@effect/vitest"
import { McpClient } from "@effect-mcp/client"
import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Stream from "effect/Stream"
import * as StreamableHttpTransport from "../src/internal/transport/streamableHttpTransport.js"
import { faultServer, initialized, json, rpc } from "./support/faultServer.js"
import { noFibersLeft } from "./support/fibers.js"
import { keepAliveHttpClient } from "./support/httpClient.js"

/** A server that forgets its first session after `forgetAfter` requests and then speaks as another build of itself. */
const forgetfulServer = () => {
  let sessions = 0
  let forgotten = false
  return faultServer((request, response) => {
    const message = rpc(request)
    if (request.method === "DELETE") return response.writeHead(200).end()
    if (request.method === "GET") return response.writeHead(405).end()
    if (message.method === "initialize") {
      sessions++
      const first = sessions === 1
      return json(
        response,
        {
          jsonrpc: "2.0",
          id: message.id,
          result: first
            ? {
                protocolVersion: "2025-11-25",
                capabilities: { tools: {}, resources: { subscribe: true } },
                serverInfo: { name: "server", version: "1" }
              }
            : {
                protocolVersion: "2025-06-18",
                capabilities: { tools: {}, resources: { subscribe: true }, prompts: {} },
                serverInfo: { name: "server", version: "2" },
                instructions: "new instructions"
              }
        },
        { "mcp-session-id": `s${sessions}` }
      )
    }
    if (message.id === undefined) return response.writeHead(202).end()
    if (request.headers["mcp-session-id"] === "s1" && forgotten) return response.writeHead(404).end()
    if (message.method === "tools/call") forgotten = true
    if (message.method === "tools/list")
      return json(response, { jsonrpc: "2.0", id: message.id, result: { tools: [] } })
    if (message.method === "tools/call") {
      return json(response, { jsonrpc: "2.0", id: message.id, result: { content: [] } })
    }
    return json(response, { jsonrpc: "2.0", id: message.id, result: {} })
  })
}

/**
 * A server that "restarts" when the test says so (as the official SDK's servers do): the old
 * session id is then refused with `refuse`; a new `initialize` opens session s2.
 */
const restartingServer = (refuse: (response: ServerResponse) => void) => {
  let sessions = 0
  let restarted = false
  const restart = () => {
    restarted = true
  }
  const server = faultServer((request, response) => {
    const message = rpc(request)
    if (request.method === "DELETE") return response.writeHead(200).end()
    if (request.method === "GET") return response.writeHead(405).end()
    if (message.method === "initialize") {
      sessions++
      return json(
        response,
        {
          jsonrpc: "2.0",
          id: message.id,
          result: {
            protocolVersion: "2025-11-25",
            capabilities: { tools: {} },
            serverInfo: { name: "server", version: String(sessions) }
          }
        },
        { "mcp-session-id": `s${sessions}` }
      )
    }
    if (request.headers["mcp-session-id"] === "s1" && restarted) return refuse(response)
    // As the official SDKs' servers do: anything but initialize needs a session id.
    if (request.headers["mcp-session-id"] === undefined)
      return refusal(400, -32000, "Bad Request: Mcp-Session-Id header is required")(response)
    if (message.id === undefined) return response.writeHead(202).end()
    return json(response, { jsonrpc: "2.0", id: message.id, result: {} })
  })
  return Effect.map(server, (running) => ({ ...running, restart }))
}

/** A JSON-RPC error body with `status`. */
const refusal = (status: number, code: number, message: string) => (response: ServerResponse) => {
  response.writeHead(status, { "content-type": "application/json" })
  response.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }))
}

const connectTo = (url: string) =>
  Effect.map(
    Layer.build(
      McpClient.layer({ name: "restarting", protocolVersion: "2025-11-25" }).pipe(
        Layer.provide(StreamableHttpTransport.layer({ url, name: "restarting" })),
        Layer.provide(keepAliveHttpClient)
      )
    ),
    (context) => Context.get(context, McpClient.McpClient)
  )

describe("Recovery after the server restarted (HTTP 400 for a session it does not know)", () => {
  for (const [name, refuse] of [
    ["400 with -32000 'Server not initialized'", refusal(400, -32000, "Bad Request: Server not initialized")],
    [
      "400 with -32000 'No valid session ID provided'",
      refusal(400, -32000, "Bad Request: No valid session ID provided")
    ],
    ["404 with no body", (response: ServerResponse) => response.writeHead(404).end()]
  ] as const) {
    it.live(`${name}: the session is initialized again and the request retried`, () =>
      Effect.gen(function* () {
        const { url, received, restart } = yield* restartingServer(refuse)
        const client = yield* connectTo(url)
        yield* client.ping()
        expect(client.serverInfo.version).toBe("1")
        restart()
        yield* client.ping()
        expect(client.serverInfo.version).toBe("2")
        const pings = received.filter((request) => rpc(request).method === "ping")
        expect(pings.map((request) => request.headers["mcp-session-id"])).toStrictEqual(["s1", "s1", "s2"])
        // The new session's initialize carried no session id.
        const initializes = received.filter((request) => rpc(request).method === "initialize")
        expect(initializes.map((request) => request.headers["mcp-session-id"])).toStrictEqual([undefined, undefined])
        expect((yield* client.state)._tag).toBe("Ready")
      }).pipe(Effect.scoped, noFibersLeft)
    )
  }

  it.live(
    "a notification that meets the lost session first: the next request still recovers (the old id is kept until replaced)",
    () => {
      const logged: Array<string> = []
      const collect = Logger.make(({ message }) => {
        logged.push(Array.isArray(message) ? message.join(" ") : String(message))
      })
      const refusedOnce = () => logged.some((line) => line.includes("no longer knows the session"))
      return Effect.gen(function* () {
        const { url, received, restart } = yield* restartingServer(
          refusal(400, -32000, "Bad Request: No valid session ID provided")
        )
        const client = yield* connectTo(url)
        yield* client.ping()
        restart()
        yield* client.notify("notifications/progress", { progressToken: "t", progress: 1 })
        // The notification's refusal is handled apart from the caller: wait (bounded) until it was.
        for (let waited = 0; !refusedOnce() && waited < 400; waited++) yield* Effect.sleep("25 millis")
        expect(refusedOnce()).toBe(true)
        yield* client.ping()
        expect(client.serverInfo.version).toBe("2")
        const sent = received.filter((request) =>
          ["ping", "notifications/progress"].includes(String(rpc(request).method))
        )
        expect(sent.map((request) => [rpc(request).method, request.headers["mcp-session-id"]])).toStrictEqual([
          ["ping", "s1"],
          ["notifications/progress", "s1"],
          ["ping", "s1"],
          ["ping", "s2"]
        ])
        expect((yield* client.state)._tag).toBe("Ready")
      }).pipe(Effect.scoped, noFibersLeft, Effect.provide(Logger.add(collect)))
    }
  )

  it.live(
    "a proxy's plain-text 400 to a request is that request's failure: the session is kept, nothing is sent twice",
    () =>
      Effect.gen(function* () {
        const { url, received } = yield* faultServer((request, response) => {
          const message = rpc(request)
          if (request.method === "DELETE") return response.writeHead(200).end()
          if (request.method === "GET") return response.writeHead(405).end()
          if (message.method === "initialize")
            return json(response, initialized(message.id), { "mcp-session-id": "s1" })
          if (message.id === undefined) return response.writeHead(202).end()
          if (message.method === "ping") return response.writeHead(400).end("Bad Request")
          return json(response, { jsonrpc: "2.0", id: message.id, result: {} })
        })
        const client = yield* connectTo(url)
        const error = yield* Effect.flip(client.ping())
        expect(error).toMatchObject({ _tag: "TransportError", status: 400 })
        expect(received.filter((request) => rpc(request).method === "ping")).toHaveLength(1)
        expect(received.filter((request) => rpc(request).method === "initialize")).toHaveLength(1)
        expect((yield* client.state)._tag).toBe("Ready")
      }).pipe(Effect.scoped, noFibersLeft)
  )

  it.live(
    "a 400 that is the request's JSON-RPC answer (an error with its id) is that error, as the server said it",
    () =>
      Effect.gen(function* () {
        const { url, received } = yield* faultServer((request, response) => {
          const message = rpc(request)
          if (request.method === "DELETE") return response.writeHead(200).end()
          if (request.method === "GET") return response.writeHead(405).end()
          if (message.method === "initialize")
            return json(response, initialized(message.id), { "mcp-session-id": "s1" })
          if (message.id === undefined) return response.writeHead(202).end()
          if (message.method === "ping") {
            response.writeHead(400, { "content-type": "application/json" })
            return response.end(
              JSON.stringify({
                jsonrpc: "2.0",
                id: message.id,
                error: { code: -32602, message: "Invalid params: unexpected field" }
              })
            )
          }
          return json(response, { jsonrpc: "2.0", id: message.id, result: {} })
        })
        const client = yield* connectTo(url)
        const error = yield* Effect.flip(client.ping())
        expect(error).toMatchObject({
          _tag: "RpcError",
          code: -32602,
          errorMessage: "Invalid params: unexpected field"
        })
        expect(received.filter((request) => rpc(request).method === "initialize")).toHaveLength(1)
        expect((yield* client.state)._tag).toBe("Ready")
      }).pipe(Effect.scoped, noFibersLeft)
  )

  it.live("a 400 whose JSON-RPC error is about the request itself is that request's failure: no new session", () =>
    Effect.gen(function* () {
      const { url, received } = yield* faultServer((request, response) => {
        const message = rpc(request)
        if (request.method === "DELETE") return response.writeHead(200).end()
        if (request.method === "GET") return response.writeHead(405).end()
        if (message.method === "initialize") return json(response, initialized(message.id), { "mcp-session-id": "s1" })
        if (message.id === undefined) return response.writeHead(202).end()
        if (message.method === "ping") return refusal(400, -32602, "Invalid params: unexpected field")(response)
        return json(response, { jsonrpc: "2.0", id: message.id, result: {} })
      })
      const client = yield* connectTo(url)
      const error = yield* Effect.flip(client.ping())
      expect(error).toMatchObject({ _tag: "TransportError", status: 400 })
      expect(error.message).toContain("Invalid params: unexpected field")
      expect(received.filter((request) => rpc(request).method === "initialize")).toHaveLength(1)
      expect((yield* client.state)._tag).toBe("Ready")
    }).pipe(Effect.scoped, noFibersLeft)
  )

  it.live("a restarted server that refuses the new session too: the request fails once, the session is Failed", () =>
    Effect.gen(function* () {
      let sessions = 0
      const { url, received } = yield* faultServer((request, response) => {
        const message = rpc(request)
        if (request.method === "DELETE") return response.writeHead(200).end()
        if (request.method === "GET") return response.writeHead(405).end()
        if (message.method === "initialize") {
          sessions++
          if (sessions > 1) return response.writeHead(503).end()
          return json(response, initialized(message.id), { "mcp-session-id": "s1" })
        }
        if (message.id === undefined) return response.writeHead(202).end()
        return refusal(400, -32000, "Bad Request: No valid session ID provided")(response)
      })
      const client = yield* connectTo(url)
      const error = yield* Effect.flip(client.ping())
      expect(error).toMatchObject({ _tag: "TransportError", status: 503 })
      expect((yield* client.state)._tag).toBe("Failed")
      expect(received.filter((request) => rpc(request).method === "ping")).toHaveLength(1)
    }).pipe(Effect.scoped, noFibersLeft)
  )

  it.live(
    "concurrent requests that meet the lost session initialize it again once, those refused after it was established again too",
    () =>
      Effect.gen(function* () {
        // After the restart the old session's pings are refused: three at once, the new session's
        // initialize answered only once the three were (so that all three meet the re-initialization
        // in progress), and a fourth refused only once the new session is in use (so that it meets
        // the expired session after it was established again).
        let sessions = 0
        let restarted = false
        let refusedAtOnce = 0
        const heldInitialize: Array<() => void> = []
        const heldRefusal: Array<() => void> = []
        const refuse = (response: ServerResponse) => () => response.writeHead(404).end()
        const { url, received } = yield* faultServer((request, response) => {
          const message = rpc(request)
          if (request.method === "DELETE") return response.writeHead(200).end()
          if (request.method === "GET") return response.writeHead(405).end()
          if (message.method === "initialize") {
            sessions++
            const answer = () =>
              json(
                response,
                {
                  jsonrpc: "2.0",
                  id: message.id,
                  result: {
                    protocolVersion: "2025-11-25",
                    capabilities: {},
                    serverInfo: { name: "server", version: String(sessions) }
                  }
                },
                { "mcp-session-id": `s${sessions}` }
              )
            if (!restarted || refusedAtOnce >= 3) return answer()
            return void heldInitialize.push(answer)
          }
          if (message.id === undefined) return response.writeHead(202).end()
          if (request.headers["mcp-session-id"] === "s1" && restarted) {
            if (refusedAtOnce < 3) {
              refusedAtOnce++
              refuse(response)()
              // The client reads the refusals before its new session is answered.
              if (refusedAtOnce === 3)
                setTimeout(() => {
                  for (const answer of heldInitialize.splice(0)) answer()
                }, 100)
              return
            }
            return void heldRefusal.push(refuse(response))
          }
          if (request.headers["mcp-session-id"] !== "s1") for (const answer of heldRefusal.splice(0)) answer()
          return json(response, { jsonrpc: "2.0", id: message.id, result: {} })
        })
        const client = yield* connectTo(url)
        yield* client.ping()
        restarted = true
        yield* Effect.all([client.ping(), client.ping(), client.ping(), client.ping()], { concurrency: "unbounded" })
        expect(client.serverInfo.version).toBe("2")
        const initializes = received.filter((request) => rpc(request).method === "initialize")
        expect(initializes).toHaveLength(2)
        const pings = received.filter((request) => rpc(request).method === "ping")
        expect(pings.map((request) => request.headers["mcp-session-id"]).sort()).toStrictEqual([
          "s1",
          "s1",
          "s1",
          "s1",
          "s1",
          "s2",
          "s2",
          "s2",
          "s2"
        ])
        expect((yield* client.state)._tag).toBe("Ready")
      }).pipe(Effect.scoped, noFibersLeft)
  )
})

describe("Recovery after the server forgot the session", () => {
  it.live("refreshes server info, capabilities and version, restores subscriptions, and says Ready again", () =>
    Effect.gen(function* () {
      const { url, received } = yield* forgetfulServer()
      const context = yield* Layer.build(
        McpClient.layer({ name: "forgetful" }).pipe(
          Layer.provide(StreamableHttpTransport.layer({ url, name: "forgetful" })),
          Layer.provide(keepAliveHttpClient)
        )
      )
      const client = Context.get(context, McpClient.McpClient)
      const readies = yield* client.stateChanges.pipe(
        Stream.filter((state) => state._tag === "Ready"),
        Stream.take(2),
        Stream.runCollect,
        Effect.fork
      )
      yield* client.subscribe("file:///a")
      yield* client.subscribe("file:///b")
      yield* client.unsubscribe("file:///b")
      expect(client.serverInfo.version).toBe("1")
      expect(client.protocolVersion).toBe("2025-11-25")
      yield* client.callTool("forget", {}, { validateInput: false })
      // The session is gone: this request meets a 404, the client initializes again and retries.
      yield* client.ping()
      expect(client.serverInfo.version).toBe("2")
      expect(client.protocolVersion).toBe("2025-06-18")
      expect(client.serverCapabilities.prompts).toStrictEqual({})
      expect(client.instructions._tag).toBe("Some")
      const restored = received.filter(
        (request) => rpc(request).method === "resources/subscribe" && request.headers["mcp-session-id"] === "s2"
      )
      expect(restored.map((request) => rpc(request).params?.uri)).toStrictEqual(["file:///a"])
      expect(restored[0]?.headers["mcp-protocol-version"]).toBe("2025-06-18")
      const states = Chunk.toReadonlyArray(yield* Fiber.join(readies))
      expect(states.map((state) => (state._tag === "Ready" ? state.serverInfo.version : ""))).toStrictEqual(["1", "2"])
    }).pipe(Effect.scoped, noFibersLeft)
  )

  it.live(
    "a request given up while the session is re-established does not stop it: every subscription is restored",
    () =>
      Effect.gen(function* () {
        let sessions = 0
        let forgotten = false
        // The new session's first restored subscription is answered only when the test says so;
        // `secondRestored` completes when the other one arrives.
        let held: { readonly response: ServerResponse; readonly id: string | number | undefined } | undefined
        const heldArrived = yield* Deferred.make<void>()
        const secondRestored = yield* Deferred.make<void>()
        const { url, received } = yield* faultServer((request, response) => {
          const message = rpc(request)
          if (request.method === "DELETE") return response.writeHead(200).end()
          if (request.method === "GET") return response.writeHead(405).end()
          if (message.method === "initialize") {
            sessions++
            return json(
              response,
              {
                jsonrpc: "2.0",
                id: message.id,
                result: {
                  protocolVersion: "2025-11-25",
                  capabilities: { tools: {}, resources: { subscribe: true } },
                  serverInfo: { name: "server", version: "1" }
                }
              },
              { "mcp-session-id": `s${sessions}` }
            )
          }
          if (message.id === undefined) return response.writeHead(202).end()
          if (request.headers["mcp-session-id"] === "s1" && forgotten) return response.writeHead(404).end()
          if (message.method === "tools/call") forgotten = true
          if (message.method === "tools/list") {
            return json(response, {
              jsonrpc: "2.0",
              id: message.id,
              result: { tools: [{ name: "forget", inputSchema: { type: "object" } }] }
            })
          }
          if (message.method === "resources/subscribe" && request.headers["mcp-session-id"] === "s2") {
            if (held === undefined) {
              held = { response, id: message.id }
              Deferred.unsafeDone(heldArrived, Exit.void)
              return
            }
            Deferred.unsafeDone(secondRestored, Exit.void)
          }
          return json(response, {
            jsonrpc: "2.0",
            id: message.id,
            result: message.method === "tools/call" ? { content: [] } : {}
          })
        })
        const context = yield* Layer.build(
          McpClient.layer({ name: "forgetful", protocolVersion: "2025-11-25" }).pipe(
            Layer.provide(StreamableHttpTransport.layer({ url, name: "forgetful" })),
            Layer.provide(keepAliveHttpClient)
          )
        )
        const client = Context.get(context, McpClient.McpClient)
        // Listed first: the call's output check then needs no listing after the server forgets.
        yield* client.tools
        yield* client.subscribe("file:///a")
        yield* client.subscribe("file:///b")
        yield* client.callTool("forget", {}, { validateInput: false })
        // This ping meets the 404 and starts the re-initialization; it is given up while the
        // subscriptions are being restored.
        const ping = yield* Effect.fork(client.ping())
        yield* Deferred.await(heldArrived)
        yield* Fiber.interrupt(ping)
        if (held !== undefined) json(held.response, { jsonrpc: "2.0", id: held.id, result: {} })
        yield* Deferred.await(secondRestored).pipe(Effect.timeout("10 seconds"))
        const restored = received.filter(
          (request) => rpc(request).method === "resources/subscribe" && request.headers["mcp-session-id"] === "s2"
        )
        expect(restored.map((request) => rpc(request).params?.uri).sort()).toStrictEqual(["file:///a", "file:///b"])
        expect(client.serverInfo.version).toBe("1")
        yield* client.ping()
      }).pipe(Effect.scoped, noFibersLeft)
  )

  it.live("a Streamable HTTP client refused before any session is told the server may be a legacy one", () =>
    Effect.gen(function* () {
      const { url } = yield* faultServer((_, response) => response.writeHead(405).end())
      const error = yield* Effect.flip(
        Layer.build(
          McpClient.layer({ name: "old", protocolVersion: "2025-11-25" }).pipe(
            Layer.provide(StreamableHttpTransport.layer({ url, name: "old" })),
            Layer.provide(keepAliveHttpClient)
          )
        )
      )
      expect(error).toMatchObject({ _tag: "TransportError", status: 405 })
      expect(error.message).toBe(
        "old: transport failed: HTTP 405: the server does not speak Streamable HTTP (a legacy HTTP+SSE server? try the auto or sse transport)"
      )
    }).pipe(Effect.scoped, noFibersLeft)
  )

  it.live("2026-07-28: a request whose response stream broke is sent again under a new id", () =>
    Effect.gen(function* () {
      let calls = 0
      const { url, received } = yield* faultServer((request, response) => {
        const message = rpc(request)
        const complete = { resultType: "complete", ttlMs: 0, cacheScope: "private" }
        if (message.method === "server/discover") {
          return json(response, {
            jsonrpc: "2.0",
            id: message.id,
            result: { ...complete, supportedVersions: ["2026-07-28"], capabilities: { tools: {} } }
          })
        }
        if (message.method === "tools/call") {
          calls++
          if (calls === 1) {
            // An event, then the stream closes without the answer.
            response.writeHead(200, { "content-type": "text/event-stream" })
            return response.end(
              `data: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 0, progress: 1 } })}\n\n`
            )
          }
          return json(response, { jsonrpc: "2.0", id: message.id, result: { ...complete, content: [] } })
        }
        return json(response, { jsonrpc: "2.0", id: message.id, result: { ...complete, tools: [] } })
      })
      const context = yield* Layer.build(
        McpClient.layer({ name: "modern" }).pipe(
          Layer.provide(StreamableHttpTransport.layer({ url, name: "modern" })),
          Layer.provide(keepAliveHttpClient)
        )
      )
      const client = Context.get(context, McpClient.McpClient)
      expect(client.era).toBe("stateless")
      const result = yield* client.callTool("flaky", {}, { validateInput: false })
      expect(result.content).toStrictEqual([])
      const ids = received.filter((request) => rpc(request).method === "tools/call").map((request) => rpc(request).id)
      expect(ids).toHaveLength(2)
      expect(new Set(ids).size).toBe(2)
    }).pipe(Effect.scoped, noFibersLeft)
  )

  it.live("a session that cannot be established again fails, rather than staying Ready without a session", () =>
    Effect.gen(function* () {
      let sessions = 0
      const { url } = yield* faultServer((request, response) => {
        const message = rpc(request)
        if (request.method === "DELETE") return response.writeHead(200).end()
        if (request.method === "GET") return response.writeHead(405).end()
        if (message.method === "initialize") {
          sessions++
          if (sessions > 1) return response.writeHead(503).end()
          return json(
            response,
            {
              jsonrpc: "2.0",
              id: message.id,
              result: { protocolVersion: "2025-11-25", capabilities: {}, serverInfo: { name: "s", version: "1" } }
            },
            { "mcp-session-id": "s1" }
          )
        }
        if (message.id === undefined) return response.writeHead(202).end()
        if (message.method === "ping" && sessions === 1 && request.headers["mcp-session-id"] === "s1") {
          return response.writeHead(404).end()
        }
        return json(response, { jsonrpc: "2.0", id: message.id, result: {} })
      })
      const context = yield* Layer.build(
        McpClient.layer({ name: "gone", protocolVersion: "2025-11-25" }).pipe(
          Layer.provide(StreamableHttpTransport.layer({ url, name: "gone" })),
          Layer.provide(keepAliveHttpClient)
        )
      )
      const client = Context.get(context, McpClient.McpClient)
      const error = yield* Effect.flip(client.ping())
      expect(error).toMatchObject({ _tag: "TransportError", status: 503 })
      expect((yield* client.state)._tag).toBe("Failed")
      expect((yield* Effect.flip(client.ping()))._tag).toBe("SessionUnavailable")
    }).pipe(Effect.scoped, noFibersLeft)
  )
})

describe("a modern-only HTTP server listing only revisions this client does not speak", () => {
  it.live("the user is told both sides' revisions, not the server's raw 400 to initialize", () =>
    Effect.gen(function* () {
      const { url, received } = yield* faultServer((request, response) => {
        const message = rpc(request)
        if (request.method !== "POST") return response.writeHead(405).end()
        if (message.method === "server/discover") {
          return json(response, {
            jsonrpc: "2.0",
            id: message.id,
            result: {
              resultType: "complete",
              supportedVersions: ["2027-03-01"],
              capabilities: {},
              ttlMs: 0,
              cacheScope: "private"
            }
          })
        }
        // What such a server answers a legacy request: missing headers, 400.
        response.writeHead(400, { "content-type": "text/plain" })
        response.end("Bad Request: missing MCP-Protocol-Version")
      })
      const error = yield* Effect.flip(
        Layer.build(
          McpClient.layer({ name: "future" }).pipe(
            Layer.provide(StreamableHttpTransport.layer({ url, name: "future" })),
            Layer.provide(keepAliveHttpClient)
          )
        )
      )
      expect(error._tag).toBe("UnsupportedProtocolVersion")
      expect(error.message).toContain("2027-03-01")
      expect(error.message).toContain("2025-11-25")
      expect(received.map((request) => rpc(request).method)).toStrictEqual(["server/discover"])
    }).pipe(Effect.scoped, noFibersLeft)
  )
})
