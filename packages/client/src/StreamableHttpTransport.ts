/**
 * The Streamable HTTP transport (2025-11-25). Every message is POSTed to the server's URL;
 * the answer is a JSON body, an SSE stream (which may carry requests and notifications
 * before the response), or 202 for notifications and responses. Built on `HttpClient`, so it
 * runs on any platform layer (the Node `http` client is the measured choice).
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
 * - 404 on a request that carried a session id means the session is gone
 *   (a `SessionExpired` item); the client re-initializes.
 * - Close sends `DELETE` with the session id (405 tolerated).
 */
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { type JsonRpc, McpSchema, ProtocolVersion } from "@effect-mcp/protocol"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { AuthorizationError } from "./auth/AuthError.js"
import {
  describeHttpError,
  parseEndpoint,
  readBody,
  readExcerpt,
  requestFailure,
  withMethod
} from "./internal/transport/httpBody.js"
import * as McpHeaders from "./internal/transport/mcpHeaders.js"
import { parse as parseSse, SseTooLarge } from "./internal/transport/sse.js"
import { LegacyServer, SessionExpired, StreamBroken, TransportError } from "./McpError.js"
import * as Retry from "./Retry.js"
import {
  decodeIncoming,
  type Incoming,
  makeInbound,
  parseIncoming,
  Transport,
  type TransportService
} from "./Transport.js"

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
}

const DEFAULT_MAX_BYTES = 64 * 1024 * 1024

/** The stateless revision a message speaks, read from its `_meta` (2026-07-28 requests carry it). */
const statelessVersionOf = (message: JsonRpc.JSONRPCMessage): string | undefined => {
  const params = "params" in message ? message.params : undefined
  const meta = params?._meta
  const version = McpSchema.isJsonObject(meta) ? meta[McpSchema.MetaKey.protocolVersion] : undefined
  return typeof version === "string" && ProtocolVersion.isStateless(version) ? version : undefined
}

/** How an SSE stream ended: whether the awaited response came, and if not, why the stream stopped. */
interface SseEnd {
  readonly answered: boolean
  readonly ending: string
}

/**
 * Builds the transport; its streams and requests end with the scope (after `DELETE`). Fails
 * with a `TransportError` when the URL is invalid.
 */
export const make = (
  options: StreamableHttpOptions
): Effect.Effect<TransportService, TransportError, HttpClient.HttpClient | Scope.Scope> =>
  Effect.gen(function* () {
    const url = yield* parseEndpoint(options.url, options.name)
    const server = options.name ?? url.host
    const maxBytes = options.maxMessageBytes ?? DEFAULT_MAX_BYTES
    const maxReconnects = options.maxReconnects ?? 5
    const defaultDelay = Duration.decode(options.reconnectDelay ?? "1 second")
    const client = (yield* HttpClient.HttpClient).pipe(HttpClient.withScope)
    const inbound = makeInbound()
    const fibers = yield* FiberSet.make()
    // The POST of each request while it is open, so that cancelling a 2026-07-28 request closes its stream.
    const posts = new Map<JsonRpc.RequestId, Fiber.RuntimeFiber<void>>()
    let sessionId: string | undefined
    let answeredOnce = false
    let protocolVersion: string | undefined
    let listening: string | undefined
    let closed = false

    /** The headers of a 2026-07-28 message: version, method and name from the message itself; no session. */
    const statelessHeaders = (
      version: string,
      message: JsonRpc.JSONRPCMessage,
      extra: Readonly<Record<string, string>> | undefined
    ) => {
      const method = "method" in message ? message.method : undefined
      const name =
        method === undefined ? undefined : McpHeaders.nameOf(method, "params" in message ? message.params : undefined)
      return {
        ...options.headers,
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": version,
        ...(method === undefined ? {} : { "mcp-method": method }),
        ...(name === undefined ? {} : { "mcp-name": name }),
        ...extra
      }
    }

    const headers = (accept: string, extra: Record<string, string> = {}) => ({
      ...options.headers,
      accept,
      ...(sessionId === undefined ? {} : { "mcp-session-id": sessionId }),
      ...(protocolVersion === undefined ? {} : { "mcp-protocol-version": protocolVersion }),
      ...extra
    })

    const httpError = (reason: string, extra: { status?: number; cause?: unknown; retryAfter?: number } = {}) =>
      new TransportError({ server, reason, ...extra })

    const offerAll = (items: ReadonlyArray<Incoming>) => Effect.asVoid(inbound.offerAll(items))

    const answers = (items: ReadonlyArray<Incoming>, id: JsonRpc.RequestId | undefined) =>
      id !== undefined &&
      items.some(
        (item) =>
          item._tag === "Message" && "id" in item.message && !("method" in item.message) && item.message.id === id
      )

    /**
     * Reads an SSE stream; resumes it (with Last-Event-ID when the server gave ids) while
     * `waitingFor` has no answer, or, for the listener, while the session lives. Resumptions in
     * a row that deliver no event are bounded by `maxReconnects`; one that delivers resets it.
     */
    const consumeSse = (
      response: HttpClientResponse.HttpClientResponse,
      waitingFor: JsonRpc.RequestId | undefined,
      resumable = true
    ): Effect.Effect<SseEnd, never, Scope.Scope> =>
      Effect.gen(function* () {
        let current = response
        let lastEventId: string | undefined
        let delay = defaultDelay
        let answered = false
        let resumesWithoutProgress = 0
        for (;;) {
          let delivered = 0
          const outcome = yield* current.stream.pipe(
            parseSse(maxBytes),
            Stream.runForEach((item) => {
              if (item._tag === "Retry") {
                delay = Duration.millis(item.millis)
                return Effect.void
              }
              if (item.id !== undefined) lastEventId = item.id
              // An event with an id and empty data primes resumption (the spec asks servers to send one).
              if (item.event !== "message" || item.data === "") return Effect.void
              delivered++
              const items = parseIncoming(item.data)
              if (answers(items, waitingFor)) answered = true
              return offerAll(items)
            }),
            Effect.either
          )
          let ending =
            waitingFor === undefined
              ? "the server's event stream ended"
              : "the server's event stream ended before the response arrived"
          if (outcome._tag === "Left") {
            if (outcome.left instanceof SseTooLarge) {
              ending = `an SSE event exceeded ${maxBytes} bytes`
              yield* Effect.logWarning(`${server}: ${ending}`)
            } else {
              ending = describeHttpError(outcome.left)
            }
          }
          if (closed || answered || !resumable || (waitingFor === undefined && sessionId === undefined))
            return { answered, ending }
          // A request's stream can only be resumed from an event id; the listener may reopen afresh.
          if (lastEventId === undefined && waitingFor !== undefined) return { answered, ending }
          if (delivered > 0) resumesWithoutProgress = 0
          if (resumesWithoutProgress >= maxReconnects)
            return {
              answered,
              ending: `${ending}; resumed ${maxReconnects} times in a row without receiving an event`
            }
          resumesWithoutProgress++
          yield* Effect.sleep(delay)
          const resumed = yield* client
            .execute(
              HttpClientRequest.get(options.url).pipe(
                HttpClientRequest.setHeaders(
                  headers("text/event-stream", lastEventId === undefined ? {} : { "last-event-id": lastEventId })
                )
              )
            )
            .pipe(Effect.either)
          if (resumed._tag === "Left")
            return {
              answered,
              ending: `${ending}; ${requestFailure(`resuming with GET ${options.url}`, resumed.left)}`
            }
          if (resumed.right.status !== 200)
            return { answered, ending: `${ending}; resuming with GET was answered ${resumed.right.status}` }
          current = resumed.right
        }
      })

    const failRequest = (
      id: JsonRpc.RequestId | undefined,
      error: TransportError | AuthorizationError | SessionExpired | LegacyServer | StreamBroken
    ) => (id === undefined ? Effect.logWarning(error.message) : offerAll([{ _tag: "Failed", id, error }]))

    /** The items of a JSON error body, when they answer the request `id`. */
    const jsonAnswer = (response: HttpClientResponse.HttpClientResponse, id: JsonRpc.RequestId | undefined) =>
      Effect.map(Effect.either(readBody(response, maxBytes)), (body) => {
        if (body._tag === "Left") return undefined
        try {
          const items = decodeIncoming(JSON.parse(body.right))
          return answers(items, id) ? items : undefined
        } catch {
          return undefined
        }
      })

    const post = (message: JsonRpc.JSONRPCMessage, extra: Readonly<Record<string, string>> | undefined) =>
      Effect.scoped(
        Effect.gen(function* () {
          const id = "method" in message && "id" in message ? message.id : undefined
          const stateless = statelessVersionOf(message)
          const sentWith = stateless === undefined ? sessionId : undefined
          const sentWithSession = sentWith !== undefined
          const request = HttpClientRequest.post(options.url).pipe(
            HttpClientRequest.setHeaders(
              stateless === undefined
                ? headers("application/json, text/event-stream", { ...extra })
                : statelessHeaders(stateless, message, extra)
            ),
            HttpClientRequest.bodyText(JSON.stringify(message), "application/json")
          )
          const response = yield* client
            .execute(request)
            .pipe(
              Effect.mapError((error: HttpClientError.HttpClientError) =>
                error.cause instanceof AuthorizationError
                  ? withMethod(error.cause, "method" in message ? message.method : undefined)
                  : httpError(requestFailure(`POST ${options.url}`, error), { cause: error })
              )
            )
          if (response.status >= 200 && response.status < 300) answeredOnce = true
          const newSession = response.headers["mcp-session-id"]
          // 2026-07-28 has no sessions: a session id in its answers means nothing.
          if (stateless === undefined && newSession !== undefined && newSession !== "") sessionId = newSession
          const contentType = (response.headers["content-type"] ?? "").toLowerCase()
          if (response.status === 202 || response.status === 204) return
          // Refused before any session, as a legacy HTTP+SSE server refuses a POST: say so (the
          // auto transport falls back); a 404 for a session it gave: it forgot the session.
          // (Only before any answer: once the server has answered, a refusal is that request's failure.)
          if (
            stateless === undefined &&
            !answeredOnce &&
            sentWith === undefined &&
            [400, 404, 405].includes(response.status)
          ) {
            // Unless the refusal is a JSON-RPC answer (a modern-only server's -32022 names its revisions).
            const answer = contentType.startsWith("application/json") ? yield* jsonAnswer(response, id) : undefined
            if (answer !== undefined) return yield* offerAll(answer)
            return yield* new LegacyServer({ server, status: response.status })
          }
          if (response.status === 404 && sentWithSession) {
            // A late 404 for an older session must not forget the session that replaced it.
            if (sessionId === sentWith) sessionId = undefined
            listening = undefined
            return yield* new SessionExpired({ server })
          }
          if (
            stateless !== undefined &&
            response.status >= 400 &&
            response.status < 500 &&
            contentType.startsWith("application/json")
          ) {
            // 2026-07-28: a 4xx with a JSON-RPC body is that request's answer (-32022, -32020, -32601, …).
            const answer = yield* jsonAnswer(response, id)
            if (answer !== undefined) return yield* offerAll(answer)
            return yield* httpError(`HTTP ${response.status} without a JSON-RPC answer`, { status: response.status })
          }
          if (response.status < 200 || response.status >= 300) {
            const body = yield* readExcerpt(response, 200)
            const retryAfter = Retry.parseRetryAfter(response.headers["retry-after"], Date.now())
            return yield* httpError(`HTTP ${response.status}${body === "" ? "" : `: ${body}`}`, {
              status: response.status,
              ...(retryAfter === undefined ? {} : { retryAfter })
            })
          }
          if (contentType.startsWith("text/event-stream")) {
            // 2026-07-28 has no resumption: a broken stream loses the request, which is sent again.
            const { answered, ending } = yield* consumeSse(response, id, stateless === undefined)
            if (stateless !== undefined && id !== undefined && !answered && !closed) {
              return yield* new StreamBroken({ server, reason: ending })
            }
            if (id !== undefined && !answered && !closed) {
              return yield* httpError(ending, { status: response.status })
            }
            return
          }
          if (contentType.startsWith("application/json")) {
            const body = yield* readBody(response, maxBytes).pipe(
              Effect.mapError((reason) => httpError(reason, { status: response.status }))
            )
            let parsed: unknown
            try {
              parsed = JSON.parse(body)
            } catch {
              return yield* httpError(`the server answered with a body that is not JSON: ${body.slice(0, 200)}`, {
                status: response.status
              })
            }
            const delivered = decodeIncoming(parsed)
            yield* offerAll(delivered)
            if (id !== undefined && !answers(delivered, id)) {
              return yield* httpError("the server's JSON answer did not contain the response", {
                status: response.status
              })
            }
            return
          }
          const body = yield* readExcerpt(response, 200)
          return yield* httpError(
            `unexpected content type ${contentType === "" ? "(none)" : contentType} with status ${response.status}: ${body}`,
            { status: response.status }
          )
        })
      ).pipe(
        Effect.catchAll((error) => failRequest("method" in message && "id" in message ? message.id : undefined, error))
      )

    const listen = (forSession: string) =>
      Effect.scoped(
        Effect.gen(function* () {
          const response = yield* client
            .execute(
              HttpClientRequest.get(options.url).pipe(HttpClientRequest.setHeaders(headers("text/event-stream")))
            )
            .pipe(Effect.either)
          if (response._tag === "Left")
            return yield* Effect.logDebug(
              `${server}: the GET listener failed to open: ${requestFailure(`GET ${options.url}`, response.left)}`
            )
          if (response.right.status === 405)
            return yield* Effect.logDebug(`${server}: no server-initiated stream (405)`)
          if (response.right.status !== 200)
            return yield* Effect.logDebug(`${server}: GET listener answered ${response.right.status}`)
          const { ending } = yield* consumeSse(response.right, undefined)
          yield* Effect.logDebug(`${server}: the GET listener stopped: ${ending}`)
        })
      ).pipe(
        Effect.ensuring(
          Effect.sync(() => {
            if (listening === forSession) listening = undefined
          })
        )
      )

    yield* Effect.addFinalizer(() =>
      Effect.gen(function* () {
        closed = true
        if (sessionId !== undefined) {
          const request = HttpClientRequest.del(options.url).pipe(
            HttpClientRequest.setHeaders(headers("application/json"))
          )
          yield* Effect.scoped(client.execute(request)).pipe(
            Effect.interruptible,
            Effect.timeout("2 seconds"),
            Effect.ignore
          )
        }
        yield* inbound.end
      })
    )

    return {
      run: inbound.run,
      send: (message, extra) => {
        if (closed) return Effect.fail(httpError("the transport is closed"))
        if (protocolVersion !== undefined && ProtocolVersion.isStateless(protocolVersion) && !("id" in message)) {
          // 2026-07-28 has no client notifications over HTTP: closing a request's stream cancels it.
          const cancelled =
            "method" in message && message.method === "notifications/cancelled" ? message.params?.requestId : undefined
          const open = typeof cancelled === "string" || typeof cancelled === "number" ? posts.get(cancelled) : undefined
          return open === undefined ? Effect.void : Fiber.interrupt(open)
        }
        // Interruptible whatever the caller's region (a response is often sent from a handler's
        // onExit, which is not): closing must be able to abort a POST the server never answers.
        const id =
          "id" in message && "method" in message && statelessVersionOf(message) !== undefined ? message.id : undefined
        if (id === undefined) return Effect.asVoid(FiberSet.run(fibers, Effect.interruptible(post(message, extra))))
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
          protocolVersion = version
          if (ProtocolVersion.isStateless(version)) return
          if (options.listen === false || sessionId === undefined || listening === sessionId) return
          listening = sessionId
          yield* FiberSet.run(fibers, Effect.interruptible(listen(sessionId)))
        })
    } satisfies TransportService
  })

/** A Streamable HTTP `Transport` layer. */
export const layer = (options: StreamableHttpOptions): Layer.Layer<Transport, TransportError, HttpClient.HttpClient> =>
  Layer.scoped(Transport, make(options))
