/**
 * Which session of a server a client's call goes over. A server that cannot say which call its
 * request is for (a 2025-era server over stdio or legacy SSE: nothing on the wire relates them)
 * is shared by the clients one at a time: a call goes over the shared session while no other
 * client's call is on it, else over a session of the server's own for that client
 * (`McpHost.openSession`, opened on first need and kept while the client is connected). So every
 * request such a server makes comes while one client's calls alone are in flight on its session,
 * and the gateway's client relates it to them. Other servers (Streamable HTTP, which answers on
 * the call's stream; 2026-07-28, which asks in the call) are always shared.
 *
 * Those sessions come from one {@link pool}: a 2025-11-25 session keeps what it borrows while it
 * lasts; a 2026-07-28 request, a caller of its own, borrows one for its call's life.
 */
import type { McpHost } from "@effect-mcp/host"
import * as Peer from "@effect-mcp/jsonrpc/Peer"
import type { JsonRpcFailure } from "@effect-mcp/jsonrpc/PeerError"
import { JsonRpc } from "@effect-mcp/protocol"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import { Caller } from "./inflight.js"
import { failure } from "./wire.js"

/** Who is on each server's shared session now: per server, each client's calls on it. */
export type Shared = Map<string, Map<object, number>>

/** One client's way to its servers. */
export interface Lane {
  /** Runs `use` with the session the client's call to `server` goes over (`undefined`: the shared one). */
  readonly run: (
    server: string | undefined
  ) => <A, E, R>(
    use: (session: McpHost.OwnSession | undefined) => Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E | JsonRpcFailure, R>
}

/** Whether `server`'s requests can be told apart by call on a shared session. */
const relates = (host: McpHost.McpHostService, server: string): Effect.Effect<boolean> =>
  Effect.gen(function* () {
    const servers = yield* host.servers
    const target = servers.find((entry) => entry.name === server)?.config.target
    if (target === undefined || (target._tag === "Http" && target.transport !== "sse")) return true
    const client = yield* Effect.option(host.client(server))
    return client._tag === "None" || client.value.era === "stateless"
  })

/** Takes a place on the shared session when no other client holds one; whether it did. */
const claim = (shared: Shared, server: string, client: object): boolean => {
  const holders = shared.get(server) ?? new Map<object, number>()
  for (const holder of holders.keys()) if (holder !== client) return false
  holders.set(client, (holders.get(client) ?? 0) + 1)
  shared.set(server, holders)
  return true
}

const release = (shared: Shared, server: string, client: object) => {
  const holders = shared.get(server)
  const left = (holders?.get(client) ?? 0) - 1
  if (holders === undefined) return
  if (left > 0) holders.set(client, left)
  else holders.delete(client)
  if (holders.size === 0) shared.delete(server)
}

/**
 * A session of `server`'s own, opened as no one's: its fibers (the reader, whose handlers answer
 * the server's requests, and keep-alive) must not carry the call that happened to open it, or a
 * later call's request would be taken for that one's.
 */
const openOwn = (host: McpHost.McpHostService, server: string) =>
  host
    .openSession(server)
    .pipe(Effect.provideService(Caller, undefined), Effect.provideService(Peer.RequestOrigin, undefined))

/** The error of a session of the server's own that could not be opened. */
const unopened = (server: string) => (error: { readonly message: string }) =>
  failure(
    JsonRpc.ErrorCode.InternalError,
    `${server} cannot tell this client's calls from another client's, and a session of its own could not be opened: ${error.message}`,
    { server }
  )

/** A session of a server's own lent to one caller's call, and how it is given back when the call ends. */
interface Lent {
  readonly session: McpHost.OwnSession
  readonly giveBack: (exit: Exit.Exit<unknown, unknown>) => Effect.Effect<void>
}

/** A lane over `borrow`, which lends a session of the server's own when the shared one is another's. */
const laneOver = (
  host: McpHost.McpHostService,
  shared: Shared,
  borrow: (server: string) => Effect.Effect<Lent, JsonRpcFailure>
): Lane => {
  const client = {}
  // Borrowed once the call is sure to give it back (the borrowing itself is interruptible only
  // where nothing is taken yet: waiting for a place, opening a session).
  const overOwn = <A, E, R>(
    server: string,
    use: (session: McpHost.OwnSession | undefined) => Effect.Effect<A, E, R>
  ): Effect.Effect<A, E | JsonRpcFailure, R> =>
    Effect.acquireUseRelease(
      borrow(server),
      (lent) => use(lent.session),
      (lent, exit) => lent.giveBack(exit)
    )
  return {
    run: (server) => (use) =>
      server === undefined
        ? use(undefined)
        : Effect.flatMap(relates(host, server), (shareable) =>
            shareable
              ? use(undefined)
              : Effect.acquireUseRelease(
                  Effect.sync(() => claim(shared, server, client)),
                  (onShared) => (onShared ? use(undefined) : overOwn(server, use)),
                  (onShared) => (onShared ? Effect.sync(() => release(shared, server, client)) : Effect.void)
                )
          )
  }
}

/**
 * The gateway's sessions of the servers' own, lent to its callers. A caller of one request
 * (2026-07-28) borrows one for its call ({@link Pool.lane}): given back when the call ends (a call
 * held across input rounds keeps it until its last round), at most `max` of a server's lent so at
 * once (more callers wait for one). A 2025-11-25 session keeps what it borrows until it ends
 * ({@link Pool.kept}). A session given back waits for the next caller; it is closed, in the
 * background, when the call over it was interrupted or died or left it not ready, when it is found
 * not ready as it would be lent, and after waiting unused for `idle` (to half as long again: the
 * sweep runs every `idle / 2`).
 */
export interface Pool {
  /** The lane of a caller of one request. */
  readonly lane: () => Lane
  /** The lane of a caller that keeps the sessions it borrows until `scope` (its connection's) ends. */
  readonly kept: (scope: Scope.Scope) => Effect.Effect<Lane>
  /** How many of the pool's sessions are lent now, and how many wait unused. */
  readonly size: Effect.Effect<{ readonly lent: number; readonly idle: number }>
}

/** How long a pooled session waits unused before it is closed. */
export const POOL_IDLE = Duration.minutes(1)

/** How many pooled sessions of one server may be lent at once. */
export const POOL_MAX = 16

/** A pooled session, and the scope it ends with. */
interface Pooled {
  readonly session: McpHost.OwnSession
  readonly scope: Scope.CloseableScope
}

/** A session waiting unused, since when. */
interface Parked extends Pooled {
  readonly since: number
}

/** The pool's options: how long a session waits unused, how many of a server's are lent at once. */
export interface PoolOptions {
  readonly idle?: Duration.DurationInput
  readonly max?: number
}

const readyNow = (session: McpHost.OwnSession) => Effect.map(session.client.state, (state) => state._tag === "Ready")

/** Whether a session lent to a call that ended with `exit` may be lent again. */
const reusable = (session: McpHost.OwnSession, exit: Exit.Exit<unknown, unknown>) =>
  Exit.isSuccess(exit)
    ? Effect.succeed(true)
    : Cause.isInterrupted(exit.cause) || Cause.isDie(exit.cause)
      ? Effect.succeed(false)
      : readyNow(session)

/** A pool of sessions of the servers' own; they all end with the pool's scope. */
export const pool = (
  host: McpHost.McpHostService,
  shared: Shared,
  options: PoolOptions = {}
): Effect.Effect<Pool, never, Scope.Scope> =>
  Effect.gen(function* () {
    const scope = yield* Effect.scope
    const idle = Math.max(1, Duration.toMillis(options.idle ?? POOL_IDLE))
    const parked = new Map<string, Array<Parked>>()
    const places = new Map<string, Effect.Semaphore>()
    let lent = 0
    const placesOf = (server: string) => {
      const found = places.get(server)
      if (found !== undefined) return found
      const made = Effect.unsafeMakeSemaphore(options.max ?? POOL_MAX)
      places.set(server, made)
      return made
    }
    // Closed in the background: a call's answer does not wait for a process to end.
    const close = (pooled: { readonly scope: Scope.CloseableScope }) =>
      Effect.asVoid(Effect.forkIn(Scope.close(pooled.scope, Exit.void), scope))
    const park = (server: string, pooled: Pooled, since: number) => {
      const waiting = parked.get(server) ?? []
      waiting.push({ ...pooled, since })
      parked.set(server, waiting)
    }
    // The newest session waiting for `server` that is still ready; those that are not are closed.
    const unpark = (server: string): Effect.Effect<Pooled | undefined> =>
      Effect.suspend(() => {
        const found = parked.get(server)?.pop()
        if (found === undefined) return Effect.succeed(undefined)
        return Effect.flatMap(readyNow(found.session), (ready) =>
          ready ? Effect.succeed(found) : Effect.zipRight(close(found), unpark(server))
        )
      })
    const lend = (server: string, pooled: Pooled, placed: boolean): Lent => {
      lent++
      return {
        session: pooled.session,
        giveBack: (exit) =>
          Effect.gen(function* () {
            const keep = yield* reusable(pooled.session, exit)
            const since = yield* Clock.currentTimeMillis
            lent--
            if (keep) park(server, pooled, since)
            else yield* close(pooled)
            if (placed) yield* placesOf(server).release(1)
          })
      }
    }
    // Interruptible though it runs in a borrowing's acquisition: the session's fibers (its reader,
    // keep-alive) are forked here and keep the interruptibility they are forked with; forked
    // uninterruptible, closing its scope would wait on them for ever.
    const open = (server: string) =>
      Effect.flatMap(Scope.fork(scope, ExecutionStrategy.sequential), (own) =>
        openOwn(host, server).pipe(
          Scope.extend(own),
          Effect.interruptible,
          Effect.map((session): Pooled => ({ session, scope: own })),
          Effect.onError(() => close({ scope: own })),
          Effect.mapError(unopened(server))
        )
      )
    // A call's borrowing takes one of the server's places (a kept session takes none: a connection
    // may last for hours), given back with the session, or at once if none could be opened.
    const borrow = (server: string, placed: boolean) =>
      Effect.gen(function* () {
        if (placed) yield* Effect.interruptible(placesOf(server).take(1))
        const pooled = yield* Effect.flatMap(unpark(server), (found) =>
          found === undefined ? open(server) : Effect.succeed(found)
        ).pipe(Effect.onError(() => (placed ? placesOf(server).release(1) : Effect.void)))
        return lend(server, pooled, placed)
      })
    const kept = (connection: Scope.Scope) =>
      Effect.map(Effect.makeSemaphore(1), (lock) => {
        const own = new Map<string, McpHost.OwnSession>()
        const keep = (server: string) =>
          lock.withPermits(1)(
            Effect.suspend(() => {
              const found = own.get(server)
              if (found !== undefined) return Effect.succeed(found)
              return Effect.flatMap(borrow(server, false), (lent) =>
                Effect.as(
                  Effect.zipRight(
                    Effect.sync(() => own.set(server, lent.session)),
                    Scope.addFinalizer(connection, lent.giveBack(Exit.void))
                  ),
                  lent.session
                )
              )
            })
          )
        return laneOver(host, shared, (server) =>
          Effect.map(keep(server), (session) => ({ session, giveBack: () => Effect.void }))
        )
      })
    // Closes the sessions that have waited unused for `idle` or longer.
    const stale = (now: number) => {
      const due: Array<Parked> = []
      for (const [server, waiting] of parked) {
        const fresh = waiting.filter((entry) => now - entry.since < idle)
        due.push(...waiting.filter((entry) => now - entry.since >= idle))
        if (fresh.length === 0) parked.delete(server)
        else parked.set(server, fresh)
      }
      return due
    }
    const sweep = Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.forEach(stale(now), close, { discard: true }))
    // No one's: the pool is made within a request, whose context the sweep must not keep.
    yield* Effect.repeat(sweep, Schedule.spaced(Duration.millis(idle / 2))).pipe(
      Effect.provideService(Caller, undefined),
      Effect.provideService(Peer.RequestOrigin, undefined),
      Effect.forkScoped
    )
    return {
      lane: () => laneOver(host, shared, (server) => borrow(server, true)),
      kept,
      size: Effect.sync(() => ({
        lent,
        idle: [...parked.values()].reduce((sum, waiting) => sum + waiting.length, 0)
      }))
    }
  })
