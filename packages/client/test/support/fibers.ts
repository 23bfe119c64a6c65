/** Asserting that an effect leaves no fiber behind: every fiber it forked has ended. */
import { expect } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Supervisor from "effect/Supervisor"

/**
 * Runs the effect under a tracking supervisor; afterwards, none of its fibers may still run once
 * `within` has passed. Interrupted fibers get that long to finish unwinding: 15 s by default,
 * because on a loaded CI machine (every project collecting at once) the first tests' server
 * processes take seconds to stop, and the platform's daemon fibers feeding their stdin end only
 * when the pipes close.
 */
export const noFibersLeft = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  within: Duration.DurationInput = "15 seconds"
): Effect.Effect<A, E, R> =>
  Effect.gen(function* () {
    const supervisor = yield* Supervisor.track
    const result = yield* Effect.supervised(effect, supervisor)
    const attempts = Math.max(1, Math.ceil(Duration.toMillis(within) / 20))
    for (let attempt = 0; attempt < attempts; attempt++) {
      const fibers = yield* supervisor.value
      const statuses = yield* Effect.forEach(fibers, Fiber.status)
      if (statuses.every((status) => status._tag === "Done")) return result
      yield* Effect.sleep("20 millis")
    }
    const left = yield* supervisor.value
    expect(left.map((fiber) => fiber.id())).toStrictEqual([])
    return result
  })
