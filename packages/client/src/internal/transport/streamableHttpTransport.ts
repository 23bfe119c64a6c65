/**
 * The Streamable HTTP transport (2025-11-25). Every message is POSTed to the server's URL;
 * the answer is a JSON body, an SSE stream (which may carry requests and notifications
 * before the response), or 202 for notifications and responses. Built on `HttpClient`, so it
 * runs on any platform layer (the Node `http` client is the measured choice). A platform package
 * may pass a faster route for its requests (`makeWithRoute`; `@effect-mcp/node`'s
 * `NodeHttpTransport`): then a stateful POST runs in the route's callbacks, its JSON answer read
 * in one step, with no fiber of its own. `make` and `layer` never take a route.
 * The parts are in `internal/transport/streamable/`: the connection (session state, requests),
 * the answers, the event streams, and the fast sending.
 *
 * - `Mcp-Session-Id` is captured and sent; `MCP-Protocol-Version` after negotiation; custom
 *   headers (for example `Authorization`) on every request.
 * - `send` returns once the POST is under way, so requests never queue behind each other; a
 *   request whose POST fails comes back as a `Failed` inbound item for that request alone.
 * - An optional GET listener receives server-initiated messages (405: the server has none).
 * - SSE event ids are remembered; a stream that breaks before its response arrived is resumed
 *   with `Last-Event-ID`, waiting the server's `retry` interval when it sent one. A resumption
 *   that delivers events resets the budget: only `maxReconnects` resumptions in a row that
 *   deliver nothing give up. The GET listener resumes the same way (a plain GET when the server
 *   gave its events no ids).
 * - An invalid URL fails the layer with a `TransportError` naming it.
 * - 404 on a request that carried a session id means the session is gone (a `SessionExpired`
 *   item); so does 400 (what the official SDKs' servers answer after a restart), unless its
 *   JSON-RPC error is about the request itself. The client re-initializes.
 * - Close sends `DELETE` with the session id (405 tolerated), unless `terminateOnClose` is false:
 *   then the session outlives the transport, and another one (another process's) can `reattach`
 *   to it with its id.
 * - A 2026-07-28 message (its `_meta` names the revision) goes without a session: the
 *   `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*` headers, a 4xx with a
 *   JSON-RPC body as that request's answer, no GET listener, no notifications (cancelling aborts the
 *   POST), no resumption: a stream that ends before its answer is a `StreamBroken` item, and the
 *   stateless dialect sends the request again under a new id.
 * - Each request runs in its own scope (`HttpClient.withScope`), with its own abort controller.
 *   Give it a keep-alive agent on Node (`NodeHttpClient.layerWithoutAgent` with
 *   `NodeHttpClient.makeAgentLayer({ keepAlive: true })`): `NodeHttpClient.layer`'s agent opens a
 *   connection per request (a test counts 24 for 24 requests, at most 3 with keep-alive).
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { makeInbound, Transport, type TransportService } from "@effect-mcp/jsonrpc/Transport"
import { type JsonRpc, ProtocolVersion } from "@effect-mcp/protocol"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import type { TransportError } from "../../McpError.js"
import type { HttpRoute } from "../../Platform.js"
import { parseEndpoint, tracedWhenTracing } from "./httpBody.js"
import * as Answers from "./streamable/answers.js"
import * as Connection from "./streamable/connection.js"
import * as Events from "./streamable/events.js"
import * as FastSend from "./streamable/fastSend.js"

/** Where the server is and how to talk to it. */
export interface StreamableHttpOptions {
  /** The MCP endpoint, for example `http://127.0.0.1:3001/mcp`. */
  readonly url: string
  /** The server's name in errors and logs. Default: the URL's host. */
  readonly name?: string
  /** Headers for every request (for example `Authorization`). */
  readonly headers?: { readonly [name: string]: string }
  /** Open a GET stream for server-initiated messages once the session is set up. Default: true. */
  readonly listen?: boolean
  /** The largest message or SSE event accepted, in bytes. Default: 64 MiB. */
  readonly maxMessageBytes?: number
  /**
   * How many resumptions of a broken SSE stream in a row may deliver no event before the
   * transport gives up on it (a resumption that delivers events resets the count). Default: 5.
   */
  readonly maxReconnects?: number
  /** The wait before resuming when the server sent no `retry`. Default: 1 second. */
  readonly reconnectDelay?: Duration.DurationInput
  /**
   * Whether closing ends the server's session with `DELETE`. `false` leaves it to the server, so
   * that a later client (a function's next invocation behind a balancer, say) can reattach to it
   * (`McpClientOptions.reattach`). Default: true.
   */
  readonly terminateOnClose?: boolean
}

const DEFAULT_MAX_BYTES = 64 * 1024 * 1024

/**
 * Builds the transport, every request through the context's `HttpClient`; its streams and
 * requests end with the scope (after `DELETE`). Fails with a `TransportError` when the URL is
 * invalid.
 */
export const make = (
  options: StreamableHttpOptions
): Effect.Effect<TransportService, TransportError, HttpClient.HttpClient | Scope.Scope> => build(options, undefined)

/**
 * Builds the transport with its POSTs and event streams over `route` (a platform's own HTTP
 * client, `Platform.HttpRoute`): the route bypasses the context's `HttpClient` for every request
 * it takes, which then serves only `DELETE` and what the route declines. Otherwise as `make`.
 */
export const makeWithRoute = (
  options: StreamableHttpOptions,
  route: HttpRoute
): Effect.Effect<TransportService, TransportError, HttpClient.HttpClient | Scope.Scope> => build(options, route)

const build = (
  options: StreamableHttpOptions,
  route: HttpRoute | undefined
): Effect.Effect<TransportService, TransportError, HttpClient.HttpClient | Scope.Scope> =>
  Effect.gen(function* () {
    const url = yield* parseEndpoint(options.url, options.name)
    const connection = Connection.make({
      url: options.url,
      server: options.name ?? url.host,
      maxBytes: options.maxMessageBytes ?? DEFAULT_MAX_BYTES,
      headers: options.headers,
      inbound: makeInbound(),
      client: (yield* HttpClient.HttpClient).pipe(HttpClient.withScope, tracedWhenTracing),
      route
    })
    const { server, inbound } = connection
    const readEvents = Events.reader(
      connection,
      options.maxReconnects ?? 5,
      Duration.decode(options.reconnectDelay ?? "1 second")
    )
    const answers = Answers.make(connection, readEvents)
    const fibers = yield* FiberSet.make()
    const runFork = yield* FiberSet.runtime(fibers)<never>()
    // The POST of each request while it is open, so that cancelling a 2026-07-28 request closes its stream.
    const posts = new Map<JsonRpc.RequestId, Fiber.RuntimeFiber<void>>()

    /** POSTs `message` and handles the answer, in the calling fiber; failures become the request's items. */
    const post = (message: JsonRpc.JSONRPCMessage, extra: Readonly<Record<string, string>> | undefined) =>
      Effect.scoped(
        Effect.suspend(() => {
          const stateless = Connection.statelessVersionOf(message)
          const sentWith = stateless === undefined ? Connection.sessionFor(connection, message) : undefined
          const headers =
            stateless === undefined
              ? connection.headersFor(Connection.ACCEPT, extra, message)
              : connection.statelessHeaders(stateless, message, extra)
          return Effect.flatMap(connection.execute(message, headers), (answer) =>
            answers.handle(answer, message, stateless, sentWith)
          )
        })
      ).pipe(Effect.catchAll((error) => answers.failRequest(Connection.requestId(message), error)))

    const fast = route === undefined ? undefined : FastSend.make({ connection, route, answers, runFork, post })

    const listen = (forSession: string) =>
      Effect.scoped(
        Effect.gen(function* () {
          const response = yield* Effect.either(connection.get(`GET ${options.url}`))
          if (response._tag === "Left")
            return yield* Effect.logDebug(`${server}: the GET listener failed to open: ${response.left}`)
          if (response.right.status === 405)
            return yield* Effect.logDebug(`${server}: no server-initiated stream (405)`)
          if (response.right.status !== 200)
            return yield* Effect.logDebug(`${server}: GET listener answered ${response.right.status}`)
          const { ending } = yield* readEvents(response.right, undefined)
          yield* Effect.logDebug(`${server}: the GET listener stopped: ${ending}`)
        })
      ).pipe(
        Effect.ensuring(
          Effect.sync(() => {
            if (connection.listening === forSession) connection.listening = undefined
          })
        )
      )

    yield* Effect.addFinalizer(() =>
      Effect.gen(function* () {
        connection.closed = true
        fast?.abortAll()
        if (connection.sessionId !== undefined && options.terminateOnClose !== false) {
          const request = HttpClientRequest.del(options.url).pipe(
            HttpClientRequest.setHeaders(connection.headersFor("application/json"))
          )
          yield* Effect.scoped(connection.client.execute(request)).pipe(
            Effect.interruptible,
            Effect.timeout("2 seconds"),
            Effect.ignore
          )
        }
        yield* inbound.end
      })
    )

    // Interruptible whatever the caller's region (a response is often sent from a handler's
    // onExit, which is not): closing must be able to abort a POST the server never answers.
    const forked = (message: JsonRpc.JSONRPCMessage, extra: Readonly<Record<string, string>> | undefined) =>
      Effect.asVoid(FiberSet.run(fibers, Effect.interruptible(post(message, extra))))

    return {
      run: inbound.run,
      send: (message, extra) => {
        if (connection.closed) return Effect.fail(connection.httpError("the transport is closed"))
        const version = connection.protocolVersion
        if (version !== undefined && ProtocolVersion.isStateless(version) && !("id" in message)) {
          // 2026-07-28 has no client notifications over HTTP: closing a request's stream cancels it.
          const cancelled =
            "method" in message && message.method === "notifications/cancelled" ? message.params?.requestId : undefined
          const open = typeof cancelled === "string" || typeof cancelled === "number" ? posts.get(cancelled) : undefined
          return open === undefined ? Effect.void : Fiber.interrupt(open)
        }
        const stateless = Connection.statelessVersionOf(message) !== undefined
        // A stateful message needs no fiber on the fast route (a 2026-07-28 request keeps one: its
        // cancellation is the interruption of its POST).
        if (fast !== undefined && !stateless) {
          const sending = fast
          return Effect.suspend(() => (sending.send(message, extra) ? Effect.void : forked(message, extra)))
        }
        const id = "id" in message && "method" in message && stateless ? message.id : undefined
        if (id === undefined) return forked(message, extra)
        const tracked = Effect.ensuring(
          post(message, extra),
          Effect.sync(() => posts.delete(id))
        )
        return Effect.flatMap(FiberSet.run(fibers, Effect.interruptible(tracked)), (fiber) =>
          Effect.sync(() => {
            if (fiber.unsafePoll() === null) posts.set(id, fiber)
          })
        )
      },
      setProtocolVersion: (version) =>
        Effect.gen(function* () {
          connection.protocolVersion = version
          if (ProtocolVersion.isStateless(version)) return
          const session = connection.sessionId
          if (options.listen === false || session === undefined || connection.listening === session) return
          connection.listening = session
          yield* FiberSet.run(fibers, Effect.interruptible(listen(session)))
        }),
      expiresSessions: true,
      sessionId: () => connection.sessionId,
      reattach: (sessionId) =>
        Effect.sync(() => {
          connection.sessionId = sessionId
        })
    } satisfies TransportService
  })

/** A Streamable HTTP `Transport` layer, every request through the context's `HttpClient`. */
export const layer = (options: StreamableHttpOptions): Layer.Layer<Transport, TransportError, HttpClient.HttpClient> =>
  Layer.scoped(Transport, make(options))
