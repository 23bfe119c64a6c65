/**
 * The session's state machine: one current state, moved only along the legal transitions of
 * `SessionState.canMove`, and every move published to those watching. A refused move (a late
 * failure after closing) changes and publishes nothing.
 */
import * as Effect from "effect/Effect"
import * as PubSub from "effect/PubSub"
import * as Stream from "effect/Stream"
import { canMove, isTerminal, SessionState } from "../../SessionState.js"

/** The state, and its moves. */
export interface Lifecycle {
  /** The state now (the request path reads it on every request, with no effect). */
  readonly current: () => SessionState
  /** The state now, as an effect. */
  readonly get: Effect.Effect<SessionState>
  /** The state now, then each move, ending with a terminal state (`Closed`, `Failed`). */
  readonly changes: Stream.Stream<SessionState>
  /** Moves to `next` if that is legal from where the session is; else nothing happens. */
  readonly move: (next: SessionState) => Effect.Effect<void>
}

/** A lifecycle in `Disconnected`. */
export const make: Effect.Effect<Lifecycle> = Effect.gen(function* () {
  let current: SessionState = SessionState.Disconnected()
  const moves = yield* PubSub.unbounded<SessionState>()
  return {
    current: () => current,
    get: Effect.sync(() => current),
    // Subscribed before the state is read, so no move falls between the two.
    changes: Stream.unwrapScoped(
      Effect.map(PubSub.subscribe(moves), (queue) => Stream.concat(Stream.succeed(current), Stream.fromQueue(queue)))
    ).pipe(Stream.takeUntil(isTerminal)),
    // The check and the change are one synchronous step: moves from several fibers never interleave.
    move: (next) =>
      Effect.sync(() => {
        if (!canMove(current, next)) return
        current = next
        moves.unsafeOffer(next)
      })
  }
})
