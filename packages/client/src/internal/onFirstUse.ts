/**
 * A value built at its first use, not up front: from modules imported then (a JSON Schema engine,
 * a YAML parser: imports a program that never needs them should not pay for), or a part of a
 * client that many programs never touch (its resources, prompts, skills).
 *
 * Ajv and `yaml` load this way, which took ~70 ms off every start. Their imports go through
 * modules of ours (`features/jsonSchemaEngines.ts`, `features/yamlDocument.ts`), so that Node and
 * the CLI's bundler resolve their CommonJS exports as they would for a static import. Building
 * resources, prompts and skills at first use saves ~10 KB per client that never uses them.
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as FiberId from "effect/FiberId"
import * as Scope from "effect/Scope"

/** A value loaded once, the first time an effect needs it. */
export interface OnFirstUse<A> {
  /**
   * `f` of the value: with the value loaded, `f(value)` itself (decided when called, no step
   * added); before, an effect that loads it first. A failed import is a defect (the next use tries again).
   */
  readonly use: <B, E, R>(f: (value: A) => Effect.Effect<B, E, R>) => Effect.Effect<B, E, R>
  /** The value, once some use loaded it. */
  readonly now: () => A | undefined
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
    use: (f) => (loaded !== undefined ? f(loaded.value) : Effect.flatMap(ready, f)),
    now: () => loaded?.value
  }
}

/** A part built on first use, and what it is once built. */
export interface Part<A> {
  /** The part: built by the first run that needs it, the same one ever after. */
  readonly get: Effect.Effect<A>
  /** The part, once some run built it. */
  readonly now: () => A | undefined
}

/**
 * `build()` run in `scope` when a run of `get` first needs it; concurrent first runs wait on that
 * one build (never interrupted half made). Until then nothing of it is made, not even its description.
 */
export const part = <A>(build: () => Effect.Effect<A, never, Scope.Scope>, scope: Scope.Scope): Part<A> => {
  let built: A | undefined
  let building: Deferred.Deferred<A> | undefined
  return {
    get: Effect.suspend(() => {
      if (built !== undefined) return Effect.succeed(built)
      if (building !== undefined) return Deferred.await(building)
      const deferred = Deferred.unsafeMake<A>(FiberId.none)
      building = deferred
      return Scope.extend(build(), scope).pipe(
        Effect.tap((value) => {
          built = value
          return Deferred.succeed(deferred, value)
        }),
        Effect.uninterruptible
      )
    }),
    now: () => built
  }
}
