/**
 * The peer's inbound side: what each inbound item means. A response completes its outstanding
 * request; a request goes to the requests part (`inboundRequests.ts`: `ping`, -32601, a handler
 * in a fiber of its own that `notifications/cancelled` interrupts); a notification reaches the
 * observers, then the subscribers (progress is routed to its request first; a log message that
 * came on its request's own stream goes to that request alone, when it takes its logs).
 * Malformed items and unknown ids go to the violations part (`violations.ts`): logged and
 * counted, never fatal.
 */
import { JsonRpc } from "@effect-mcp/protocol"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as PubSub from "effect/PubSub"
import type * as Scope from "effect/Scope"
import { composeInbound, type Interceptor } from "../../Middleware.js"
import { RpcError } from "../../PeerError.js"
import type { Incoming } from "../../Transport.js"
import * as InboundRequests from "./inboundRequests.js"
import type { Entry, Pending } from "./pending.js"
import type { RequestFailure, RequestHandler, Violation, WireObject } from "./types.js"
import * as Violations from "./violations.js"

/** The inbound side. */
export interface Inbound {
  /** What an item means, acted on (in order: the reader waits for it). */
  readonly dispatch: (item: Incoming) => Effect.Effect<void>
  /** The outcome a response carries for its request (also taken by the reader's direct way). */
  readonly outcomeOf: (
    message: JsonRpc.JSONRPCResultResponse | JsonRpc.JSONRPCErrorResponse,
    entry: Entry
  ) => Exit.Exit<WireObject, RequestFailure>
  readonly handlers: Map<string, RequestHandler>
  readonly observers: Set<(notification: JsonRpc.JSONRPCNotification) => Effect.Effect<void>>
  readonly hub: PubSub.PubSub<JsonRpc.JSONRPCNotification>
  /** Inbound requests being handled. */
  readonly running: Effect.Effect<number>
  readonly violations: Readonly<Record<Violation, number>>
}

/** A callback's effect whose failure or defect is logged, never the reader's (interruption is ignored). */
export const isolated = (effect: Effect.Effect<void>, what: string): Effect.Effect<void> =>
  Effect.catchAllCause(effect, (cause) => (Cause.isInterruptedOnly(cause) ? Effect.void : Effect.logError(what, cause)))

/**
 * Runs `run` for each callback registered when it starts, skipping one unregistered meanwhile; a
 * callback that fails or dies is logged, and neither stops the others nor the reader.
 */
export const runEach = <F>(set: Set<F>, run: (f: F) => Effect.Effect<void>): Effect.Effect<void> =>
  Effect.forEach(
    Array.from(set),
    (f) =>
      isolated(
        Effect.suspend(() => (set.has(f) ? run(f) : Effect.void)),
        "a peer callback failed"
      ),
    { discard: true }
  )

/** What the inbound side needs. */
export interface InboundOptions {
  readonly server: () => string
  readonly pending: Pending
  readonly interceptors: ReadonlyArray<Interceptor>
  readonly write: (message: JsonRpc.JSONRPCMessage) => Effect.Effect<void, unknown>
  /** Answer malformed requests with a JSON-RPC error (a server's duty). */
  readonly answerMalformed: boolean
}

/** The inbound side; handlers run in fibers of the scope. */
export const make = (options: InboundOptions): Effect.Effect<Inbound, never, Scope.Scope> =>
  Effect.gen(function* () {
    const { server, pending } = options
    const reply = (message: JsonRpc.JSONRPCMessage) => Effect.ignore(options.write(message))
    const observers = new Set<(notification: JsonRpc.JSONRPCNotification) => Effect.Effect<void>>()
    const hub = yield* PubSub.unbounded<JsonRpc.JSONRPCNotification>()
    const requests = yield* InboundRequests.make({ server, pending, reply })
    const { onRequest, cancel } = requests
    const violations = Violations.make({ server, pending, reply, answerMalformed: options.answerMalformed })
    const { report, onMalformed } = violations

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
          return Effect.zipRight(cancel(requestId), publish(message))
        }
      }
      if (message.method === "notifications/progress" && params !== undefined) {
        const token = params.progressToken
        const entry = typeof token === "string" || typeof token === "number" ? pending.get(token) : undefined
        if (entry !== undefined) {
          return Effect.gen(function* () {
            pending.touch(entry, yield* Clock.currentTimeMillis)
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

    const outcomeOf: Inbound["outcomeOf"] = (message, entry) =>
      "result" in message
        ? Exit.succeed(message.result)
        : Exit.fail(
            new RpcError({
              server: server(),
              method: entry.method,
              code: message.error.code,
              errorMessage: message.error.message,
              ...InboundRequests.dataOf(message.error.data)
            })
          )

    const onResponse = (message: JsonRpc.JSONRPCResultResponse | JsonRpc.JSONRPCErrorResponse) => {
      const id = message.id
      const entry = id === undefined ? undefined : pending.get(id)
      // The spec expects an answer to cross its cancellation: noted at debug level, not a violation.
      if (id !== undefined && entry === undefined && pending.wasCancelled(id)) {
        return Effect.logDebug(`${server()}: an answer to request ${id} arrived after it was cancelled`)
      }
      if (entry === undefined) return report("unknown-id", { id })
      return Effect.sync(() => pending.complete(entry, outcomeOf(message, entry)))
    }

    const route =
      (relatedRequest: JsonRpc.RequestId | undefined) =>
      (message: JsonRpc.JSONRPCMessage): Effect.Effect<void> => {
        if (JsonRpc.isResultResponse(message) || JsonRpc.isErrorResponse(message)) return onResponse(message)
        if (JsonRpc.isRequest(message)) return onRequest(message, relatedRequest)
        // A log message that came on its request's own stream is that request's, if it takes it.
        if (relatedRequest !== undefined && message.method === "notifications/message") {
          // One that comes after its request ended is that request's still: no one else's.
          if (pending.tookLogs(relatedRequest)) {
            return Effect.logDebug(
              `${server()}: a log message of request ${relatedRequest}, which has ended, is dropped`
            )
          }
          const onLog = pending.get(relatedRequest)?.onLog
          if (onLog !== undefined)
            return isolated(
              Effect.suspend(() => onLog(message.params ?? {})),
              "a log callback failed"
            )
        }
        return onNotification(message)
      }
    const dispatchInbound = composeInbound(options.interceptors, server, route(undefined))

    const dispatch = (item: Incoming): Effect.Effect<void> => {
      if (item._tag === "Message") {
        // (A related message is rare: its own composition costs nothing to the others.)
        return item.relatedRequest === undefined
          ? dispatchInbound(item.message)
          : composeInbound(options.interceptors, server, route(item.relatedRequest))(item.message)
      }
      if (item._tag === "Failed") {
        const failed = pending.get(item.id)
        return failed === undefined ? Effect.void : Effect.sync(() => pending.complete(failed, Exit.fail(item.error)))
      }
      return onMalformed(item)
    }

    return {
      dispatch,
      outcomeOf,
      handlers: requests.handlers,
      observers,
      hub,
      running: requests.running,
      violations: violations.counts
    }
  })
