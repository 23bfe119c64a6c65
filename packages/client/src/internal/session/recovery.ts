/**
 * Recovery of a session an HTTP server forgot: the requests that meet `SessionExpired` make the
 * session initialize again (once for all of them), then are sent again, at most `retries` times
 * each. The re-initialization is the session's own work, in a fiber of its scope that the
 * requests join: one given up meanwhile does not stop it (the others wait on it, and it restores
 * what the session had, such as resource subscriptions; its `initialize` is never abandoned).
 *
 * After it the session refreshes what it established, subscribes again and resends
 * (`sessionRetries`); a `SessionExpired` met again after re-establishing moves the session to
 * `Failed` (a host restarts it).
 */

import type * as Peer from "@effect-mcp/jsonrpc/Peer"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as FiberHandle from "effect/FiberHandle"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type { RequestError, SessionExpired } from "../../McpError.js"
import type { WireError } from "./dialect.js"
import type { Executor, Prepared } from "./types.js"

/** What recovery needs from the session. */
export interface RecoveryOptions {
  /** How many times one request is sent again after the session was established again. */
  readonly retries: number
  /** Establishes the session again (the handshake, then what it had); fails the session when it cannot. */
  readonly reinitialization: Effect.Effect<void, RequestError>
  /** Restores what the session had (its requests go past recovery), once it is established again. */
  readonly restore: Effect.Effect<void>
  /** The request for the session as it now is (its params taken down to the revision it now speaks). */
  readonly refresh: (request: Prepared) => Either.Either<Prepared, RequestError>
  /**
   * The session could not be kept: a request met the expired session again after it was
   * established again (its retries spent). The session moves to `Failed`, so a host restarts it.
   */
  readonly lost: (error: SessionExpired) => Effect.Effect<void>
  /** Whether the session can still be established again (a failed or closed one cannot). */
  readonly alive: () => boolean
}

/**
 * An executor combinator: requests that meet an expired session recover, other failures are theirs.
 * The re-initialization runs in the scope this is made in (the session's), with the services and
 * logger it was made with, once at a time: a `FiberHandle` run with `onlyIfMissing`.
 */
export const make = (
  options: RecoveryOptions
): Effect.Effect<(executor: Executor<WireError>) => Executor<WireError>, never, Scope.Scope> =>
  Effect.gen(function* () {
    const handle = yield* FiberHandle.make<void, RequestError>()
    const fork = yield* FiberHandle.runtime(handle)<never>()
    const running = () => FiberHandle.unsafeGet(handle)
    // The session's generation: how many times it was established again. A request that failed in
    // generation n asks for re-initialization only if the session is still in n.
    let generation = 0
    const reinitialization = options.reinitialization.pipe(
      Effect.tap(() => Effect.sync(() => generation++)),
      Effect.zipRight(options.restore)
    )
    // Awaited, not joined: a request given up meanwhile neither stops it nor takes its fiber refs.
    const reinitialize = (seen: number): Effect.Effect<void, RequestError> =>
      Effect.suspend(() => {
        if (seen !== generation) return Effect.void
        const fiber = Option.getOrElse(running(), () => fork(reinitialization, { onlyIfMissing: true }))
        return Effect.flatten(Fiber.await(fiber))
      })

    return (executor: Executor<WireError>): Executor<WireError> =>
      (request) => {
        const run = (current: Prepared, retriesLeft: number): Effect.Effect<Peer.WireObject, WireError> =>
          Effect.suspend(() => {
            const seen = generation
            return Effect.catchIf(
              executor(current),
              // A session that failed (a re-initialization did not succeed) is not initialized again.
              (error) =>
                error._tag === "SessionExpired" && retriesLeft > 0 && (Option.isSome(running()) || options.alive()),
              () =>
                Effect.zipRight(
                  reinitialize(seen),
                  Effect.suspend(() => {
                    const refreshed = options.refresh(current)
                    return Either.isLeft(refreshed)
                      ? Effect.fail(refreshed.left)
                      : run(refreshed.right, retriesLeft - 1)
                  })
                )
            )
          })
        return Effect.tapError(run(request, options.retries), (error) =>
          error._tag === "SessionExpired" && options.alive() ? options.lost(error) : Effect.void
        )
      }
  })
