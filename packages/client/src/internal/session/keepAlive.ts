/**
 * The session's keep-alive: a `ping` on a schedule, for as long as the scope lasts. Its pings skip
 * the in-flight bound (a queue full of callers is no sign of a dead server) and are sent once more
 * after a transient failure (a keep-alive socket the server closed as the ping went out; a timeout
 * is not retried: silence for that long is the answer); a ping that still fails fails the session.
 */
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { RequestError } from "../../McpError.js"
import * as Retry from "../../Retry.js"
import { request } from "./request.js"
import type { Executor, SessionService } from "./types.js"

/** What the keep-alive needs of the session. */
export interface KeepAliveOptions extends Pick<SessionService, "prepare" | "decode"> {
  /** The session's exchange, without its bound or retries. */
  readonly exchange: Executor<RequestError>
  /** Fails the session with the ping's error. */
  readonly fail: (cause: RequestError) => Effect.Effect<void>
}

/** Pings after each delay of `schedule`; a ping that fails (none answered within `timeout`) fails the session. Runs in the scope. */
export type KeepAlive = (
  schedule: Schedule.Schedule<unknown>,
  timeout: Duration.DurationInput
) => Effect.Effect<void, never, Scope.Scope>

/** The session's keep-alive. */
export const make =
  (options: KeepAliveOptions): KeepAlive =>
  (schedule, timeout) => {
    const execute: Executor<RequestError> = (ping) =>
      Effect.retry(options.exchange(ping), {
        times: 1,
        while: (error) => error._tag === "TransportError" && Retry.transient(error) !== undefined
      })
    return Stream.fromSchedule(schedule).pipe(
      Stream.runForEach(() =>
        request({ prepare: options.prepare, execute, decode: options.decode }, "ping", undefined, { timeout })
      ),
      Effect.catchAll(options.fail),
      Effect.forkScoped,
      Effect.asVoid
    )
  }
