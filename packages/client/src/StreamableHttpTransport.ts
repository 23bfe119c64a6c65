/**
 * The Streamable HTTP transport (2025-11-25). Every message is POSTed to the server's URL;
 * the answer is a JSON body, an SSE stream (which may carry requests and notifications
 * before the response), or 202 for notifications and responses. Built on `HttpClient`, so it
 * runs on any platform layer (the Node `http` client is the measured choice). A platform module
 * may add a faster route for its requests (`NodeHttpTransport`): then a stateful POST runs in
 * the route's callbacks, its JSON answer read in one step, with no fiber of its own.
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
import { type JsonRpc, McpSchema, ProtocolVersion } from "@effect-mcp/protocol"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import { AuthorizationError } from "./auth/AuthError.js"
import { type FastAnswer, type FastRouteService, RouteInUse } from "./internal/transport/fastRoute.js"
import {
  type Answer,
  type Collected,
  describeCause,
  fromResponse,
  parseEndpoint,
  readBody,
  readExcerpt,
  requestFailure,
  tooLarge,
  tracedWhenTracing,
  withMethod
} from "./internal/transport/httpBody.js"
import * as McpHeaders from "./internal/transport/mcpHeaders.js"
import { makeParser } from "./internal/transport/sse.js"
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
const ACCEPT = "application/json, text/event-stream"

/** The id of a request (responses and notifications have none to wait for). */
const requestId = (message: JsonRpc.JSONRPCMessage): JsonRpc.RequestId | undefined =>
  "method" in message && "id" in message ? message.id : undefined

const isJson = (answer: Answer) => (answer.headers["content-type"] ?? "").toLowerCase().startsWith("application/json")

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
    const client = (yield* HttpClient.HttpClient).pipe(HttpClient.withScope, tracedWhenTracing)
    const fast = Option.getOrUndefined(yield* Effect.serviceOption(RouteInUse))
    const inbound = makeInbound()
    const fibers = yield* FiberSet.make()
    const runFork = yield* FiberSet.runtime(fibers)<never>()
    // The fast POSTs under way outside any fiber, until their answer is read (what aborts each): aborted on close.
    const unanswered = new Set<() => void>()
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

    const headersFor = (accept: string, extra: Readonly<Record<string, string>> = {}): Record<string, string> => ({
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
      response: Answer,
      waitingFor: JsonRpc.RequestId | undefined,
      resumable = true
    ): Effect.Effect<SseEnd, never, Scope.Scope> =>
      Effect.gen(function* () {
        let current: Answer = response
        let lastEventId: string | undefined
        let delay = defaultDelay
        let answered = false
        let resumesWithoutProgress = 0
        for (;;) {
          let delivered = 0
          const parser = makeParser(maxBytes, (item) => {
            if (item._tag === "Retry") {
              delay = Duration.millis(item.millis)
              return
            }
            if (item.id !== undefined) lastEventId = item.id
            // An event with an id and empty data primes resumption (the spec asks servers to send one).
            if (item.event !== "message" || item.data === "") return
            delivered++
            const items = parseIncoming(item.data)
            if (answers(items, waitingFor)) answered = true
            for (const incoming of items) inbound.unsafeOffer(incoming)
          })
          let tooLarge = false
          const outcome = yield* Effect.either(
            current.forEachChunk((chunk) => {
              tooLarge = !parser.push(chunk)
              return !tooLarge
            })
          )
          let ending =
            waitingFor === undefined
              ? "the server's event stream ended"
              : "the server's event stream ended before the response arrived"
          if (tooLarge) {
            ending = `an SSE event exceeded ${maxBytes} bytes`
            yield* Effect.logWarning(`${server}: ${ending}`)
          } else if (outcome._tag === "Left") {
            ending = outcome.left
          } else {
            parser.end()
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
          const resumed = yield* Effect.either(
            get(`resuming with GET ${options.url}`, lastEventId === undefined ? {} : { "last-event-id": lastEventId })
          )
          if (resumed._tag === "Left") return { answered, ending: `${ending}; ${resumed.left}` }
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
    const jsonAnswer = (answer: Answer, id: JsonRpc.RequestId | undefined) =>
      Effect.map(Effect.either(readBody(answer, maxBytes)), (body) => {
        if (body._tag === "Left") return undefined
        try {
          const items = decodeIncoming(JSON.parse(body.right))
          return answers(items, id) ? items : undefined
        } catch {
          return undefined
        }
      })

    /**
     * What a 2xx JSON answer delivers: its items, and the failure of the request `id` when the
     * body broke off, was too large, was not JSON, or did not answer it.
     */
    const jsonOutcome = (
      body: Either.Either<Collected, string>,
      status: number,
      id: JsonRpc.RequestId | undefined
    ): { readonly items: ReadonlyArray<Incoming>; readonly error: TransportError | undefined } => {
      const failed = (reason: string) => ({ items: [], error: httpError(reason, { status }) })
      if (Either.isLeft(body)) return failed(body.left)
      if (body.right.over) return failed(tooLarge(maxBytes))
      let parsed: unknown
      try {
        parsed = JSON.parse(body.right.text)
      } catch {
        return failed(`the server answered with a body that is not JSON: ${body.right.text.slice(0, 200)}`)
      }
      const items = decodeIncoming(parsed)
      return {
        items,
        error:
          id !== undefined && !answers(items, id)
            ? httpError("the server's JSON answer did not contain the response", { status })
            : undefined
      }
    }

    const postFailed = (cause: unknown) =>
      httpError(`POST ${options.url} failed: ${describeCause(cause) ?? "the request failed"}`, { cause })

    /** What the answer says about the session: any 2xx is an answer; a new session id is kept (not at 2026-07-28). */
    const observe = (answer: Answer, stateless: string | undefined) => {
      if (answer.status >= 200 && answer.status < 300) answeredOnce = true
      const newSession = answer.headers["mcp-session-id"]
      // 2026-07-28 has no sessions: a session id in its answers means nothing.
      if (stateless === undefined && newSession !== undefined && newSession !== "") sessionId = newSession
    }

    /**
     * Sends the POST: over the fast route when there is one and it takes the request, else
     * through the `HttpClient`. A fast answer is released with the scope.
     */
    const execute = (
      message: JsonRpc.JSONRPCMessage,
      headers: Readonly<Record<string, string>>
    ): Effect.Effect<Answer, TransportError | AuthorizationError, Scope.Scope> => {
      const body = JSON.stringify(message)
      const viaClient = client
        .execute(
          HttpClientRequest.post(options.url).pipe(
            HttpClientRequest.setHeaders(headers),
            HttpClientRequest.bodyText(body, "application/json")
          )
        )
        .pipe(
          Effect.mapError((error: HttpClientError.HttpClientError) =>
            error.cause instanceof AuthorizationError
              ? withMethod(error.cause, "method" in message ? message.method : undefined)
              : httpError(requestFailure(`POST ${options.url}`, error), { cause: error })
          ),
          Effect.map(fromResponse)
        )
      return Effect.flatMap(Effect.mapError(viaRoute("POST", headers, body), postFailed), (answer) =>
        answer === undefined ? viaClient : Effect.succeed(answer)
      )
    }

    /**
     * A request over the fast route, its answer released with the scope; `undefined` when there
     * is no route or it declined (or authorization took over after a refusal). Fails with the
     * platform's error.
     */
    const viaRoute = (
      method: "GET" | "POST",
      headers: Readonly<Record<string, string>>,
      body: string | undefined
    ): Effect.Effect<FastAnswer | undefined, unknown, Scope.Scope> => {
      if (fast === undefined) return Effect.succeed(undefined)
      const route = fast
      const sent = Effect.async<FastAnswer | undefined, unknown>((resume) => {
        const abort = route.request(method, options.url, headers, body, {
          onAnswer: (answer) => resume(Effect.succeed(answer)),
          onError: (cause) => resume(Effect.fail(cause)),
          onRefused: () => resume(Effect.succeed(undefined))
        })
        if (abort === undefined) return resume(Effect.succeed(undefined))
        return Effect.sync(abort)
      })
      return Effect.uninterruptibleMask((restore) =>
        Effect.tap(restore(sent), (answer) =>
          answer === undefined ? Effect.void : Effect.addFinalizer(() => Effect.sync(answer.release))
        )
      )
    }

    /** A GET for an event stream (with `extra` headers), over the fast route or the `HttpClient`; fails with a clause naming `what`. */
    const get = (what: string, extra: Record<string, string> = {}): Effect.Effect<Answer, string, Scope.Scope> => {
      const headers = headersFor("text/event-stream", extra)
      return Effect.flatMap(
        Effect.mapError(
          viaRoute("GET", headers, undefined),
          (cause) => `${what} failed: ${describeCause(cause) ?? "the request failed"}`
        ),
        (answer) =>
          answer !== undefined
            ? Effect.succeed(answer)
            : client
                .execute(HttpClientRequest.get(options.url).pipe(HttpClientRequest.setHeaders(headers)))
                .pipe(Effect.mapBoth({ onFailure: (error) => requestFailure(what, error), onSuccess: fromResponse }))
      )
    }

    /** What the server answered to `message`: items delivered, or the request's failure. */
    const handle = (
      answer: Answer,
      message: JsonRpc.JSONRPCMessage,
      stateless: string | undefined,
      sentWith: string | undefined
    ): Effect.Effect<void, TransportError | SessionExpired | LegacyServer | StreamBroken, Scope.Scope> =>
      Effect.gen(function* () {
        const id = requestId(message)
        observe(answer, stateless)
        const contentType = (answer.headers["content-type"] ?? "").toLowerCase()
        if (answer.status === 202 || answer.status === 204) return
        // Refused before any session, as a legacy HTTP+SSE server refuses a POST: say so (the
        // auto transport falls back); a 404 for a session it gave: it forgot the session.
        // (Only before any answer: once the server has answered, a refusal is that request's failure.)
        if (
          stateless === undefined &&
          !answeredOnce &&
          sentWith === undefined &&
          [400, 404, 405].includes(answer.status)
        ) {
          // Unless the refusal is a JSON-RPC answer (a modern-only server's -32022 names its revisions).
          const refusal = contentType.startsWith("application/json") ? yield* jsonAnswer(answer, id) : undefined
          if (refusal !== undefined) return yield* offerAll(refusal)
          return yield* new LegacyServer({ server, status: answer.status })
        }
        if (answer.status === 404 && sentWith !== undefined) {
          // A late 404 for an older session must not forget the session that replaced it.
          if (sessionId === sentWith) sessionId = undefined
          listening = undefined
          return yield* new SessionExpired({ server })
        }
        if (
          stateless !== undefined &&
          answer.status >= 400 &&
          answer.status < 500 &&
          contentType.startsWith("application/json")
        ) {
          // 2026-07-28: a 4xx with a JSON-RPC body is that request's answer (-32022, -32020, -32601, …).
          const refusal = yield* jsonAnswer(answer, id)
          if (refusal !== undefined) return yield* offerAll(refusal)
          return yield* httpError(`HTTP ${answer.status} without a JSON-RPC answer`, { status: answer.status })
        }
        if (answer.status < 200 || answer.status >= 300) {
          const body = yield* readExcerpt(answer, 200)
          const retryAfter = Retry.parseRetryAfter(answer.headers["retry-after"], Date.now())
          return yield* httpError(`HTTP ${answer.status}${body === "" ? "" : `: ${body}`}`, {
            status: answer.status,
            ...(retryAfter === undefined ? {} : { retryAfter })
          })
        }
        if (contentType.startsWith("text/event-stream")) {
          // 2026-07-28 has no resumption: a broken stream loses the request, which is sent again.
          const { answered, ending } = yield* consumeSse(answer, id, stateless === undefined)
          if (stateless !== undefined && id !== undefined && !answered && !closed) {
            return yield* new StreamBroken({ server, reason: ending })
          }
          if (id !== undefined && !answered && !closed) {
            return yield* httpError(ending, { status: answer.status })
          }
          return
        }
        if (contentType.startsWith("application/json")) {
          const body = yield* Effect.either(answer.collect(maxBytes))
          const { items, error } = jsonOutcome(body, answer.status, id)
          yield* offerAll(items)
          if (error !== undefined) return yield* error
          return
        }
        const body = yield* readExcerpt(answer, 200)
        return yield* httpError(
          `unexpected content type ${contentType === "" ? "(none)" : contentType} with status ${answer.status}: ${body}`,
          { status: answer.status }
        )
      })

    /** POSTs `message` and handles the answer, in the calling fiber; failures become the request's items. */
    const post = (message: JsonRpc.JSONRPCMessage, extra: Readonly<Record<string, string>> | undefined) =>
      Effect.scoped(
        Effect.suspend(() => {
          const stateless = statelessVersionOf(message)
          const sentWith = stateless === undefined ? sessionId : undefined
          const headers =
            stateless === undefined ? headersFor(ACCEPT, extra) : statelessHeaders(stateless, message, extra)
          return Effect.flatMap(execute(message, headers), (answer) => handle(answer, message, stateless, sentWith))
        })
      ).pipe(Effect.catchAll((error) => failRequest(requestId(message), error)))

    /** The failure of the request `id` (or a warning, for a message nothing waits on), outside any fiber. */
    const failNow = (id: JsonRpc.RequestId | undefined, error: TransportError) => {
      if (id === undefined) runFork(Effect.logWarning(error.message))
      else inbound.unsafeOffer({ _tag: "Failed", id, error })
    }

    /**
     * Sends a stateful message over the fast route with no fiber: an empty or 2xx JSON answer
     * is handled in the route's callbacks, anything else by `handle` in a fiber of its own.
     * `false` when the route declined the message.
     */
    const sendFast = (
      route: FastRouteService,
      message: JsonRpc.JSONRPCMessage,
      extra: Readonly<Record<string, string>> | undefined
    ): boolean => {
      const id = requestId(message)
      const sentWith = sessionId
      const settled = () => {
        if (abort !== undefined) unanswered.delete(abort)
      }
      const abort: (() => void) | undefined = route.request(
        "POST",
        options.url,
        headersFor(ACCEPT, extra),
        JSON.stringify(message),
        {
          onAnswer: (answer) => {
            const status = answer.status
            if (!closed && status >= 200 && status < 300 && isJson(answer)) {
              observe(answer, undefined)
              // Under way until its body is read: closing aborts it.
              return answer.read(maxBytes, (body) => {
                settled()
                if (closed) return
                const { items, error } = jsonOutcome(body, status, id)
                for (const item of items) inbound.unsafeOffer(item)
                if (error !== undefined) failNow(id, error)
              })
            }
            settled()
            if (closed) return answer.release()
            if (status === 202 || status === 204) {
              observe(answer, undefined)
              return answer.drain()
            }
            runFork(
              handle(answer, message, undefined, sentWith).pipe(
                Effect.scoped,
                Effect.ensuring(Effect.sync(answer.release)),
                Effect.catchAll((error) => failRequest(id, error))
              )
            )
          },
          onError: (cause) => {
            settled()
            if (!closed) failNow(id, postFailed(cause))
          },
          // Authorization took over: the request goes again, through the `HttpClient`.
          onRefused: () => {
            settled()
            if (!closed) runFork(post(message, extra))
          }
        }
      )
      if (abort === undefined) return false
      unanswered.add(abort)
      return true
    }

    const listen = (forSession: string) =>
      Effect.scoped(
        Effect.gen(function* () {
          const response = yield* Effect.either(get(`GET ${options.url}`))
          if (response._tag === "Left")
            return yield* Effect.logDebug(`${server}: the GET listener failed to open: ${response.left}`)
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
        for (const abort of unanswered) abort()
        unanswered.clear()
        if (sessionId !== undefined) {
          const request = HttpClientRequest.del(options.url).pipe(
            HttpClientRequest.setHeaders(headersFor("application/json"))
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

    // Interruptible whatever the caller's region (a response is often sent from a handler's
    // onExit, which is not): closing must be able to abort a POST the server never answers.
    const forked = (message: JsonRpc.JSONRPCMessage, extra: Readonly<Record<string, string>> | undefined) =>
      Effect.asVoid(FiberSet.run(fibers, Effect.interruptible(post(message, extra))))

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
        const stateless = statelessVersionOf(message) !== undefined
        // A stateful message needs no fiber on the fast route (a 2026-07-28 request keeps one: its
        // cancellation is the interruption of its POST).
        if (fast !== undefined && !stateless) {
          const route = fast
          return Effect.suspend(() => (sendFast(route, message, extra) ? Effect.void : forked(message, extra)))
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
