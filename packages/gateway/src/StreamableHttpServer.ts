/**
 * The gateway over Streamable HTTP (stateful, 2025-11-25 and the older stateful revisions): an
 * `HttpApp` for `@effect/platform`'s `HttpServer`. `initialize` opens a session (its id in
 * `Mcp-Session-Id`), each session a gateway connection of its own; a POST that carries requests is
 * answered with an event stream, one that carries only notifications or responses with 202; GET
 * opens the session's stream for what relates to no request, or with `Last-Event-ID` resumes the
 * stream that event was on (every event has an id; a session keeps its newest 1000 events, within
 * 4 MiB); DELETE ends the session.
 *
 * Guarded as the specification asks: a bearer token when one is configured (401 without it), the
 * `Origin` of browsers checked against DNS rebinding (403), unknown sessions 404, a request without
 * its session 400.
 *
 * @since 0.1.0
 */

import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { McpHost } from "@effect-mcp/host"
import * as Transport from "@effect-mcp/jsonrpc/Transport"
import { JsonRpc, ProtocolVersion } from "@effect-mcp/protocol"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import * as EventBody from "./internal/eventBody.js"
import * as HttpSession from "./internal/httpSession.js"
import * as Sealing from "./internal/sealing.js"
import * as ServerRequests from "./internal/serverRequests.js"
import * as Stateless from "./internal/statelessHttp.js"
import * as StatelessRequest from "./internal/statelessRequest.js"
import * as McpGateway from "./McpGateway.js"

/**
 * Where and how the gateway listens.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The endpoint's path. Default: `/mcp`. */
  readonly path?: string
  /** Every request must carry `Authorization: Bearer <token>`. Default: none (loopback only). */
  readonly token?: string
  /** Browser origins allowed besides the loopback ones (`http://localhost:*`, `127.0.0.1`, `[::1]`). */
  readonly allowedOrigins?: ReadonlyArray<string>
  /** How each connection presents the gateway. */
  readonly gateway?: McpGateway.Options
  /**
   * The keys of 2026-07-28 input rounds' `requestState` (the first seals; all open): every instance
   * behind one balancer needs the same. Default: a random key of this process (one instance only).
   */
  readonly sealing?: ReadonlyArray<Sealing.SealingKey>
}

/**
 * A key of input rounds' `requestState`: an id, and 32 bytes of secret.
 *
 * @since 0.1.0
 * @category models
 */
export type SealingKey = Sealing.SealingKey

/**
 * Keys from their text form, `id:secret[,id:secret…]` (each secret hashed to 32 bytes; the first
 * seals, the others still open what they sealed: rotation).
 *
 * @since 0.1.0
 * @category constructors
 */
export const sealingKeys: (text: string) => Effect.Effect<ReadonlyArray<SealingKey>> = Sealing.keysFrom

const SESSION = "mcp-session-id"

/** A JSON-RPC error as an HTTP response. */
const refuse = (status: number, code: number, message: string, headers: Record<string, string> = {}) =>
  HttpServerResponse.unsafeJson({ jsonrpc: "2.0", error: { code, message } }, { status, headers })

const loopbackOrigin = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/

const sse = (stream: Stream.Stream<Uint8Array>, id: string) =>
  HttpServerResponse.stream(stream, {
    contentType: "text/event-stream",
    headers: { "cache-control": "no-cache", [SESSION]: id }
  })

/**
 * The gateway's `HttpApp`; sessions live until they are deleted, their client's connection ends
 * or the scope closes.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: Options = {}
): Effect.Effect<HttpApp.Default, never, Scope.Scope | McpHost.McpHost | ServerRequests.Attachments> =>
  Effect.gen(function* () {
    const path = options.path ?? "/mcp"
    const sessions = new Map<string, HttpSession.HttpSession>()
    const scope = yield* Effect.scope
    const context = yield* Effect.context<McpHost.McpHost | ServerRequests.Attachments>()
    const host = Context.get(context, McpHost.McpHost)
    const attachments = Context.get(context, ServerRequests.Attachments)
    const allowed = new Set(options.allowedOrigins ?? [])
    const sealer = yield* Sealing.make(
      options.sealing !== undefined && options.sealing.length > 0 ? options.sealing : [yield* Sealing.localKey]
    )

    /** A new session, served until it ends (or the gateway's scope closes). */
    const open = Effect.gen(function* () {
      const session = HttpSession.make(crypto.randomUUID())
      sessions.set(session.id, session)
      yield* McpGateway.serve(session.transport, options.gateway).pipe(
        Effect.scoped,
        Effect.ensuring(
          Effect.zipRight(
            Effect.sync(() => sessions.delete(session.id)),
            session.close
          )
        ),
        Effect.provide(context),
        // The HTTP server may run its handlers uninterruptibly, and a fork inherits that: the
        // session must stop when the gateway's scope closes.
        Effect.interruptible,
        Effect.forkIn(scope)
      )
      return session
    })

    /** The session a request names: 400 without one, 404 for one this gateway does not know. */
    const sessionOf = (request: HttpServerRequest.HttpServerRequest) => {
      const id = request.headers[SESSION]
      if (id === undefined)
        return refuse(400, JsonRpc.ErrorCode.InvalidRequest, "Bad Request: Mcp-Session-Id is missing")
      return sessions.get(id) ?? refuse(404, -32001, "Session not found")
    }

    const post = (request: HttpServerRequest.HttpServerRequest) =>
      Effect.gen(function* () {
        const body = yield* Effect.either(request.json)
        if (body._tag === "Left") return refuse(400, JsonRpc.ErrorCode.ParseError, "Parse error")
        const items = Transport.decodeIncoming(body.right)
        if (items.length === 0 || items.some((item) => item._tag !== "Message")) {
          return refuse(400, JsonRpc.ErrorCode.InvalidRequest, "Invalid request")
        }
        const only = items.length === 1 && items[0]?._tag === "Message" ? items[0].message : undefined
        if (only !== undefined && StatelessRequest.isStateless(only, request.headers)) {
          return yield* Stateless.serve(only, request.headers, {
            host,
            serverInfo: options.gateway?.serverInfo ?? McpGateway.defaultServerInfo,
            instructions: options.gateway?.instructions,
            attachments,
            sealer,
            toolSearch: options.gateway?.toolSearch === true
          })
        }
        const opening = items.some(
          (item) => item._tag === "Message" && "method" in item.message && item.message.method === "initialize"
        )
        const session = opening ? yield* open : sessionOf(request)
        if (HttpServerResponse.isServerResponse(session)) return session
        const answers = yield* session.post(items, request.headers["mcp-protocol-version"])
        if (answers === undefined) return HttpServerResponse.empty({ status: 202, headers: { [SESSION]: session.id } })
        const settled = yield* EventBody.settle(answers)
        return settled._tag === "Whole"
          ? HttpServerResponse.uint8Array(settled.bytes, {
              contentType: "text/event-stream",
              headers: { "cache-control": "no-cache", [SESSION]: session.id }
            })
          : sse(settled.stream, session.id)
      })

    /** The session's GET stream, or with `Last-Event-ID` the rest of the stream that event was on. */
    const get = (request: HttpServerRequest.HttpServerRequest) =>
      Effect.gen(function* () {
        const session = sessionOf(request)
        if (HttpServerResponse.isServerResponse(session)) return session
        const listened = yield* session.listen({
          version: request.headers["mcp-protocol-version"],
          lastEventId: request.headers["last-event-id"]
        })
        switch (listened._tag) {
          case "Stream":
            return sse(listened.stream, session.id)
          case "Busy":
            return refuse(409, JsonRpc.ErrorCode.InvalidRequest, "Conflict: this session's stream is already open")
          case "Unknown":
            return refuse(
              400,
              JsonRpc.ErrorCode.InvalidRequest,
              `Bad Request: Last-Event-ID ${listened.lastEventId} is unknown or has expired`
            )
          case "Finished":
            // The SSE standard's "stop reconnecting": the stream has ended and nothing was missed.
            return HttpServerResponse.empty({ status: 204, headers: { [SESSION]: session.id } })
        }
      })

    const app = Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      if (options.token !== undefined && request.headers.authorization !== `Bearer ${options.token}`) {
        return refuse(401, JsonRpc.ErrorCode.InvalidRequest, "Unauthorized", { "www-authenticate": "Bearer" })
      }
      const origin = request.headers.origin
      if (origin !== undefined && !loopbackOrigin.test(origin) && !allowed.has(origin)) {
        return refuse(403, JsonRpc.ErrorCode.InvalidRequest, `Forbidden: origin ${origin} is not allowed`)
      }
      if (new URL(request.url, "http://gateway").pathname !== path) {
        return refuse(404, JsonRpc.ErrorCode.InvalidRequest, `Not found: the endpoint is ${path}`)
      }
      // A POST's revision is read with its body (a stateless request's envelope decides).
      const version = request.headers["mcp-protocol-version"]
      if (request.method !== "POST" && version !== undefined && !ProtocolVersion.isStateful(version)) {
        return refuse(400, -32022, `Bad Request: unsupported protocol version ${version}`)
      }
      switch (request.method) {
        case "POST":
          return yield* post(request)
        case "GET":
          return yield* get(request)
        case "DELETE": {
          const session = sessionOf(request)
          if (HttpServerResponse.isServerResponse(session)) return session
          sessions.delete(session.id)
          yield* session.close
          return HttpServerResponse.empty({ status: 200 })
        }
        default:
          return refuse(405, JsonRpc.ErrorCode.InvalidRequest, "Method not allowed", { allow: "GET, POST, DELETE" })
      }
    })
    // The platform's HTTP server runs a handler uninterruptibly; the gateway's work (a call racing
    // its input rounds, a session's fiber) must stay interruptible, or a lost race never ends.
    return Effect.interruptible(app)
  })
