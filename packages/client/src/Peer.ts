/**
 * The JSON-RPC peer: correlates requests with responses over a {@link Transport}. One
 * reader fiber per connection dispatches inbound messages: responses complete the pending
 * request with that id, inbound requests run their handler in their own fiber (cancellable
 * by `notifications/cancelled`), notifications go to subscribers. Outbound messages are
 * serialized. When the connection ends, every pending request fails at once with the
 * transport's error; nothing pending outlives the scope.
 *
 * The peer speaks JSON-RPC only; MCP methods, Schemas and revisions are the session's.
 */
import { JsonRpc, McpSchema } from "@effect-mcp/protocol"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberMap from "effect/FiberMap"
import * as Mailbox from "effect/Mailbox"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as PubSub from "effect/PubSub"
import type * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as Tracer from "effect/Tracer"
import type { AuthorizationError } from "./auth/AuthError.js"
import {
  DecodeError,
  JsonRpcFailure,
  type LegacyServer,
  RequestTimeout,
  RpcError,
  type SessionExpired,
  type StreamBroken,
  TransportError
} from "./McpError.js"
import { composeInbound, composeOutbound, Middleware } from "./Middleware.js"
import type { Incoming, TransportService } from "./Transport.js"

/** What an outbound request can fail with: request errors, and the transport's signals for the session. */
export type RequestFailure =
  | TransportError
  | AuthorizationError
  | SessionExpired
  | LegacyServer
  | StreamBroken
  | RpcError
  | RequestTimeout
  | DecodeError

/** A JSON object as it is on the wire. */
export type WireObject = { readonly [key: string]: unknown }

/** What one outbound request may ask for. */
export interface RequestOptions {
  /** No answer within this time fails the request and cancels it on the server. */
  readonly timeout?: Duration.DurationInput
  /** Progress notifications for this request restart the timeout. */
  readonly resetTimeoutOnProgress?: boolean
  /** The longest the request may take, progress or not. */
  readonly maxTotalTimeout?: Duration.DurationInput
  /** Asks for progress (a `progressToken` is sent) and receives each notification's params. */
  readonly onProgress?: (progress: WireObject) => Effect.Effect<void>
  /** Extra members for the request's `_meta`. */
  readonly meta?: WireObject
  /** Transport headers for this request (2026-07-28 `Mcp-Param-*` over HTTP). */
  readonly headers?: Readonly<Record<string, string>>
  /** Whether interruption sends `notifications/cancelled` (never for `initialize`). Default: true. */
  readonly cancellable?: boolean
  /** Extra attributes of the request's span. */
  readonly spanAttributes?: { readonly [key: string]: unknown }
  /** Told the request's id once it has one (a 2026-07-28 subscription is named by its request's id). */
  readonly onId?: (id: JsonRpc.RequestId) => void
}

/** A protocol violation the peer logged, counted and survived. */
export type Violation = "unknown-id" | "malformed" | "malformed-response"

/** Context of an inbound request, for its handler. */
export interface InboundRequest {
  readonly id: JsonRpc.RequestId
  readonly method: string
  readonly params: WireObject | undefined
}

/** A handler of inbound requests of one method. */
export type RequestHandler = (request: InboundRequest) => Effect.Effect<WireObject, JsonRpcFailure>

/** The peer's options. */
export interface PeerOptions {
  /** The server's name, for errors and logs; a function when the name is learned later (read when an error is made). */
  readonly server: string | (() => string)
  /** The default timeout of every request. */
  readonly requestTimeout: Duration.DurationInput
}

/** A running peer. */
export interface Peer {
  /** Sends a request and waits for its result (the raw wire object). */
  readonly request: (
    method: string,
    params: WireObject | undefined,
    options?: RequestOptions
  ) => Effect.Effect<WireObject, RequestFailure>
  /**
   * Starts a request from plain code, with no fiber: `onDone` is called once with its outcome,
   * from the transport's read, the timer or the connection's end (at once when the write fails or
   * throws), unless the request was given up first. Returns a function that gives the request up
   * (it leaves the map and is cancelled on the server, as an interrupted `request` is), or
   * `undefined` when it cannot start so (the transport has no `sendNow`, middleware is installed,
   * headers are asked for, or the connection has ended): then use `request`. It makes no span;
   * timeouts and progress are `request`'s. `onDone` must not throw.
   */
  readonly begin: (
    method: string,
    params: WireObject | undefined,
    options: RequestOptions,
    onDone: (outcome: Exit.Exit<WireObject, RequestFailure>) => void
  ) => (() => void) | undefined
  /** Whether `begin` can start requests now (its transport writes at once, no middleware, the connection is open). */
  readonly canBegin: () => boolean
  /** Sends a notification. */
  readonly notify: (method: string, params?: WireObject) => Effect.Effect<void, TransportError>
  /** Handles inbound requests of a method (replacing any earlier handler). */
  readonly handle: (method: string, handler: RequestHandler) => Effect.Effect<void>
  /** Subscribes to inbound notifications, from now on, for as long as the scope lives. */
  readonly subscribe: Effect.Effect<Queue.Dequeue<JsonRpc.JSONRPCNotification>, never, Scope.Scope>
  /** Every inbound notification from the moment the stream is run. */
  readonly notifications: Stream.Stream<JsonRpc.JSONRPCNotification>
  /**
   * Runs `f` on each inbound notification as the reader dispatches it, in order and before
   * subscribers see it, for as long as the scope lives. For quick bookkeeping (dropping a cache):
   * the reader waits for it, and no fiber is kept for it.
   */
  readonly observe: (
    f: (notification: JsonRpc.JSONRPCNotification) => Effect.Effect<void>
  ) => Effect.Effect<void, never, Scope.Scope>
  /** Completes when the connection has ended: with the transport's error, or none for a clean end. */
  readonly closed: Effect.Effect<Option.Option<TransportError>>
  /**
   * Runs `f` when the connection ends (as `closed` completes; at once if it has), unless the scope
   * closed first: a client closing its own connection does not see it. No fiber is kept for it.
   */
  readonly whenClosed: (
    f: (error: Option.Option<TransportError>) => Effect.Effect<void>
  ) => Effect.Effect<void, never, Scope.Scope>
  /** Counters, for tests and health checks. */
  readonly stats: Effect.Effect<{
    readonly pending: number
    readonly inbound: number
    readonly violations: Readonly<Record<Violation, number>>
  }>
}

/** An outstanding request: one entry in the correlation map, no fiber or `Deferred` of its own. */
interface Pending {
  readonly id: JsonRpc.RequestId
  readonly method: string
  readonly onProgress: ((progress: WireObject) => Effect.Effect<void>) | undefined
  readonly startedAt: number
  /** No answer (or, with `resetOnProgress`, no progress) for this long times the request out. */
  readonly idle: Duration.Duration
  readonly resetOnProgress: boolean
  /** The longest the request may take, progress or not. */
  readonly total: Duration.Duration | undefined
  /** Whether giving up on it sends `notifications/cancelled`. */
  readonly cancellable: boolean
  lastActivity: number
  /** Resumes the waiting caller; set once the request is written and waits. */
  resume: ((outcome: Exit.Exit<WireObject, RequestFailure>) => void) | undefined
  /** The outcome, when it came before the caller waited. */
  early: Exit.Exit<WireObject, RequestFailure> | undefined
}

/** When a pending request times out, and which of its limits that is. */
const dueOf = (entry: Pending): { readonly at: number; readonly kind: "idle" | "total" } => {
  const idleAt = (entry.resetOnProgress ? entry.lastActivity : entry.startedAt) + Duration.toMillis(entry.idle)
  const totalAt =
    entry.total === undefined ? Number.POSITIVE_INFINITY : entry.startedAt + Duration.toMillis(entry.total)
  return totalAt < idleAt ? { at: totalAt, kind: "total" } : { at: idleAt, kind: "idle" }
}

/** How many cancelled request ids the peer remembers, to recognise answers that cross the cancellation. */
const MAX_REMEMBERED_CANCELLATIONS = 1024

const violationsCounter = Metric.counter("effect_mcp_protocol_violations", {
  description: "Inbound messages the client could not use: unknown ids, malformed messages"
})

const idOf = (raw: unknown): JsonRpc.RequestId | undefined => {
  if (!McpSchema.isJsonObject(raw)) return undefined
  const id = raw.id
  return typeof id === "string" || (typeof id === "number" && Number.isInteger(id)) ? id : undefined
}

/** Effect's default tracer: with it and no parent span, nobody is tracing and a request makes no span. */
const nativeTracer = Effect.runSync(Effect.tracer)

/** Builds a peer over a transport; its reader fiber and inbound handlers live in the scope. */
export const make = (transport: TransportService, options: PeerOptions): Effect.Effect<Peer, never, Scope.Scope> =>
  Effect.gen(function* () {
    const configured = options.server
    const name = typeof configured === "string" ? () => configured : configured
    const defaultTimeout = Duration.decode(options.requestTimeout)
    const pending = new Map<JsonRpc.RequestId, Pending>()
    const handlers = new Map<string, RequestHandler>()
    const violations: Record<Violation, number> = { "unknown-id": 0, malformed: 0, "malformed-response": 0 }
    let nextId = 0
    // Ids we cancelled (interrupted or timed out) whose answer may still be on its way: the spec
    // expects that race, so a late answer is noted at debug level, not counted as a violation.
    const cancelled = new Set<JsonRpc.RequestId>()
    let ended: Option.Option<TransportError> | undefined
    const closed = yield* Deferred.make<Option.Option<TransportError>>()
    const inbound = yield* FiberMap.make<JsonRpc.RequestId>()
    const hub = yield* PubSub.unbounded<JsonRpc.JSONRPCNotification>()
    // The clock of requests started without a fiber (the timer's own).
    const clock = yield* Effect.clock
    const writeLock = yield* Effect.makeSemaphore(1)
    const interceptors = yield* Middleware

    const violation = (kind: Violation, detail: unknown) => {
      violations[kind]++
      return Effect.logWarning(`mcp protocol violation (${kind}) from ${name()}`, detail).pipe(
        Effect.zipRight(Metric.increment(Metric.tagged(violationsCounter, "kind", kind)))
      )
    }

    /** Completes a pending request (it leaves the map): resumes its caller, or keeps the outcome for it. */
    const settle = (entry: Pending, outcome: Exit.Exit<WireObject, RequestFailure>) => {
      pending.delete(entry.id)
      if (entry.resume === undefined) entry.early = outcome
      else entry.resume(outcome)
    }

    // Headers of requests being written, by id: they bypass the middleware, which sees messages only.
    const headersOf = new Map<JsonRpc.RequestId, Readonly<Record<string, string>>>()
    const send = composeOutbound(interceptors, name, (message) =>
      "id" in message && "method" in message && headersOf.size > 0
        ? transport.send(message, headersOf.get(message.id))
        : transport.send(message)
    )
    // Interceptors may suspend, so messages pass them one at a time; without any, the
    // transport's own send keeps the order and no lock is needed.
    const write =
      interceptors.length === 0 ? send : (message: JsonRpc.JSONRPCMessage) => writeLock.withPermits(1)(send(message))

    const gone = () =>
      Option.getOrElse(
        ended ?? Option.none(),
        () => new TransportError({ server: name(), reason: "the connection is closed" })
      )

    const respond = (id: JsonRpc.RequestId, exit: Exit.Exit<WireObject, JsonRpcFailure>) => {
      if (Exit.isSuccess(exit)) return write({ jsonrpc: "2.0", id, result: exit.value })
      if (Cause.isInterruptedOnly(exit.cause)) return Effect.void // cancelled: no response
      const failure = Cause.failureOption(exit.cause)
      const error = Option.isSome(failure)
        ? { code: failure.value.code, message: failure.value.errorMessage, ...dataOf(failure.value.data) }
        : { code: JsonRpc.ErrorCode.InternalError, message: "Internal error" }
      return Effect.zipRight(
        Option.isNone(failure) ? Effect.logError(`handler of a request from ${name()} died`, exit.cause) : Effect.void,
        write({ jsonrpc: "2.0", id, error })
      )
    }

    const onRequest = (message: JsonRpc.JSONRPCRequest): Effect.Effect<void> => {
      const { id, method } = message
      if (method === "ping") return Effect.ignore(write({ jsonrpc: "2.0", id, result: {} }))
      const handler = handlers.get(method)
      if (handler === undefined) {
        return Effect.ignore(
          write({
            jsonrpc: "2.0",
            id,
            error: { code: JsonRpc.ErrorCode.MethodNotFound, message: `Method not found: ${method}` }
          })
        )
      }
      const run = Effect.suspend(() => handler({ id, method, params: message.params })).pipe(
        Effect.onExit((exit) => Effect.ignore(respond(id, exit)))
      )
      return Effect.asVoid(FiberMap.run(inbound, id, run))
    }

    const observers = new Set<(notification: JsonRpc.JSONRPCNotification) => Effect.Effect<void>>()
    const publish = (message: JsonRpc.JSONRPCNotification): Effect.Effect<void> =>
      observers.size === 0
        ? Effect.asVoid(PubSub.publish(hub, message))
        : Effect.zipRight(
            runEach(observers, (observer) => observer(message)),
            PubSub.publish(hub, message)
          )

    const onNotification = (message: JsonRpc.JSONRPCNotification): Effect.Effect<void> => {
      const params = message.params
      if (message.method === "notifications/cancelled" && params !== undefined) {
        const requestId = params.requestId
        if (typeof requestId === "string" || typeof requestId === "number") {
          return Effect.zipRight(FiberMap.remove(inbound, requestId), publish(message))
        }
      }
      if (message.method === "notifications/progress" && params !== undefined) {
        const token = params.progressToken
        const entry = typeof token === "string" || typeof token === "number" ? pending.get(token) : undefined
        if (entry !== undefined) {
          return Effect.gen(function* () {
            entry.lastActivity = yield* Clock.currentTimeMillis
            // A caller's progress callback that fails is logged; it does not stop the reader.
            const onProgress = entry.onProgress
            if (onProgress !== undefined) {
              yield* isolated(
                Effect.suspend(() => onProgress(params)),
                "a progress callback failed"
              )
            }
            yield* publish(message)
          })
        }
      }
      return publish(message)
    }

    /** The outcome a response carries, for the request it answers. */
    const outcomeOf = (
      message: JsonRpc.JSONRPCResultResponse | JsonRpc.JSONRPCErrorResponse,
      entry: Pending
    ): Exit.Exit<WireObject, RequestFailure> =>
      "result" in message
        ? Exit.succeed(message.result)
        : Exit.fail(
            new RpcError({
              server: name(),
              method: entry.method,
              code: message.error.code,
              errorMessage: message.error.message,
              ...dataOf(message.error.data)
            })
          )

    const onResponse = (message: JsonRpc.JSONRPCResultResponse | JsonRpc.JSONRPCErrorResponse) => {
      const id = message.id
      const entry = id === undefined ? undefined : pending.get(id)
      if (id !== undefined && entry === undefined && cancelled.delete(id)) {
        return Effect.logDebug(`${name()}: an answer to request ${id} arrived after it was cancelled`)
      }
      if (entry === undefined) return violation("unknown-id", { id })
      return Effect.sync(() => settle(entry, outcomeOf(message, entry)))
    }

    const dispatchMessage = (message: JsonRpc.JSONRPCMessage): Effect.Effect<void> => {
      if (JsonRpc.isResultResponse(message) || JsonRpc.isErrorResponse(message)) return onResponse(message)
      if (JsonRpc.isRequest(message)) return onRequest(message)
      return onNotification(message)
    }

    const dispatchInbound = composeInbound(interceptors, name, dispatchMessage)

    const dispatch = (item: Incoming): Effect.Effect<void> => {
      if (item._tag === "Message") return dispatchInbound(item.message)
      if (item._tag === "Failed") {
        const failed = pending.get(item.id)
        return failed === undefined ? Effect.void : Effect.sync(() => settle(failed, Exit.fail(item.error)))
      }
      const id = idOf(item.raw)
      const entry = id === undefined ? undefined : pending.get(id)
      const looksLikeResponse = McpSchema.isJsonObject(item.raw) && !Object.hasOwn(item.raw, "method")
      if (entry !== undefined && looksLikeResponse) {
        const error = new DecodeError({
          server: name(),
          method: entry.method,
          issue: `malformed response: ${ParseResult.TreeFormatter.formatErrorSync(item.error)}`
        })
        return Effect.zipRight(
          violation("malformed-response", item.raw),
          Effect.sync(() => settle(entry, Exit.fail(error)))
        )
      }
      return violation("malformed", item.raw)
    }

    const closers = new Set<(error: Option.Option<TransportError>) => Effect.Effect<void>>()
    const end = (error: Option.Option<TransportError>) =>
      Effect.suspend(() => {
        ended = error
        const failure = Exit.fail(gone())
        for (const entry of [...pending.values()]) settle(entry, failure)
        return Deferred.succeed(closed, error).pipe(
          Effect.zipRight(PubSub.shutdown(hub)),
          Effect.zipRight(runEach(closers, (closer) => closer(error)))
        )
      })

    // Inbound items come as plain calls from the transport. An answer to a pending request
    // resumes its caller there and then; everything else (requests, notifications, faults, and
    // every message when middleware is installed) is dispatched in order by one fiber. An answer
    // takes the direct way only while that fiber has nothing queued, so the order holds.
    const queued = yield* Mailbox.make<Incoming, TransportError>()
    let backlog = 0
    const direct = interceptors.length === 0
    const deliver = (item: Incoming) => {
      if (direct && backlog === 0 && item._tag === "Message") {
        const message = item.message
        if ("id" in message && !("method" in message) && message.id !== undefined) {
          const entry = pending.get(message.id)
          if (entry !== undefined) return settle(entry, outcomeOf(message, entry))
        }
      }
      backlog++
      queued.unsafeOffer(item)
    }
    yield* transport.run(deliver).pipe(
      Effect.exit,
      Effect.flatMap((exit) => queued.done(exit)),
      Effect.forkScoped
    )
    const reader = Effect.gen(function* () {
      while (true) {
        const [items, done] = yield* queued.takeAll
        for (const item of items) {
          yield* dispatch(item)
          backlog--
        }
        if (done) return
      }
    })
    yield* reader.pipe(
      Effect.matchCauseEffect({
        onSuccess: () => end(Option.none()),
        onFailure: (cause) => {
          const failure = Cause.failureOption(cause)
          return end(
            Option.isSome(failure)
              ? failure
              : Option.some(
                  new TransportError({ server: name(), reason: "the reader stopped", cause: Cause.pretty(cause) })
                )
          )
        }
      }),
      Effect.forkScoped
    )
    yield* Effect.addFinalizer(() =>
      Effect.suspend(() =>
        ended === undefined
          ? end(Option.some(new TransportError({ server: name(), reason: "the client was closed" })))
          : Effect.void
      )
    )

    /** Remembers a cancelled id (its answer may still come) and says what tells the server. */
    const cancellation = (id: JsonRpc.RequestId, reason: string): JsonRpc.JSONRPCNotification => {
      cancelled.add(id)
      // Bounded: the oldest ids go first (a Set iterates in insertion order).
      if (cancelled.size > MAX_REMEMBERED_CANCELLATIONS) {
        for (const old of cancelled) {
          cancelled.delete(old)
          break
        }
      }
      return { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason } }
    }
    const cancel = (id: JsonRpc.RequestId, reason: string) =>
      Effect.suspend(() => Effect.ignore(write(cancellation(id, reason))))

    // One timer for every pending request: it sleeps until the earliest deadline, times out what
    // is due (and cancels it on the server), and sleeps again. A request whose deadline comes
    // before the timer's wakes it early. (Cheaper than a sleep per request.)
    let timerWakesAt = Number.POSITIVE_INFINITY
    const wakeTimer = yield* Effect.makeLatch(false)
    const expire = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      let next = Number.POSITIVE_INFINITY
      const due: Array<readonly [Pending, RequestTimeout]> = []
      for (const entry of pending.values()) {
        const at = dueOf(entry)
        if (at.at <= now) {
          const timeout = at.kind === "total" && entry.total !== undefined ? entry.total : entry.idle
          due.push([entry, new RequestTimeout({ server: name(), method: entry.method, timeout, kind: at.kind })])
        } else if (at.at < next) next = at.at
      }
      for (const [entry, error] of due) {
        // Settled meanwhile (answered, or abandoned and cancelled by its caller while an earlier
        // cancellation was being written): nothing to time out or cancel twice.
        if (pending.get(entry.id) !== entry) continue
        settle(entry, Exit.fail(error))
        if (entry.cancellable) yield* cancel(entry.id, error.message)
      }
      timerWakesAt = next
      yield* wakeTimer.close
      return next === Number.POSITIVE_INFINITY ? Option.none() : Option.some(Duration.millis(next - now))
    })
    yield* expire.pipe(
      Effect.flatMap((delay) =>
        Option.match(delay, {
          onNone: () => wakeTimer.await,
          onSome: (millis) => Effect.raceFirst(Effect.sleep(millis), wakeTimer.await)
        })
      ),
      Effect.forever,
      Effect.interruptible,
      Effect.forkScoped
    )

    /** Gives up on a request its caller no longer waits for: it leaves the map and is cancelled on the server. */
    const abandon = (entry: Pending) =>
      Effect.suspend(() =>
        pending.delete(entry.id) && entry.cancellable ? cancel(entry.id, "The request was cancelled") : Effect.void
      )

    /** Waits for the answer, resumed by `settle` whoever calls it (interruption is `exchange`'s to handle). */
    const answer = (entry: Pending) =>
      Effect.async<WireObject, RequestFailure>((resume) => {
        if (entry.early !== undefined) return resume(entry.early)
        entry.resume = resume
      })

    /** Writes a request and waits for its answer. Interrupted while writing, it is abandoned too. */
    const exchange = (
      entry: Pending,
      message: JsonRpc.JSONRPCRequest,
      headers: Readonly<Record<string, string>> | undefined
    ) => {
      const written =
        headers === undefined
          ? write(message)
          : Effect.ensuring(
              Effect.suspend(() => {
                headersOf.set(entry.id, headers)
                return write(message)
              }),
              Effect.sync(() => headersOf.delete(entry.id))
            )
      // One exit handler for both steps: interrupted while writing or waiting, the request is
      // abandoned (cancelled on the server); a write that failed leaves the map (an answer that
      // failed has left it already).
      return Effect.onExit(Effect.zipRight(written, answer(entry)), (exit) =>
        Exit.isSuccess(exit)
          ? Effect.void
          : Exit.isInterrupted(exit)
            ? abandon(entry)
            : Effect.sync(() => pending.delete(entry.id))
      )
    }

    // A span is made only when someone traces (a parent span, or a tracer other than Effect's
    // default): then the request's `traceparent` joins the server's trace to ours. It is made,
    // not entered: a request has no child spans, and entering one copies the fiber's references.
    /** A new entry for a request (not in the map yet). */
    const entryOf = (method: string, requestOptions: RequestOptions, now: number): Pending => {
      const id = nextId++
      requestOptions.onId?.(id)
      return {
        id,
        method,
        onProgress: requestOptions.onProgress,
        startedAt: now,
        idle: requestOptions.timeout === undefined ? defaultTimeout : Duration.decode(requestOptions.timeout),
        resetOnProgress: requestOptions.resetTimeoutOnProgress === true,
        total:
          requestOptions.maxTotalTimeout === undefined ? undefined : Duration.decode(requestOptions.maxTotalTimeout),
        cancellable: requestOptions.cancellable !== false,
        lastActivity: now,
        resume: undefined,
        early: undefined
      }
    }
    /** The request on the wire: its params, with a `_meta` when progress, trace context or extra members ask for one. */
    const messageOf = (
      entry: Pending,
      params: WireObject | undefined,
      requestOptions: RequestOptions,
      meta: WireObject | undefined
    ): JsonRpc.JSONRPCRequest => {
      const extra =
        requestOptions.onProgress === undefined
          ? meta === undefined
            ? requestOptions.meta
            : { ...meta, ...requestOptions.meta }
          : { progressToken: entry.id, ...meta, ...requestOptions.meta }
      return {
        jsonrpc: "2.0",
        id: entry.id,
        method: entry.method,
        params: extra === undefined ? (params ?? {}) : { ...params, _meta: { ...metaOf(params), ...extra } }
      }
    }
    /** Puts an entry in the map, waking the timer when its deadline comes first. */
    const track = (entry: Pending) => {
      pending.set(entry.id, entry)
      if (dueOf(entry).at < timerWakesAt) wakeTimer.unsafeOpen()
    }

    const request: Peer["request"] = (method, params, requestOptions = {}) =>
      Effect.withFiberRuntime((fiber) => {
        if (ended !== undefined) return Effect.fail(gone())
        const now = Context.get(fiber.currentDefaultServices, Clock.Clock).unsafeCurrentTimeMillis()
        const entry = entryOf(method, requestOptions, now)
        const traced = fiber.currentSpan !== undefined || fiber.currentTracer !== nativeTracer
        if (!traced) {
          track(entry)
          return exchange(entry, messageOf(entry, params, requestOptions, undefined), requestOptions.headers)
        }
        return Effect.flatMap(
          Effect.makeSpan(`mcp.request ${method}`, {
            kind: "client",
            captureStackTrace: false,
            attributes: { "mcp.server": name(), "mcp.method": method, ...requestOptions.spanAttributes }
          }),
          (span) => {
            const traceState = Context.get(fiber.currentContext, TraceState)
            track(entry)
            return exchange(
              entry,
              messageOf(entry, params, requestOptions, {
                traceparent: traceparent(span),
                ...(traceState === undefined ? {} : { tracestate: traceState })
              }),
              requestOptions.headers
            ).pipe(
              Effect.onExit((exit) =>
                Effect.flatMap(Clock.currentTimeNanos, (time) => Effect.sync(() => span.end(time, exit)))
              )
            )
          }
        )
      })

    // Only a transport that writes at once, with nothing between the peer and it.
    const sendNow = interceptors.length === 0 ? transport.sendNow : undefined
    const begin: Peer["begin"] = (method, params, requestOptions, onDone) => {
      if (sendNow === undefined || ended !== undefined || requestOptions.headers !== undefined) return undefined
      const entry = entryOf(method, requestOptions, clock.unsafeCurrentTimeMillis())
      entry.resume = onDone
      track(entry)
      // A write that throws (a value JSON cannot encode) is the request's defect, as it is `request`'s.
      let error: TransportError | undefined
      try {
        error = sendNow(messageOf(entry, params, requestOptions, undefined))
      } catch (defect) {
        if (pending.get(entry.id) === entry) settle(entry, Exit.die(defect))
        return () => {}
      }
      // Settled meanwhile only by an answer delivered within the write itself.
      if (error !== undefined && pending.get(entry.id) === entry) settle(entry, Exit.fail(error))
      return () => {
        if (pending.get(entry.id) !== entry) return
        pending.delete(entry.id)
        if (entry.cancellable) sendNow(cancellation(entry.id, "The request was cancelled"))
      }
    }

    return {
      request,
      begin,
      canBegin: () => sendNow !== undefined && ended === undefined,
      notify: (method, params) =>
        Effect.suspend(() =>
          ended !== undefined
            ? Effect.fail(gone())
            : write(params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params })
        ),
      handle: (method, handler) => Effect.sync(() => void handlers.set(method, handler)),
      subscribe: PubSub.subscribe(hub),
      notifications: Stream.fromPubSub(hub),
      observe: (f) => registered(observers, f),
      closed: Deferred.await(closed),
      whenClosed: (f) => Effect.suspend(() => (ended === undefined ? registered(closers, f) : f(ended))),
      stats: Effect.map(FiberMap.size(inbound), (inboundCount) => ({
        pending: pending.size,
        inbound: inboundCount,
        violations: { ...violations }
      }))
    } satisfies Peer
  })

/**
 * Runs `run` for each callback registered when it starts, skipping one unregistered meanwhile; a
 * callback that fails or dies is logged, and neither stops the others nor the peer's reader.
 */
const runEach = <F>(set: Set<F>, run: (f: F) => Effect.Effect<void>): Effect.Effect<void> =>
  Effect.forEach(
    Array.from(set),
    (f) =>
      isolated(
        Effect.suspend(() => (set.has(f) ? run(f) : Effect.void)),
        "a peer callback failed"
      ),
    { discard: true }
  )

/** A callback's effect whose failure or defect is logged, never the reader's (interruption is ignored). */
const isolated = (effect: Effect.Effect<void>, what: string): Effect.Effect<void> =>
  Effect.catchAllCause(effect, (cause) => (Cause.isInterruptedOnly(cause) ? Effect.void : Effect.logError(what, cause)))

/** `f` in `set` for as long as the scope lives. */
const registered = <F>(set: Set<F>, f: F): Effect.Effect<void, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => void set.add(f)),
    () => Effect.sync(() => void set.delete(f))
  )

/**
 * The W3C `tracestate` to send beside `traceparent`, when the host has one (for example from
 * the inbound request that started this work). Effect's spans carry no trace state of their own.
 */
export class TraceState extends Context.Reference<TraceState>()("@effect-mcp/client/TraceState", {
  defaultValue: (): string | undefined => undefined
}) {}

/** The W3C `traceparent` of a span, so that the server's trace joins ours. */
const traceparent = (span: Tracer.Span): string => `00-${span.traceId}-${span.spanId}-${span.sampled ? "01" : "00"}`

const dataOf = (data: unknown): { readonly data?: unknown } => (data === undefined ? {} : { data })

const metaOf = (params: WireObject | undefined): WireObject => {
  const meta = params?._meta
  return McpSchema.isJsonObject(meta) ? meta : {}
}

/** Fails an inbound request's handler with a JSON-RPC error. */
export const failWith = (code: number, message: string, data?: unknown) =>
  new JsonRpcFailure({ code, errorMessage: message, ...dataOf(data) })
