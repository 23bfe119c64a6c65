/**
 * A bound on requests in flight, with a bounded wait queue (first come, first served): a
 * request beyond both is refused with `Overloaded` and never sent. Unbounded, there is no limiter.
 */
import * as Effect from "effect/Effect"
import { Overloaded } from "../../McpError.js"

/** Runs requests within the bound. */
export interface Limiter {
  readonly run: <A, E>(method: string, request: Effect.Effect<A, E>) => Effect.Effect<A, E | Overloaded>
  /** A slot taken there and then if one is free (nobody waits), with the function that frees it (once). */
  readonly tryAcquire: () => (() => void) | undefined
}

/** At most `maxInFlight` at once, at most `maxQueued` waiting (default: no bound on the queue); none without a bound. */
export const make = (
  server: () => string,
  maxInFlight: number | undefined,
  maxQueued: number | undefined
): Limiter | undefined => {
  if (maxInFlight === undefined || !Number.isFinite(maxInFlight)) return undefined
  const limit = Math.max(1, Math.floor(maxInFlight))
  const queueLimit = maxQueued ?? Number.POSITIVE_INFINITY
  let inFlight = 0
  const waiting: Array<() => void> = []
  // A finished request hands its slot to the first in the queue, or frees it.
  const release = () => {
    const next = waiting.shift()
    if (next === undefined) inFlight--
    else next()
  }
  const acquire = (method: string) =>
    Effect.async<void, Overloaded>((resume) => {
      if (inFlight < limit) {
        inFlight++
        return resume(Effect.void)
      }
      if (waiting.length >= queueLimit) {
        return resume(Effect.fail(new Overloaded({ server: server(), method, limit, queued: waiting.length })))
      }
      const wake = () => resume(Effect.void)
      waiting.push(wake)
      // Given up while waiting: leave the queue (or pass on a slot handed over meanwhile).
      return Effect.sync(() => {
        const at = waiting.indexOf(wake)
        if (at === -1) release()
        else waiting.splice(at, 1)
      })
    })
  return {
    tryAcquire: () => {
      if (inFlight >= limit || waiting.length > 0) return undefined
      inFlight++
      let held = true
      return () => {
        if (!held) return
        held = false
        release()
      }
    },
    run: (method, request) =>
      Effect.uninterruptibleMask((restore) =>
        Effect.zipRight(restore(acquire(method)), Effect.ensuring(restore(request), Effect.sync(release)))
      )
  }
}
