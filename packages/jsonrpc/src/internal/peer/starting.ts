/**
 * Starting the peer's outbound requests. A request over a transport that writes there and then
 * (`writeNow`) starts in one step, `startWritten`: from plain code (the plain form of `request`), or from a
 * fiber (`request`, `startWrittenAndWait`), which waits for the outcome and gives the request up
 * when it is interrupted. A request over a transport that needs an effect to write is written,
 * then waited for, in its fiber. A span is made only when someone traces.
 */
import { type JsonRpc, McpSchema } from "@effect-mcp/protocol"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import type * as Tracer from "effect/Tracer"
import type { TransportError } from "../../PeerError.js"
import * as PlainForm from "../../PlainForm.js"
import * as Tracing from "../../Tracing.js"
import type { Outbound } from "./outbound.js"
import type * as Pending from "./pending.js"
import type { Peer, RequestFailure, RequestOptions, StartRequest, WireObject } from "./types.js"

/**
 * The W3C `tracestate` to send beside `traceparent`, when the host has one (for example from
 * the inbound request that started this work). Effect's spans carry no trace state of their own.
 */
export class TraceState extends Context.Reference<TraceState>()("@effect-mcp/jsonrpc/TraceState", {
  defaultValue: (): string | undefined => undefined
}) {}

/**
 * Members the host carries from the inbound request that started this work into the `_meta` of
 * every request it makes for it (a gateway passing a caller's custom keys on to its servers).
 * A request's own members (its progress token, trace context, `meta`) win over these.
 */
export class PropagatedMeta extends Context.Reference<PropagatedMeta>()("@effect-mcp/jsonrpc/PropagatedMeta", {
  defaultValue: (): WireObject | undefined => undefined
}) {}

/**
 * Who the work making a request is for (a gateway's caller, say), as an opaque token: the peer
 * keeps it with the request, and a request the other side makes while it is in flight, and
 * related to it, is handled with this token as its own `RequestOrigin`. Default: none.
 */
export class RequestOrigin extends Context.Reference<RequestOrigin>()("@effect-mcp/jsonrpc/RequestOrigin", {
  defaultValue: (): object | undefined => undefined
}) {}

/** The W3C `traceparent` of a span, so that the server's trace joins ours. */
const traceparent = (span: Tracer.Span): string => `00-${span.traceId}-${span.spanId}-${span.sampled ? "01" : "00"}`

const metaOf = (params: WireObject | undefined): WireObject => {
  const meta = params?._meta
  return McpSchema.isJsonObject(meta) ? meta : {}
}

const noop = () => {}

/** Effect's own clock, as a fiber has it unless something (a `TestClock`) replaced it. */
const liveClock = Effect.runSync(Effect.clock)

/**
 * Whether a request made from `fiber` would read nothing of it that a plain start does not have:
 * nobody traces, no `_meta` is propagated, no origin is kept, the clock is Effect's own. Then a
 * request's effect and its plain form do the same thing.
 */
export const startsPlainly = (fiber: Fiber.RuntimeFiber<unknown, unknown>): boolean =>
  !Tracing.isTraced(fiber) &&
  Context.get(fiber.currentContext, PropagatedMeta) === undefined &&
  Context.get(fiber.currentContext, RequestOrigin) === undefined &&
  Context.get(fiber.currentDefaultServices, Clock.Clock) === liveClock

/** The request on the wire: its params, with a `_meta` when progress, trace context or extra members ask for one. */
const messageOf = (
  entry: Pending.Entry,
  params: WireObject | undefined,
  options: RequestOptions,
  meta: WireObject | undefined,
  propagated?: WireObject
): JsonRpc.JSONRPCRequest => {
  const extra =
    options.onProgress === undefined
      ? meta === undefined
        ? options.meta
        : { ...meta, ...options.meta }
      : { progressToken: entry.id, ...meta, ...options.meta }
  // Propagated members go under the request's own: none takes the place of its progress token.
  return {
    jsonrpc: "2.0",
    id: entry.id,
    method: entry.method,
    params:
      extra === undefined && propagated === undefined
        ? (params ?? {})
        : { ...params, _meta: { ...propagated, ...metaOf(params), ...extra } }
  }
}

/** What starting requests needs of the peer. */
export interface StartingOptions {
  readonly server: () => string
  readonly pending: Pending.Pending
  readonly outbound: Outbound
  readonly clock: Clock.Clock
  /** Why no request can start (the connection ended), if none can. */
  readonly ended: () => TransportError | undefined
  /** The notification that cancels `id` on the server (the id is remembered as cancelled). */
  readonly cancellation: (id: JsonRpc.RequestId, reason: string) => JsonRpc.JSONRPCNotification
  /** Sends a cancellation. */
  readonly cancel: (id: JsonRpc.RequestId, reason: string) => Effect.Effect<void>
}

/** The peer's `request`, with its plain form when the outbound side writes in the caller. */
export const make = (options: StartingOptions): Peer["request"] => {
  const { server, pending, outbound, clock, cancellation, cancel } = options
  /** Gives up on a request its caller no longer waits for: it leaves the table and is cancelled on the server. */
  const abandon = (entry: Pending.Entry) =>
    Effect.suspend(() =>
      pending.remove(entry) && entry.cancellable ? cancel(entry.id, "The request was cancelled") : Effect.void
    )

  const writeNow = outbound.writeNow
  /**
   * Starts a request written there and then (`writeNow`): tracked, written, its outcome to
   * `onDone` once it comes. Gives back how to give it up: it leaves the table and is cancelled
   * on the server. `request` (over such a transport) and its plain form both start here.
   */
  const startWritten = (
    write: NonNullable<typeof writeNow>,
    entry: Pending.Entry,
    message: JsonRpc.JSONRPCRequest,
    onDone: (outcome: Exit.Exit<WireObject, RequestFailure>) => void
  ): (() => void) => {
    entry.resume = onDone
    pending.track(entry)
    // A write that throws (a value JSON cannot encode) is the request's defect.
    let error: TransportError | undefined
    try {
      error = write(message)
    } catch (defect) {
      if (pending.has(entry)) pending.complete(entry, Exit.die(defect))
      return noop
    }
    // Completed meanwhile only by an answer delivered within the write itself.
    if (error !== undefined && pending.has(entry)) pending.complete(entry, Exit.fail(error))
    return () => {
      if (!pending.has(entry)) return
      pending.remove(entry)
      if (entry.cancellable) write(cancellation(entry.id, "The request was cancelled"))
    }
  }

  /**
   * A request written there and then from a fiber, which waits for its outcome; interrupted, it
   * gives the request up there and then (before the scopes around it close the transport).
   */
  const startWrittenAndWait = (
    write: NonNullable<typeof writeNow>,
    entry: Pending.Entry,
    message: JsonRpc.JSONRPCRequest
  ) => Effect.async<WireObject, RequestFailure>((resume) => Effect.sync(startWritten(write, entry, message, resume)))

  /** Waits for the outcome, resumed by `complete` whoever calls it (interruption is `exchange`'s to handle). */
  const outcome = (entry: Pending.Entry) =>
    Effect.async<WireObject, RequestFailure>((resume) => {
      if (entry.outcomeBeforeWait !== undefined) return resume(entry.outcomeBeforeWait)
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
  const request = (
    method: string,
    params: WireObject | undefined,
    requestOptions: RequestOptions = {}
  ): Effect.Effect<WireObject, RequestFailure> =>
    Effect.withFiberRuntime((fiber) => {
      const gone = options.ended()
      if (gone !== undefined) return Effect.fail(gone)
      const propagated = Context.get(fiber.currentContext, PropagatedMeta)
      const now = Context.get(fiber.currentDefaultServices, Clock.Clock).unsafeCurrentTimeMillis()
      const entry = pending.entryOf(method, requestOptions, now, Context.get(fiber.currentContext, RequestOrigin))
      if (!Tracing.isTraced(fiber)) {
        const message = messageOf(entry, params, requestOptions, undefined, propagated)
        if (writeNow !== undefined && requestOptions.headers === undefined) {
          return startWrittenAndWait(writeNow, entry, message)
        }
        pending.track(entry)
        return exchange(entry, message, requestOptions.headers)
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
          return exchange(
            entry,
            messageOf(entry, params, requestOptions, meta, propagated),
            requestOptions.headers
          ).pipe(
            Effect.onExit((exit) =>
              Effect.flatMap(Clock.currentTimeNanos, (time) => Effect.sync(() => span.end(time, exit)))
            )
          )
        }
      )
    })

  if (writeNow === undefined) return request
  const write = writeNow
  const start: StartRequest = (method, params, requestOptions, onDone) => {
    if (options.ended() !== undefined || requestOptions.headers !== undefined) return undefined
    const entry = pending.entryOf(method, requestOptions, clock.unsafeCurrentTimeMillis())
    return startWritten(write, entry, messageOf(entry, params, requestOptions, undefined), onDone)
  }
  return PlainForm.attach(request, start)
}
