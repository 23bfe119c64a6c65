/**
 * A value built from modules imported on first use, not when the program starts (a JSON Schema
 * engine, a YAML parser: ~70 ms of import that a program which never needs them should not pay).
 */
import * as Effect from "effect/Effect"

/** A value loaded once, the first time an effect needs it. */
export interface OnFirstUse<A> {
  /**
   * `f` of the value: with the value loaded, `f(value)` itself (decided when called, no step
   * added); before, an effect that loads it first. A failed import is a defect (the next use tries again).
   */
  readonly use: <B, E, R>(f: (value: A) => Effect.Effect<B, E, R>) => Effect.Effect<B, E, R>
}

/** `load` runs at most once, when `use` first needs the value (concurrent first uses share it). */
export const make = <A>(load: () => Promise<A>): OnFirstUse<A> => {
  let loaded: { readonly value: A } | undefined
  let pending: Promise<A> | undefined
  const ready = Effect.promise(() => {
    pending ??= load().then(
      (value) => {
        loaded = { value }
        return value
      },
      (error: unknown) => {
        // A failed import is not kept: the next use tries again.
        pending = undefined
        throw error
      }
    )
    return pending
  })
  return {
    use: (f) => (loaded !== undefined ? f(loaded.value) : Effect.flatMap(ready, f))
  }
}
