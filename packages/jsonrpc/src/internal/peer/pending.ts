/**
 * The peer's table of outstanding requests: one entry per request (no fiber, `Deferred` or
 * finalizer of its own), completed once by whoever has its outcome (the reader, the timer, the
 * connection's end), and one timer for every deadline: it sleeps until the earliest, times out what
 * is due and sleeps again; a request due before the timer's wake-up wakes it.
 * The entries are kept by id in a ring (`IdTable.ts`), not a `Map`: see there why.
 */
import type { JsonRpc } from "@effect-mcp/protocol"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as IdTable from "../../IdTable.js"
import { RequestTimeout } from "../../PeerError.js"
import type { RequestFailure, RequestOptions, WireObject } from "./types.js"

/** An outstanding request. */
export interface Entry {
  readonly id: JsonRpc.RequestId
  readonly method: string
  readonly onProgress: ((progress: WireObject) => Effect.Effect<void>) | undefined
  readonly onLog: ((params: WireObject) => Effect.Effect<void>) | undefined
  /** Who the request was made for (`RequestOrigin`), if anyone. */
  readonly origin: object | undefined
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
  outcomeBeforeWait: Exit.Exit<WireObject, RequestFailure> | undefined
}

/** The table. */
export interface Pending {
  /** A new entry for a request (not in the table yet), with the next id. */
  readonly entryOf: (method: string, options: RequestOptions, now: number, origin?: object) => Entry
  /** Puts an entry in the table, waking the timer when its deadline comes first. */
  readonly track: (entry: Entry) => void
  readonly get: (id: JsonRpc.RequestId) => Entry | undefined
  /** Whether `entry` is still the outstanding one of its id. */
  readonly has: (entry: Entry) => boolean
  /** Completes an entry (it leaves the table): resumes its caller, or keeps the outcome for it. */
  readonly complete: (entry: Entry, outcome: Exit.Exit<WireObject, RequestFailure>) => void
  /** Takes an entry out without an outcome (its caller gave up); whether it was there. */
  readonly remove: (entry: Entry) => boolean
  /** Completes every entry with the same outcome (the connection ended). */
  readonly completeAll: (outcome: Exit.Exit<WireObject, RequestFailure>) => void
  /** Notes that an entry's id was cancelled: its answer may still come, which is no violation. */
  readonly rememberCancelled: (id: JsonRpc.RequestId) => void
  /** Whether an id was cancelled (and forgets it). */
  readonly wasCancelled: (id: JsonRpc.RequestId) => boolean
  /**
   * Whether `id` is a request that took its own logs (`onLog`) and has ended: a log the server
   * still relates to it belongs to no one else.
   */
  readonly tookLogs: (id: JsonRpc.RequestId) => boolean
  /** Progress for a request: its idle deadline starts again. */
  readonly touch: (entry: Entry, now: number) => void
  readonly size: () => number
  /** The one origin of every outstanding request that has one; `undefined` when none or several. */
  readonly soleOrigin: () => object | undefined
}

/**
 * How many ended request ids the table remembers, to recognise answers that cross the cancellation
 * and the logs that come after a request that took its own.
 */
const MAX_REMEMBERED = 1024

/** Adds `id` to `ids`, the oldest going first past the bound (a Set iterates in insertion order). */
const remember = (ids: Set<JsonRpc.RequestId>, id: JsonRpc.RequestId) => {
  ids.add(id)
  if (ids.size > MAX_REMEMBERED) {
    for (const old of ids) {
      ids.delete(old)
      break
    }
  }
}

/** When an entry times out, and which of its limits that is. */
const dueOf = (entry: Entry): { readonly at: number; readonly kind: "idle" | "total" } => {
  const idleAt = (entry.resetOnProgress ? entry.lastActivity : entry.startedAt) + Duration.toMillis(entry.idle)
  const totalAt =
    entry.total === undefined ? Number.POSITIVE_INFINITY : entry.startedAt + Duration.toMillis(entry.total)
  return totalAt < idleAt ? { at: totalAt, kind: "total" } : { at: idleAt, kind: "idle" }
}

/** What the table needs. */
export interface PendingOptions {
  readonly server: () => string
  readonly defaultTimeout: Duration.Duration
  /** Tells the server a timed-out request is cancelled. */
  readonly cancel: (entry: Entry, reason: string) => Effect.Effect<void>
  /** Where the requests' ids come from (default: 0, 1, 2, … of this table's own). */
  readonly nextId?: (() => number) | undefined
}

/** A table whose timer runs in the scope. */
export const make = (options: PendingOptions): Effect.Effect<Pending, never, Scope.Scope> =>
  Effect.gen(function* () {
    const entries = IdTable.make<Entry>()
    const cancelled = new Set<JsonRpc.RequestId>()
    const ownLogs = new Set<JsonRpc.RequestId>()
    let counted = 0
    const nextId = options.nextId ?? (() => counted++)
    /** Takes an entry out of the table. */
    const leave = (entry: Entry) => {
      if (entry.onLog !== undefined) remember(ownLogs, entry.id)
      return entries.remove(entry)
    }
    let timerWakesAt = Number.POSITIVE_INFINITY
    const wakeTimer = yield* Effect.makeLatch(false)

    const complete: Pending["complete"] = (entry, outcome) => {
      leave(entry)
      if (entry.resume === undefined) entry.outcomeBeforeWait = outcome
      else entry.resume(outcome)
    }

    const expire = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      let next = Number.POSITIVE_INFINITY
      const due: Array<readonly [Entry, RequestTimeout]> = []
      // In the order of their ids, as they were made: so are their cancellations written.
      for (const entry of entries.values()) {
        const at = dueOf(entry)
        if (at.at <= now) {
          const timeout = at.kind === "total" && entry.total !== undefined ? entry.total : entry.idle
          const error = new RequestTimeout({ server: options.server(), method: entry.method, timeout, kind: at.kind })
          due.push([entry, error])
        } else if (at.at < next) next = at.at
      }
      for (const [entry, error] of due) {
        // Completed meanwhile (answered, or given up while an earlier cancellation was written).
        if (entries.get(entry.id) !== entry) continue
        complete(entry, Exit.fail(error))
        if (entry.cancellable) yield* options.cancel(entry, error.message)
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

    return {
      entryOf: (method, requestOptions, now, origin) => {
        const id = nextId()
        requestOptions.onId?.(id)
        return {
          id,
          method,
          onProgress: requestOptions.onProgress,
          onLog: requestOptions.onLog,
          origin,
          startedAt: now,
          idle: requestOptions.timeout === undefined ? options.defaultTimeout : Duration.decode(requestOptions.timeout),
          resetOnProgress: requestOptions.resetTimeoutOnProgress === true,
          total:
            requestOptions.maxTotalTimeout === undefined ? undefined : Duration.decode(requestOptions.maxTotalTimeout),
          cancellable: requestOptions.cancellable !== false,
          lastActivity: now,
          resume: undefined,
          outcomeBeforeWait: undefined
        }
      },
      track: (entry) => {
        entries.add(entry)
        if (dueOf(entry).at < timerWakesAt) wakeTimer.unsafeOpen()
      },
      get: (id) => entries.get(id),
      has: (entry) => entries.get(entry.id) === entry,
      complete,
      remove: leave,
      completeAll: (outcome) => {
        for (const entry of entries.values()) complete(entry, outcome)
      },
      rememberCancelled: (id) => remember(cancelled, id),
      wasCancelled: (id) => cancelled.delete(id),
      tookLogs: (id) => ownLogs.has(id),
      touch: (entry, now) => {
        entry.lastActivity = now
      },
      size: entries.size,
      soleOrigin: () => {
        let sole: object | undefined
        let several = false
        entries.forEach((entry) => {
          if (entry.origin === undefined || entry.origin === sole) return
          if (sole !== undefined) several = true
          sole = entry.origin
        })
        return several ? undefined : sole
      }
    }
  })
