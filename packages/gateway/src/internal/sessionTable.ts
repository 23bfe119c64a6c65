/**
 * The gateway's 2025-11-25 HTTP sessions, each with when it was last in use. A session that is not
 * busy (no request of it in progress or unanswered, no stream of it connected) for longer than the idle
 * timeout is ended, its calls cancelled: its client vanished without a DELETE, and would otherwise
 * hold its connection to the servers for as long as the gateway runs. A client that comes back
 * later finds its session gone (404) and initializes again, as the specification has it. At most
 * `max` sessions live at once: a new one ends the longest idle, or is refused when all are busy.
 *
 * Well before that, a session unused for `dormant` (no request of it, nor a stream of one followed;
 * its client may listen on its GET stream) is put to rest (`ownedSessions.ts`: its serving stops,
 * what it agreed is kept, and its next request serves it again): idle sessions cost little.
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import type { HttpSession } from "./httpSession.js"

/** How long sessions live unused, how many live at once, and how long one is unused before it is put to rest. */
export interface Limits {
  readonly idle: Duration.DurationInput
  readonly max: number
  readonly dormant: Duration.DurationInput
}

/** 30 minutes unused; 10,000 sessions; put to rest after 10 seconds unused. */
export const defaultLimits: Limits = { idle: Duration.minutes(30), max: 10_000, dormant: Duration.seconds(10) }

/** What the table does with a session: end it (idle too long, or making room), put it to rest. */
export interface Hooks {
  readonly end: (session: HttpSession) => Effect.Effect<void>
  readonly rest: (session: HttpSession) => Effect.Effect<void>
}

/** The sessions. */
export interface SessionTable {
  /** The session `id` names, seen now; `undefined` when there is none. */
  readonly get: (id: string) => Effect.Effect<HttpSession | undefined>
  /** Adds a new session, making room for it; `false` when every session is busy and none may go. */
  readonly add: (session: HttpSession) => Effect.Effect<boolean>
  /** Forgets a session (it ended). */
  readonly remove: (id: string) => void
  /** Whether a request of the session is in progress or a stream of one followed (it may not rest now). */
  readonly inUse: (id: string) => boolean
  /** Runs a request of the session: it is busy meanwhile, and seen when it ends. */
  readonly using: (session: HttpSession) => <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

interface Entry {
  readonly session: HttpSession
  /** Last busy (the idle timeout's measure). */
  seen: number
  /** Last working: a request, or a stream of one followed (the dormant time's measure). */
  used: number
  requests: number
}

/** A table within `limits`, swept while the scope is open. */
export const make = (limits: Limits, hooks: Hooks): Effect.Effect<SessionTable, never, Scope.Scope> =>
  Effect.gen(function* () {
    const idle = Duration.toMillis(limits.idle)
    const dormant = Duration.toMillis(limits.dormant)
    const entries = new Map<string, Entry>()
    const busy = (entry: Entry) => entry.requests > 0 || entry.session.busy()
    const working = (entry: Entry) => entry.requests > 0 || entry.session.working()
    const touch = (entry: Entry) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        entry.seen = now
        entry.used = now
      })

    /** Rests the session unless it was used since the sweep saw it (rests before it take their time). */
    const restIfUnused = (entry: Entry) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        entries.get(entry.session.id) === entry && !working(entry) && now - entry.used >= dormant
          ? hooks.rest(entry.session)
          : Effect.void
      )
    /** Ends the sessions unused for longer than the idle timeout, rests those unused for `dormant`; a busy one is in use now. */
    const sweep = Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const idled: Array<Entry> = []
      const drowsy: Array<Entry> = []
      for (const entry of entries.values()) {
        if (busy(entry)) entry.seen = now
        if (working(entry)) entry.used = now
        if (now - entry.seen > idle) idled.push(entry)
        else if (now - entry.used >= dormant) drowsy.push(entry)
      }
      return Effect.zipRight(
        Effect.forEach(idled, end, { discard: true }),
        Effect.forEach(drowsy, restIfUnused, { discard: true })
      )
    })
    const end = (entry: Entry) =>
      Effect.suspend(() => {
        entries.delete(entry.session.id)
        return hooks.end(entry.session)
      })
    // Every session ends with the table's scope: a dormant one has no serving of its own that would end it.
    yield* Effect.addFinalizer(() =>
      Effect.suspend(() => Effect.forEach([...entries.values()], end, { discard: true }))
    )
    yield* sweep.pipe(
      Effect.repeat(Schedule.spaced(Duration.millis(Math.max(1, Math.min(idle / 2, dormant / 2, 60_000))))),
      Effect.interruptible,
      Effect.forkScoped
    )

    return {
      get: (id) =>
        Effect.suspend(() => {
          const entry = entries.get(id)
          return entry === undefined ? Effect.succeed(undefined) : Effect.as(touch(entry), entry.session)
        }),
      add: (session) =>
        Effect.gen(function* () {
          if (entries.size >= limits.max) {
            let oldest: Entry | undefined
            for (const entry of entries.values()) {
              if (!busy(entry) && (oldest === undefined || entry.seen < oldest.seen)) oldest = entry
            }
            if (oldest === undefined) return false
            yield* end(oldest)
          }
          const entry: Entry = { session, seen: 0, used: 0, requests: 0 }
          entries.set(session.id, entry)
          yield* touch(entry)
          return true
        }),
      remove: (id) => void entries.delete(id),
      inUse: (id) => {
        const entry = entries.get(id)
        return entry !== undefined && working(entry)
      },
      using: (session) => (effect) =>
        Effect.acquireUseRelease(
          Effect.sync(() => {
            const entry = entries.get(session.id)
            if (entry !== undefined) entry.requests++
            return entry
          }),
          () => effect,
          (entry) =>
            entry === undefined
              ? Effect.void
              : Effect.zipRight(
                  Effect.sync(() => void entry.requests--),
                  touch(entry)
                )
        )
    }
  })
