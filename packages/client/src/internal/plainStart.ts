/**
 * One executor for both ways of calling: the effect of a call that has a plain form is that
 * start, awaited in the calling fiber, whenever the fiber holds nothing the effect would read
 * (`Peer.startsPlainly`), and the start can be made (it says it cannot by giving back nothing).
 * Otherwise, and for a function without a plain form (a decorated one), the effect as composed.
 */
import * as Peer from "@effect-mcp/jsonrpc/Peer"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"

/** `start` awaited (interrupted: given up) where it can run, else `effect`. */
export const viaStart = <A, E>(
  start: (onDone: (outcome: Exit.Exit<A, E>) => void) => (() => void) | undefined,
  effect: () => Effect.Effect<A, E>
): Effect.Effect<A, E> =>
  Effect.withFiberRuntime((fiber) =>
    Peer.startsPlainly(fiber)
      ? Effect.async<A, E>((resume) => {
          const giveUp = start(resume)
          if (giveUp === undefined) return resume(effect())
          return Effect.sync(giveUp)
        })
      : effect()
  )
