/**
 * The gateway's 2025-11-25 HTTP sessions as their principals own them: one is opened for a
 * principal and served on its behalf until it ends (or the gateway's scope closes), and a request
 * finds a session only when its principal opened it (another's is answered as unknown, 404).
 *
 * An idle session is data, not a running connection: once it has been unused for a while
 * (`SessionTable.Limits.dormant`) and holds nothing open (no subscription, log level or task, no
 * request either way), its serving stops (its peer, fibers and handlers go) and what it agreed in
 * its handshake is kept. Its next request serves it again, already initialized (`connection.ts`,
 * `Resumable`), before that request is read: the client sees the same session. One whose client
 * listens (its GET stream) is still sent what a served one would be unasked (list changes, the
 * logs no call is related to: `Connection.rested`), by a listener on the gateway's shared fanout,
 * until its serving is back.
 */
import { McpHost } from "@effect-mcp/host"
import { JsonRpc } from "@effect-mcp/protocol"
import type * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Metric from "effect/Metric"
import * as Scope from "effect/Scope"
import type * as Connection from "./connection.js"
import type * as Handshake from "./handshake.js"
import * as HttpSession from "./httpSession.js"
import * as Observe from "./observe.js"
import * as Principal from "./principal.js"
import * as Reply from "./reply.js"
import type * as ServerRequests from "./serverRequests.js"
import * as SessionTable from "./sessionTable.js"
import type * as StatelessRequest from "./statelessRequest.js"

const SESSION = "mcp-session-id"

/** What the sessions are opened with. */
export interface OwnedOptions {
  readonly limits: SessionTable.Limits
  /** Serves the gateway on a session's transport (until the scope it is given closes). */
  readonly serve: (
    session: HttpSession.HttpSession,
    resumable: Connection.Resumable
  ) => Effect.Effect<void, never, McpHost.McpHost | ServerRequests.Attachments | Scope.Scope>
  /** What a dormant session whose client listens still hears (until the scope it is given closes). */
  readonly rested: (
    session: HttpSession.HttpSession
  ) => Effect.Effect<void, never, McpHost.McpHost | ServerRequests.Attachments | Scope.Scope>
  /** How long a POST waits to answer with JSON before it streams (`HttpSession.make`). */
  readonly answerWindow: Parameters<typeof HttpSession.make>[2]
  /** The host as the principals see it (through the policy). */
  readonly host: McpHost.McpHostService
  readonly context: Context.Context<McpHost.McpHost | ServerRequests.Attachments>
}

/** Opening sessions, finding them for their owner, using and ending them. */
export interface Owned {
  /** A new session of `principal`, served on its behalf; 503 when there is no room. */
  readonly open: (principal: Principal.Principal) => Effect.Effect<HttpSession.HttpSession | Reply.Reply>
  /** The session a request of `principal` names: 400 without one, 404 for one it does not own. */
  readonly sessionOf: (
    request: { readonly headers: StatelessRequest.Headers },
    principal: Principal.Principal
  ) => Effect.Effect<HttpSession.HttpSession | Reply.Reply>
  /** Runs a request of the session once it is served (a dormant one is served again first); it is busy meanwhile. */
  readonly using: (
    session: HttpSession.HttpSession
  ) => <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** Ends the session (a DELETE). */
  readonly end: (session: HttpSession.HttpSession) => Effect.Effect<void>
}

/**
 * How a session is served: running (`ready` once it may read: at once when new, once initialized
 * again when it was dormant), stopping, dormant (no fiber: its handshake kept), or ended.
 */
type Serving =
  | { readonly _tag: "Running"; readonly ready: Deferred.Deferred<void>; fiber: Fiber.RuntimeFiber<void> | undefined }
  | { readonly _tag: "Stopping"; readonly stopped: Deferred.Deferred<void> }
  | { readonly _tag: "Dormant" }
  | { readonly _tag: "Ended" }

/** One session: whose it is, what it agreed, how it is served. */
interface Life {
  readonly session: HttpSession.HttpSession
  readonly principal: Principal.Principal
  /** Its principal as requests are told apart by. */
  readonly binding: string
  negotiated: Handshake.Negotiated | undefined
  /** Whether its serving holds nothing now (told once it is initialized). */
  stoppable: Effect.Effect<boolean> | undefined
  serving: Serving
  /** While dormant with its GET stream opened: what it still hears (closed once it is served again, or ends). */
  listening: Scope.CloseableScope | undefined
  /** The id of the next request sent to its client, whichever serving sends it. */
  requests: number
}

const dormant: Serving = { _tag: "Dormant" }

/** The owned sessions of a gateway, within `limits`; every session ends with the scope. */
export const make = (options: OwnedOptions): Effect.Effect<Owned, never, Scope.Scope> =>
  Effect.gen(function* () {
    const scope = yield* Effect.scope
    const lives = new WeakMap<HttpSession.HttpSession, Life>()

    const end = (life: Life): Effect.Effect<void> =>
      Effect.suspend(() => {
        const serving = life.serving
        if (serving._tag === "Ended") return Effect.void
        life.serving = { _tag: "Ended" }
        sessions.remove(life.session.id)
        return Effect.all(
          [
            stopListening(life),
            // Whoever waits for it to be served finds it closed.
            serving._tag === "Running" ? Deferred.succeed(serving.ready, undefined) : Effect.void,
            life.session.close,
            Metric.incrementBy(Observe.sessions, -1)
          ],
          { discard: true }
        )
      })

    /** Runs what a session's serving (or listening) does with the gateway's host, on its principal's behalf. */
    const onBehalfOf =
      (life: Life) =>
      <A, E>(effect: Effect.Effect<A, E, McpHost.McpHost | ServerRequests.Attachments>): Effect.Effect<A, E> =>
        effect.pipe(
          Effect.provideService(McpHost.McpHost, options.host),
          Effect.provide(options.context),
          Principal.within(life.principal)
        )

    /** Closes what a dormant session heard: its serving hears it now (or it has ended). */
    const stopListening = (life: Life): Effect.Effect<void> =>
      Effect.suspend(() => {
        const listening = life.listening
        life.listening = undefined
        return listening === undefined ? Effect.void : Scope.close(listening, Exit.void)
      })

    /**
     * What a session being put to rest still hears when its client listens on its GET stream, from
     * before its serving stops (what comes meanwhile may be heard twice, none is lost).
     */
    const listen = (life: Life): Effect.Effect<void> =>
      Effect.gen(function* () {
        if (!life.session.listened() || life.listening !== undefined || life.serving._tag !== "Stopping") return
        const listening = yield* Scope.fork(scope, ExecutionStrategy.sequential)
        life.listening = listening
        yield* options.rested(life.session).pipe(Scope.extend(listening), onBehalfOf(life))
      })

    /** Serves the session (again, initialized as it was, when it has a handshake). */
    const start = (life: Life): Effect.Effect<void> =>
      Effect.suspend(() => {
        const serving: Serving & { readonly _tag: "Running" } = {
          _tag: "Running",
          ready: Deferred.unsafeMake(FiberId.none),
          fiber: undefined
        }
        life.serving = serving
        const resumable: Connection.Resumable = {
          negotiated: life.negotiated,
          nextId: () => life.requests++,
          initialized: (negotiated, stoppable) =>
            Effect.suspend(() => {
              life.negotiated = negotiated
              life.stoppable = stoppable
              // Heard by its serving from now on (a change in between may come twice, none is lost).
              return Effect.zipRight(stopListening(life), Deferred.succeed(serving.ready, undefined))
            })
        }
        return options.serve(life.session, resumable).pipe(
          Effect.scoped,
          // Stopped to rest, it lives on; otherwise its connection has ended.
          Effect.ensuring(Effect.suspend(() => (life.serving._tag === "Stopping" ? Effect.void : end(life)))),
          onBehalfOf(life),
          // An HTTP server may run its handlers uninterruptibly, and a fork inherits that: the
          // session must stop when the gateway's scope closes, or when it is put to rest.
          Effect.interruptible,
          Effect.forkIn(scope),
          Effect.flatMap((fiber) => {
            serving.fiber = fiber
            // A new session reads at once: its client's first message is its `initialize`.
            return life.negotiated === undefined ? Deferred.succeed(serving.ready, undefined) : Effect.void
          })
        )
      })

    /** Waits until the session is served (serving a dormant one again). */
    const wake = (life: Life): Effect.Effect<void> =>
      Effect.suspend(() => {
        const serving = life.serving
        switch (serving._tag) {
          case "Running":
            return Deferred.await(serving.ready)
          case "Stopping":
            return Effect.zipRight(Deferred.await(serving.stopped), wake(life))
          case "Dormant":
            return Effect.zipRight(start(life), wake(life))
          case "Ended":
            return Effect.void
        }
      })

    /** Puts a session that holds nothing open to rest (its serving stops; its handshake is kept). */
    const rest = (life: Life): Effect.Effect<void> =>
      Effect.suspend(() => {
        const serving = life.serving
        const stoppable = life.stoppable
        if (serving._tag !== "Running" || serving.fiber === undefined || stoppable === undefined) return Effect.void
        const fiber = serving.fiber
        return Effect.flatMap(stoppable, (holdsNothing) =>
          Effect.suspend(() => {
            // A request may have come meanwhile.
            if (!holdsNothing || life.serving !== serving || sessions.inUse(life.session.id)) return Effect.void
            const stopped = Deferred.unsafeMake<void>(FiberId.none)
            life.serving = { _tag: "Stopping", stopped }
            return Effect.zipRight(listen(life), Fiber.interrupt(fiber)).pipe(
              Effect.ensuring(
                Effect.suspend(() => {
                  // What it was served with goes with its serving (`stoppable` holds its peer).
                  life.stoppable = undefined
                  if (life.serving._tag === "Stopping") life.serving = dormant
                  // Ended meanwhile: what it heard goes too.
                  return Effect.zipRight(
                    life.serving._tag === "Ended" ? stopListening(life) : Effect.void,
                    Deferred.succeed(stopped, undefined)
                  )
                })
              )
            )
          })
        )
      })

    const lifeOf = (
      session: HttpSession.HttpSession,
      f: (life: Life) => Effect.Effect<void>,
      orElse: Effect.Effect<void> = Effect.void
    ) =>
      Effect.suspend(() => {
        const life = lives.get(session)
        return life === undefined ? orElse : f(life)
      })
    const sessions = yield* SessionTable.make(options.limits, {
      end: (session) => lifeOf(session, end, session.close),
      rest: (session) => lifeOf(session, rest)
    })

    const open: Owned["open"] = (principal) =>
      Effect.gen(function* () {
        const session = HttpSession.make(crypto.randomUUID(), undefined, options.answerWindow)
        if (!(yield* sessions.add(session))) {
          return Reply.refuse(503, JsonRpc.ErrorCode.InternalError, "Too many sessions: try again later", {
            "retry-after": "10"
          })
        }
        const life: Life = {
          session,
          principal,
          binding: Principal.binding(principal),
          negotiated: undefined,
          stoppable: undefined,
          serving: dormant,
          listening: undefined,
          requests: 0
        }
        lives.set(session, life)
        yield* Metric.increment(Observe.sessions)
        yield* start(life)
        return session
      })

    const sessionOf: Owned["sessionOf"] = (request, principal) => {
      const id = request.headers[SESSION]
      if (id === undefined)
        return Effect.succeed(
          Reply.refuse(400, JsonRpc.ErrorCode.InvalidRequest, "Bad Request: Mcp-Session-Id is missing")
        )
      return Effect.map(sessions.get(id), (session) =>
        session !== undefined && lives.get(session)?.binding === Principal.binding(principal)
          ? session
          : Reply.refuse(404, -32001, "Session not found")
      )
    }

    return {
      open,
      sessionOf,
      // Counted busy before it is woken: it cannot be put to rest again before the request is read.
      using: (session) => (effect) => sessions.using(session)(Effect.zipRight(lifeOf(session, wake), effect)),
      end: (session) => lifeOf(session, end, session.close)
    }
  })
