/**
 * The JSON-RPC peer: correlates requests with responses over a transport. Its parts are the table
 * of outstanding requests with their deadlines (`pending.ts`), the inbound side (`inbound.ts`) and
 * the outbound side (`outbound.ts`); this module reads the transport and starts requests.
 *
 * Inbound items come as plain calls from the transport. An answer to an outstanding request
 * resumes its caller there and then; everything else (requests, notifications, faults, and every
 * message when middleware is installed) is dispatched in order by one fiber, and an answer takes
 * the direct way only while that fiber has nothing queued, so the order of the wire holds. When the
 * connection ends, every outstanding request fails at once with the transport's error; nothing
 * outstanding outlives the scope. The peer speaks JSON-RPC only: MCP methods, Schemas and
 * revisions are the session's.
 */
import { type JsonRpc, McpSchema } from "@effect-mcp/protocol"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Mailbox from "effect/Mailbox"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as Tracer from "effect/Tracer"
import { Middleware } from "../../Middleware.js"
import { JsonRpcFailure, TransportError } from "../../PeerError.js"
import type { Incoming, TransportService } from "../../Transport.js"
import * as Inbound from "./inbound.js"
import * as Outbound from "./outbound.js"
import * as Pending from "./pending.js"
import type { Peer, PeerOptions, RequestFailure, RequestOptions, WireObject } from "./types.js"

export type * from "./types.js"

/**
 * The W3C `tracestate` to send beside `traceparent`, when the host has one (for example from
 * the inbound request that started this work). Effect's spans carry no trace state of their own.
 */
export class TraceState extends Context.Reference<TraceState>()("@effect-mcp/jsonrpc/TraceState", {
  defaultValue: (): string | undefined => undefined
}) {}

/** The W3C `traceparent` of a span, so that the server's trace joins ours. */
const traceparent = (span: Tracer.Span): string => `00-${span.traceId}-${span.spanId}-${span.sampled ? "01" : "00"}`

const dataOf = (data: unknown): { readonly data?: unknown } => (data === undefined ? {} : { data })

const metaOf = (params: WireObject | undefined): WireObject => {
  const meta = params?._meta
  return McpSchema.isJsonObject(meta) ? meta : {}
}

/** Effect's default tracer: with it and no parent span, nobody is tracing and a request makes no span. */
const nativeTracer = Effect.runSync(Effect.tracer)

/** Fails an inbound request's handler with a JSON-RPC error. */
export const failWith = (code: number, message: string, data?: unknown) =>
  new JsonRpcFailure({ code, errorMessage: message, ...dataOf(data) })

/** `f` in `set` for as long as the scope lives. */
const registered = <F>(set: Set<F>, f: F): Effect.Effect<void, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => void set.add(f)),
    () => Effect.sync(() => void set.delete(f))
  )

/** The request on the wire: its params, with a `_meta` when progress, trace context or extra members ask for one. */
const messageOf = (
  entry: Pending.Entry,
  params: WireObject | undefined,
  options: RequestOptions,
  meta: WireObject | undefined
): JsonRpc.JSONRPCRequest => {
  const extra =
    options.onProgress === undefined
      ? meta === undefined
        ? options.meta
        : { ...meta, ...options.meta }
      : { progressToken: entry.id, ...meta, ...options.meta }
  return {
    jsonrpc: "2.0",
    id: entry.id,
    method: entry.method,
    params: extra === undefined ? (params ?? {}) : { ...params, _meta: { ...metaOf(params), ...extra } }
  }
}

/** Builds a peer over a transport; its reader fiber and inbound handlers live in the scope. */
export const make = (transport: TransportService, options: PeerOptions): Effect.Effect<Peer, never, Scope.Scope> =>
  Effect.gen(function* () {
    const configured = options.server
    const server = typeof configured === "string" ? () => configured : configured
    let ended: Option.Option<TransportError> | undefined
    const closed = yield* Deferred.make<Option.Option<TransportError>>()
    const clock = yield* Effect.clock
    const interceptors = yield* Middleware
    const outbound = yield* Outbound.make(transport, interceptors, server)

    /** Remembers a cancelled id (its answer may still come) and says what tells the server. */
    const cancellation = (id: JsonRpc.RequestId, reason: string): JsonRpc.JSONRPCNotification => {
      pending.forget(id)
      return { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason } }
    }
    const cancel = (id: JsonRpc.RequestId, reason: string) =>
      Effect.suspend(() => Effect.ignore(outbound.write(cancellation(id, reason))))
    const pending: Pending.Pending = yield* Pending.make({
      server,
      defaultTimeout: Duration.decode(options.requestTimeout),
      cancel: (entry, reason) => cancel(entry.id, reason)
    })
    const inbound = yield* Inbound.make({
      server,
      pending,
      interceptors,
      write: outbound.write,
      answerMalformed: options.answerMalformed === true
    })

    const gone = () =>
      Option.getOrElse(
        ended ?? Option.none(),
        () => new TransportError({ server: server(), reason: "the connection is closed" })
      )
    const closers = new Set<(error: Option.Option<TransportError>) => Effect.Effect<void>>()
    const end = (error: Option.Option<TransportError>) =>
      Effect.suspend(() => {
        ended = error
        pending.completeAll(Exit.fail(gone()))
        return Deferred.succeed(closed, error).pipe(
          Effect.zipRight(PubSub.shutdown(inbound.hub)),
          Effect.zipRight(Inbound.runEach(closers, (closer) => closer(error)))
        )
      })

    const queued = yield* Mailbox.make<Incoming, TransportError>()
    let backlog = 0
    const direct = interceptors.length === 0
    const deliver = (item: Incoming) => {
      if (direct && backlog === 0 && item._tag === "Message") {
        const message = item.message
        if ("id" in message && !("method" in message) && message.id !== undefined) {
          const entry = pending.get(message.id)
          if (entry !== undefined) return pending.complete(entry, inbound.outcomeOf(message, entry))
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
          yield* inbound.dispatch(item)
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
                  new TransportError({ server: server(), reason: "the reader stopped", cause: Cause.pretty(cause) })
                )
          )
        }
      }),
      Effect.forkScoped
    )
    yield* Effect.addFinalizer(() =>
      Effect.suspend(() =>
        ended === undefined
          ? end(Option.some(new TransportError({ server: server(), reason: "the client was closed" })))
          : Effect.void
      )
    )

    /** Gives up on a request its caller no longer waits for: it leaves the table and is cancelled on the server. */
    const abandon = (entry: Pending.Entry) =>
      Effect.suspend(() =>
        pending.remove(entry) && entry.cancellable ? cancel(entry.id, "The request was cancelled") : Effect.void
      )

    /** Waits for the outcome, resumed by `complete` whoever calls it (interruption is `exchange`'s to handle). */
    const outcome = (entry: Pending.Entry) =>
      Effect.async<WireObject, RequestFailure>((resume) => {
        if (entry.early !== undefined) return resume(entry.early)
        entry.resume = resume
      })

    /** Writes a request and waits for its outcome. Interrupted while writing or waiting, it is abandoned. */
    const exchange = (
      entry: Pending.Entry,
      message: JsonRpc.JSONRPCRequest,
      headers: Readonly<Record<string, string>> | undefined
    ) =>
      Effect.onExit(
        Effect.zipRight(
          headers === undefined ? outbound.write(message) : outbound.writeWithHeaders(message, headers),
          outcome(entry)
        ),
        (exit) =>
          Exit.isSuccess(exit)
            ? Effect.void
            : Exit.isInterrupted(exit)
              ? abandon(entry)
              : Effect.sync(() => void pending.remove(entry))
      )

    // A span is made only when someone traces (a parent span, or a tracer other than Effect's
    // default): then the request's `traceparent` joins the server's trace to ours. It is made,
    // not entered: a request has no child spans, and entering one copies the fiber's references.
    const request: Peer["request"] = (method, params, requestOptions = {}) =>
      Effect.withFiberRuntime((fiber) => {
        if (ended !== undefined) return Effect.fail(gone())
        const now = Context.get(fiber.currentDefaultServices, Clock.Clock).unsafeCurrentTimeMillis()
        const entry = pending.entryOf(method, requestOptions, now)
        const traced = fiber.currentSpan !== undefined || fiber.currentTracer !== nativeTracer
        if (!traced) {
          pending.track(entry)
          return exchange(entry, messageOf(entry, params, requestOptions, undefined), requestOptions.headers)
        }
        return Effect.flatMap(
          Effect.makeSpan(`mcp.request ${method}`, {
            kind: "client",
            captureStackTrace: false,
            attributes: { "mcp.server": server(), "mcp.method": method, ...requestOptions.spanAttributes }
          }),
          (span) => {
            const traceState = Context.get(fiber.currentContext, TraceState)
            pending.track(entry)
            const meta = {
              traceparent: traceparent(span),
              ...(traceState === undefined ? {} : { tracestate: traceState })
            }
            return exchange(entry, messageOf(entry, params, requestOptions, meta), requestOptions.headers).pipe(
              Effect.onExit((exit) =>
                Effect.flatMap(Clock.currentTimeNanos, (time) => Effect.sync(() => span.end(time, exit)))
              )
            )
          }
        )
      })

    const writeNow = outbound.writeNow
    const unsafeRequest: Peer["unsafeRequest"] = (method, params, requestOptions, onDone) => {
      if (writeNow === undefined || ended !== undefined || requestOptions.headers !== undefined) return undefined
      const entry = pending.entryOf(method, requestOptions, clock.unsafeCurrentTimeMillis())
      entry.resume = onDone
      pending.track(entry)
      // A write that throws (a value JSON cannot encode) is the request's defect, as it is `request`'s.
      let error: TransportError | undefined
      try {
        error = writeNow(messageOf(entry, params, requestOptions, undefined))
      } catch (defect) {
        if (pending.has(entry)) pending.complete(entry, Exit.die(defect))
        return () => {}
      }
      // Completed meanwhile only by an answer delivered within the write itself.
      if (error !== undefined && pending.has(entry)) pending.complete(entry, Exit.fail(error))
      return () => {
        if (!pending.has(entry)) return
        pending.remove(entry)
        if (entry.cancellable) writeNow(cancellation(entry.id, "The request was cancelled"))
      }
    }

    const observers = inbound.observers
    return {
      request,
      unsafeRequest,
      notify: (method, params) =>
        Effect.suspend(() =>
          ended !== undefined
            ? Effect.fail(gone())
            : outbound.write(params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params })
        ),
      handle: (method, handler) => Effect.sync(() => void inbound.handlers.set(method, handler)),
      subscribe: PubSub.subscribe(inbound.hub),
      notifications: Stream.fromPubSub(inbound.hub),
      observe: (f) => registered(observers, f),
      closed: Deferred.await(closed),
      hasEnded: () => ended !== undefined,
      whenClosed: (f) => Effect.suspend(() => (ended === undefined ? registered(closers, f) : f(ended))),
      stats: Effect.map(inbound.running, (running) => ({
        pending: pending.size(),
        inbound: running,
        violations: { ...inbound.violations }
      }))
    } satisfies Peer
  })
