/**
 * The JSON-RPC peer: correlates requests with responses over a transport. Its parts are the table
 * of outstanding requests with their deadlines (`pending.ts`), the inbound side (`inbound.ts`),
 * the outbound side (`outbound.ts`) and the starting of requests (`starting.ts`); this module
 * reads the transport and puts them together.
 *
 * Inbound items come as plain calls from the transport. An answer to an outstanding request
 * resumes its caller there and then; everything else (requests, notifications, faults, and every
 * message when middleware is installed) is dispatched in order by one fiber, and an answer takes
 * the direct way only while that fiber has nothing queued, so the order of the wire holds. When the
 * connection ends, every outstanding request fails at once with the transport's error; nothing
 * outstanding outlives the scope. The peer speaks JSON-RPC only: MCP methods, Schemas and
 * revisions are the session's.
 */
import type { JsonRpc } from "@effect-mcp/protocol"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Mailbox from "effect/Mailbox"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { Middleware } from "../../Middleware.js"
import { JsonRpcFailure, TransportError } from "../../PeerError.js"
import type { Incoming, TransportService } from "../../Transport.js"
import * as Inbound from "./inbound.js"
import * as Outbound from "./outbound.js"
import * as Pending from "./pending.js"
import * as Starting from "./starting.js"
import type { Peer, PeerOptions } from "./types.js"

export { PropagatedMeta, RequestOrigin, startsPlainly, TraceState } from "./starting.js"
export type * from "./types.js"

const dataOf = (data: unknown): { readonly data?: unknown } => (data === undefined ? {} : { data })

/** Fails an inbound request's handler with a JSON-RPC error. */
export const failWith = (code: number, message: string, data?: unknown) =>
  new JsonRpcFailure({ code, errorMessage: message, ...dataOf(data) })

/** `f` in `set` for as long as the scope lives. */
const registered = <F>(set: Set<F>, f: F): Effect.Effect<void, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => void set.add(f)),
    () => Effect.sync(() => void set.delete(f))
  )

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
      pending.rememberCancelled(id)
      return { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason } }
    }
    const cancel = (id: JsonRpc.RequestId, reason: string) =>
      Effect.suspend(() => Effect.ignore(outbound.write(cancellation(id, reason))))
    const pending: Pending.Pending = yield* Pending.make({
      server,
      defaultTimeout: Duration.decode(options.requestTimeout),
      cancel: (entry, reason) => cancel(entry.id, reason),
      nextId: options.nextId
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

    const request = Starting.make({
      server,
      pending,
      outbound,
      clock,
      ended: () => (ended === undefined ? undefined : gone()),
      cancellation,
      cancel
    })

    const observers = inbound.observers
    return {
      request,
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
