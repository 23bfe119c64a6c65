/**
 * The session's one cell: its lifecycle state and what it speaks (what the last handshake or
 * discovery established, with the dialect that goes with it), owned here and changed only by this
 * module's moves, every state move published to those watching. The state moves only along the
 * legal transitions of `SessionState.canMove`; a refused move (a late failure after closing)
 * changes and publishes nothing. Becoming `Ready` and what the session then speaks change in one
 * step, so no request sees the one without the other.
 *
 * Why a plain cell and not a `SubscriptionRef`: the request path reads both on every request from
 * plain, total steps (`steps.ts`, shared with the Promise adapter), and Effect 3's `Ref` has no
 * public synchronous read; moves are synchronous, so moves from several fibers never interleave.
 */
import type { McpSchema } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as PubSub from "effect/PubSub"
import * as Stream from "effect/Stream"
import { canMove, isTerminal, SessionState } from "../../SessionState.js"
import type { Dialect } from "./dialect.js"
import type { Established } from "./established.js"

/** What a session speaks: what was established, and the dialect to speak it in. */
export interface Speaking {
  readonly established: Established
  readonly dialect: Dialect
}

/** The state and what the session speaks, and their moves. */
export interface Lifecycle {
  /** The state now (the request path reads it on every request, with no effect). */
  readonly current: () => SessionState
  /** What the session speaks now (before the first establishment: what was requested). */
  readonly speaking: () => Speaking
  /** The state now, as an effect. */
  readonly get: Effect.Effect<SessionState>
  /** The state now, then each move, ending with a terminal state (`Closed`, `Failed`). */
  readonly changes: Stream.Stream<SessionState>
  /** Moves to `next` if that is legal from where the session is; else nothing happens. */
  readonly move: (next: SessionState) => Effect.Effect<void>
  /** Makes `next` what the session speaks and moves to `Ready`, in one step, if that move is legal. */
  readonly establish: (next: Speaking) => Effect.Effect<void>
  /** Keeps who answered, as a stateless result's `_meta` says (the rest of what was established stays). */
  readonly answeredBy: (serverInfo: McpSchema.Implementation) => Effect.Effect<void>
}

/** A lifecycle in `Disconnected`, speaking `initial` until something is established. */
export const make = (initial: Speaking): Effect.Effect<Lifecycle> =>
  Effect.gen(function* () {
    let current: SessionState = SessionState.Disconnected()
    let speaking = initial
    const moves = yield* PubSub.unbounded<SessionState>()
    const moveNow = (next: SessionState): boolean => {
      if (!canMove(current, next)) return false
      current = next
      moves.unsafeOffer(next)
      return true
    }
    return {
      current: () => current,
      speaking: () => speaking,
      get: Effect.sync(() => current),
      // Subscribed before the state is read, so no move falls between the two.
      changes: Stream.unwrapScoped(
        Effect.map(PubSub.subscribe(moves), (queue) => Stream.concat(Stream.succeed(current), Stream.fromQueue(queue)))
      ).pipe(Stream.takeUntil(isTerminal)),
      // The check and the change are one synchronous step: moves from several fibers never interleave.
      move: (next) => Effect.sync(() => void moveNow(next)),
      establish: (next) =>
        Effect.sync(() => {
          const { protocolVersion: version, serverInfo } = next.established
          if (!canMove(current, SessionState.Ready({ version, serverInfo }))) return
          speaking = next
          moveNow(SessionState.Ready({ version, serverInfo }))
        }),
      answeredBy: (serverInfo) =>
        Effect.sync(() => {
          speaking = { ...speaking, established: { ...speaking.established, serverInfo } }
        })
    }
  })
