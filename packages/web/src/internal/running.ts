/**
 * Which calls are running on which server, from the tool panes and the chat alike: a server's
 * request (sampling, elicitation, roots) is shown under the call it came during when exactly one
 * of that server's calls is running.
 */
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"

/** The running calls. */
export interface Running {
  /** Runs `effect` as the call `callId` on `server`: it counts as running until it ends. */
  readonly during: (
    callId: string,
    server: string
  ) => <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** A call seen starting by its events (the chat's tool calls); {@link Running.end} when it ends. */
  readonly start: (callId: string, server: string) => Effect.Effect<void>
  readonly end: (callId: string) => Effect.Effect<void>
  /** The one call running on `server`, if exactly one is. */
  readonly only: (server: string) => Effect.Effect<string | undefined>
}

/** No call running yet. */
export const make: Effect.Effect<Running> = Effect.map(Ref.make<ReadonlyMap<string, string>>(new Map()), (calls) => {
  const start = (callId: string, server: string) => Ref.update(calls, (map) => new Map(map).set(callId, server))
  const end = (callId: string) =>
    Ref.update(calls, (map) => {
      const next = new Map(map)
      next.delete(callId)
      return next
    })
  return {
    start,
    end,
    during:
      (callId: string, server: string) =>
      <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        Effect.acquireUseRelease(
          start(callId, server),
          () => effect,
          () => end(callId)
        ),
    only: (server: string) =>
      Effect.map(Ref.get(calls), (map) => {
        const ids = [...map].filter(([, name]) => name === server).map(([callId]) => callId)
        return ids.length === 1 ? ids[0] : undefined
      })
  }
})
