/**
 * How long the gateway keeps a 2025-11-25 HTTP session (`internal/sessionTable.ts`), on the
 * `TestClock`: one unused past the idle timeout ends (its id is then unknown: 404, and the client
 * initializes again); a request or a connected stream keeps it, and so does a request still
 * unanswered after its client left its stream; at most `maxSessions` live, a new one ending the
 * longest idle, or refused (503) while every one is busy.
 */
import { expect, layer } from "@effect/vitest"
import { McpHost } from "@effect-mcp/host"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as TestClock from "effect/TestClock"
import * as HttpCore from "../src/internal/httpCore.js"
import { postTo, statusOf } from "./support/core.js"
import { faultServer, gatewayHost } from "./support/gateway.js"

let nextId = 1

/** A POST of `body` to the handler, naming `session` when given. */
const post = (handle: HttpCore.Handler, body: unknown, session?: string) =>
  postTo(handle, body, {
    "mcp-protocol-version": "2025-11-25",
    ...(session === undefined ? {} : { "mcp-session-id": session })
  })

/** A new initialized session: its id. */
const initialize = (handle: HttpCore.Handler) =>
  Effect.gen(function* () {
    const opened = yield* post(handle, {
      jsonrpc: "2.0",
      id: nextId++,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "test", version: "1" } }
    })
    const id = opened.headers["mcp-session-id"]
    expect(id).toBeTypeOf("string")
    yield* post(handle, { jsonrpc: "2.0", method: "notifications/initialized" }, id)
    return id ?? ""
  })

/** A ping in the session: its HTTP status (404 once the session is gone). */
const ping = (handle: HttpCore.Handler, session: string) =>
  Effect.map(post(handle, { jsonrpc: "2.0", id: nextId++, method: "ping" }, session), statusOf)

/** The session's GET stream, connected until `scope` closes. */
const listen = (handle: HttpCore.Handler, session: string, scope: Scope.Scope) =>
  Effect.gen(function* () {
    const reply = yield* handle({
      method: "GET",
      url: "/mcp",
      headers: { accept: "text/event-stream", "mcp-protocol-version": "2025-11-25", "mcp-session-id": session },
      json: Effect.succeed(undefined)
    })
    if (reply._tag !== "Events") return expect.unreachable(`no stream: ${JSON.stringify(reply)}`)
    yield* Scope.extend(reply.events.connect({ write: () => {}, end: () => {} }), scope)
  })

layer(gatewayHost({ servers: [] }))("2025-11-25 HTTP sessions' lifetime", (it) => {
  it.scoped("a session unused past the idle timeout ends; each request keeps it a while longer", () =>
    Effect.gen(function* () {
      const handle = yield* HttpCore.make({ sessionIdleTimeout: "10 minutes" })
      const session = yield* initialize(handle)
      yield* TestClock.adjust("9 minutes")
      expect(yield* ping(handle, session)).toBe(200)
      yield* TestClock.adjust("9 minutes")
      expect(yield* ping(handle, session)).toBe(200)
      yield* TestClock.adjust("11 minutes")
      expect(yield* ping(handle, session)).toBe(404)
      // Its client starts again.
      expect(yield* ping(handle, yield* initialize(handle))).toBe(200)
    })
  )

  it.scoped("a session with a stream connected lives on; once the stream is gone, it ends when idle", () =>
    Effect.gen(function* () {
      const handle = yield* HttpCore.make({ sessionIdleTimeout: "10 minutes" })
      const session = yield* initialize(handle)
      const connection = yield* Scope.make()
      yield* listen(handle, session, connection)
      yield* TestClock.adjust("1 hour")
      yield* Scope.close(connection, Exit.void)
      // In use until the stream went: the idle time counts from then, not from the last request.
      yield* TestClock.adjust("5 minutes")
      expect(yield* ping(handle, session)).toBe(200)
      yield* TestClock.adjust("11 minutes")
      expect(yield* ping(handle, session)).toBe(404)
    })
  )

  it.scoped("at most maxSessions: a new one ends the longest idle, and is refused (503) while all are busy", () =>
    Effect.gen(function* () {
      const handle = yield* HttpCore.make({ maxSessions: 2 })
      const first = yield* initialize(handle)
      yield* TestClock.adjust("1 minute")
      const second = yield* initialize(handle)
      yield* TestClock.adjust("1 minute")
      const third = yield* initialize(handle)
      expect(yield* ping(handle, first)).toBe(404)
      expect(yield* ping(handle, second)).toBe(200)
      expect(yield* ping(handle, third)).toBe(200)
      // Both listening: no room, and neither is ended for a newcomer.
      yield* listen(handle, second, yield* Effect.scope)
      yield* listen(handle, third, yield* Effect.scope)
      const refused = yield* post(handle, {
        jsonrpc: "2.0",
        id: nextId++,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "test", version: "1" } }
      })
      expect(statusOf(refused)).toBe(503)
      expect(yield* ping(handle, second)).toBe(200)
      expect(yield* ping(handle, third)).toBe(200)
    })
  )
})

layer(gatewayHost({ servers: [{ name: "fault", target: faultServer }] }), { timeout: "60 seconds" })(
  "2025-11-25 HTTP sessions' lifetime, with a request in progress",
  (it) => {
    it.scoped("a request unanswered keeps its session past the idle timeout after its client left its stream", () =>
      Effect.gen(function* () {
        // The server is up, so that the call reaches it.
        yield* Effect.flatMap(McpHost.McpHost, (host) => host.callTool("fault__echo", { message: "up" }))
        const handle = yield* HttpCore.make({ sessionIdleTimeout: "10 minutes" })
        const session = yield* initialize(handle)
        // A call that waits until it is cancelled, on its own stream (the client accepts no JSON).
        const reply = yield* handle({
          method: "POST",
          url: "/mcp",
          headers: {
            "content-type": "application/json",
            accept: "text/event-stream",
            "mcp-protocol-version": "2025-11-25",
            "mcp-session-id": session
          },
          json: Effect.succeed({
            jsonrpc: "2.0",
            id: nextId++,
            method: "tools/call",
            params: { name: "fault__slow", arguments: {} }
          })
        })
        if (reply._tag !== "Events") return expect.unreachable(`no stream: ${JSON.stringify(reply)}`)
        const connection = yield* Scope.make()
        yield* Scope.extend(reply.events.connect({ write: () => {}, end: () => {} }), connection)
        // The client goes away before the answer: the call goes on, and with it the session.
        yield* Scope.close(connection, Exit.void)
        yield* TestClock.adjust("1 hour")
        expect(yield* ping(handle, session)).toBe(200)
      })
    )
  }
)
