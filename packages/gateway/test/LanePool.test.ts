/**
 * The pool of sessions of a server's own that callers of one request each (2026-07-28) borrow
 * when the shared session is another caller's (`internal/lanes.ts`), over the reference server on
 * stdio (which cannot say which call its requests are for): a session is lent to one call at a
 * time, lent again once given back, kept after a call that failed, closed after one interrupted
 * and after waiting unused for the pool's idle time (never while lent); at most `max` are lent per
 * server to calls, and more callers wait; a connection keeps what it borrows until it ends.
 */
import { expect, layer } from "@effect/vitest"
import { McpHost } from "@effect-mcp/host"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Scope from "effect/Scope"
import * as Lanes from "../src/internal/lanes.js"
import { everything, gatewayHost } from "./support/gateway.js"

/** Whether a session of the server's own still answers. */
const answers = (session: McpHost.OwnSession | undefined) =>
  session === undefined
    ? Effect.succeed(false)
    : Effect.match(Effect.timeout(session.client.ping(), "10 seconds"), {
        onFailure: () => false,
        onSuccess: () => true
      })

/** `check` until it holds, up to 200 times 10 ms apart; its last value. */
const eventually = <A>(check: Effect.Effect<A>, holds: (value: A) => boolean): Effect.Effect<A> =>
  Effect.repeat(Effect.zipLeft(check, Effect.sleep("10 millis")), { until: (value: A) => holds(value), times: 200 })

/** The session a lane's call to `ev` went over (`undefined`: the shared one). */
const sessionOf = (lane: Lanes.Lane) => lane.run("ev")((session) => Effect.succeed(session))

/** A caller holding `ev`'s shared session (or, when it is another's, a pooled one) until `release`. */
const holding = (pool: Lanes.Pool) =>
  Effect.gen(function* () {
    const held = yield* Deferred.make<McpHost.OwnSession | undefined>()
    const release = yield* Deferred.make<void>()
    const fiber = yield* Effect.fork(
      pool.lane().run("ev")((session) => Effect.zipRight(Deferred.succeed(held, session), Deferred.await(release)))
    )
    return { session: yield* Deferred.await(held), fiber, release: Deferred.succeed(release, undefined) }
  })

layer(gatewayHost({ servers: [{ name: "ev", target: everything }] }), {
  excludeTestServices: true,
  timeout: "60 seconds"
})("the pool of sessions of a server's own", (it) => {
  it.scoped("lends a session while the shared one is another's, one call at a time, and again once given back", () =>
    Effect.gen(function* () {
      const host = yield* McpHost.McpHost
      const pool = yield* Lanes.pool(host, new Map())
      const shared = yield* holding(pool)
      expect(shared.session).toBeUndefined()
      // Two callers at once: two sessions of the server's own.
      const [first, second] = yield* Effect.all([holding(pool), holding(pool)], { concurrency: 2 })
      expect(first.session).toBeDefined()
      expect(second.session).toBeDefined()
      expect(second.session).not.toBe(first.session)
      expect(yield* pool.size).toStrictEqual({ lent: 2, idle: 0 })
      yield* Effect.zipRight(first.release, second.release)
      yield* Effect.zipRight(Fiber.join(first.fiber), Fiber.join(second.fiber))
      expect(yield* pool.size).toStrictEqual({ lent: 0, idle: 2 })
      // Lent again, not opened again.
      expect([first.session, second.session]).toContain(yield* sessionOf(pool.lane()))
      // Once the shared session is free, a caller goes over it.
      yield* shared.release
      yield* Fiber.join(shared.fiber)
      expect(yield* sessionOf(pool.lane())).toBeUndefined()
    })
  )

  it.scoped("keeps a session after a call that failed, and closes one whose call was interrupted", () =>
    Effect.gen(function* () {
      const host = yield* McpHost.McpHost
      const pool = yield* Lanes.pool(host, new Map())
      const shared = yield* holding(pool)
      const lent = yield* sessionOf(pool.lane())
      const failed = yield* Effect.exit(pool.lane().run("ev")(() => Effect.fail("the tool's error")))
      expect(Exit.isFailure(failed)).toBe(true)
      expect(yield* pool.size).toStrictEqual({ lent: 0, idle: 1 })
      const interrupted = yield* holding(pool)
      expect(interrupted.session).toBe(lent)
      yield* Fiber.interrupt(interrupted.fiber)
      expect(yield* pool.size).toStrictEqual({ lent: 0, idle: 0 })
      expect(yield* eventually(answers(lent), (ok) => !ok)).toBe(false)
      yield* shared.release
    })
  )

  it.scoped("closes a session that waited unused for the idle time, never one that is lent", () =>
    Effect.gen(function* () {
      const host = yield* McpHost.McpHost
      const pool = yield* Lanes.pool(host, new Map(), { idle: "300 millis" })
      const shared = yield* holding(pool)
      const lent = yield* holding(pool)
      // Lent for four times the idle time: still open, still lent.
      yield* Effect.sleep("1200 millis")
      expect(yield* answers(lent.session)).toBe(true)
      expect(yield* pool.size).toStrictEqual({ lent: 1, idle: 0 })
      yield* lent.release
      yield* Fiber.join(lent.fiber)
      expect(yield* pool.size).toStrictEqual({ lent: 0, idle: 1 })
      expect(yield* eventually(pool.size, (size) => size.idle === 0)).toStrictEqual({ lent: 0, idle: 0 })
      expect(yield* eventually(answers(lent.session), (ok) => !ok)).toBe(false)
      yield* shared.release
    })
  )

  it.scoped("lends at most `max` of a server's sessions at once: the next caller waits for one to be given back", () =>
    Effect.gen(function* () {
      const host = yield* McpHost.McpHost
      const pool = yield* Lanes.pool(host, new Map(), { max: 1 })
      const shared = yield* holding(pool)
      const first = yield* holding(pool)
      const waiting = yield* Effect.fork(sessionOf(pool.lane()))
      yield* Effect.sleep("300 millis")
      expect(waiting.unsafePoll()).toBeNull()
      yield* first.release
      expect(yield* Fiber.join(waiting)).toBe(first.session)
      yield* shared.release
    })
  )

  it.scoped("a connection's lane keeps what it borrows until the connection ends, then gives it back", () =>
    Effect.gen(function* () {
      const host = yield* McpHost.McpHost
      const pool = yield* Lanes.pool(host, new Map(), { max: 1 })
      const shared = yield* holding(pool)
      const connection = yield* Scope.make()
      const lane = yield* pool.kept(connection)
      const first = yield* sessionOf(lane)
      expect(first).toBeDefined()
      // Kept between its calls, and taking no place: a caller of one request still gets one.
      expect(yield* sessionOf(lane)).toBe(first)
      expect(yield* pool.size).toStrictEqual({ lent: 1, idle: 0 })
      const other = yield* sessionOf(pool.lane())
      expect(other).toBeDefined()
      expect(other).not.toBe(first)
      yield* Scope.close(connection, Exit.void)
      expect(yield* pool.size).toStrictEqual({ lent: 0, idle: 2 })
      expect(yield* answers(first)).toBe(true)
      yield* shared.release
    })
  )
})
