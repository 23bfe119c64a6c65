/**
 * The inbound side of a transport: items are handed to the reader the moment they arrive, by a
 * plain function call (no queue, no fiber per item). Until a reader runs they wait in a buffer;
 * after the end, nothing more is accepted.
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type { TransportError } from "../../PeerError.js"
import type { Incoming, TransportService } from "./types.js"

/** Where a transport puts what it receives. */
export interface Inbound {
  /** Hands one item to the reader (or buffers it). `false` once the inbound has ended. */
  readonly unsafeOffer: (item: Incoming) => boolean
  readonly offer: (item: Incoming) => Effect.Effect<boolean>
  readonly offerAll: (items: Iterable<Incoming>) => Effect.Effect<boolean>
  /** Ends the inbound: cleanly, or with the connection's failure. The first end wins. */
  readonly unsafeDone: (exit: Exit.Exit<void, TransportError>) => void
  readonly end: Effect.Effect<void>
  readonly fail: (error: TransportError) => Effect.Effect<void>
  /** The transport's `run`. */
  readonly run: TransportService["run"]
}

/** A new inbound with no reader. */
export const make = (): Inbound => {
  let reader: ((item: Incoming) => void) | undefined
  let buffer: Array<Incoming> = []
  let outcome: Exit.Exit<void, TransportError> | undefined
  let finish: ((exit: Exit.Exit<void, TransportError>) => void) | undefined

  const unsafeOffer = (item: Incoming): boolean => {
    if (outcome !== undefined) return false
    if (reader === undefined) buffer.push(item)
    else reader(item)
    return true
  }
  const unsafeDone = (exit: Exit.Exit<void, TransportError>) => {
    if (outcome !== undefined) return
    outcome = exit
    finish?.(exit)
  }
  const run: TransportService["run"] = (deliver) =>
    Effect.async<void, TransportError>((resume) => {
      if (reader !== undefined) return resume(Effect.dieMessage("a transport was read by two readers at once"))
      const waiting = buffer
      buffer = []
      for (const item of waiting) deliver(item)
      if (outcome !== undefined) return resume(outcome)
      reader = deliver
      finish = (exit) => {
        reader = undefined
        finish = undefined
        resume(exit)
      }
      return Effect.sync(() => {
        reader = undefined
        finish = undefined
      })
    })
  return {
    unsafeOffer,
    offer: (item) => Effect.sync(() => unsafeOffer(item)),
    offerAll: (items) =>
      Effect.sync(() => {
        let accepted = true
        for (const item of items) accepted = unsafeOffer(item)
        return accepted
      }),
    unsafeDone,
    end: Effect.sync(() => unsafeDone(Exit.void)),
    fail: (error) => Effect.sync(() => unsafeDone(Exit.fail(error))),
    run
  }
}
