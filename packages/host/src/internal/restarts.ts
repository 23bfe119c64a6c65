/**
 * A server's restarts: its sessions run one after another, restarted on the host's backoff
 * `Schedule` after one dies, its status saying so (`Reconnecting`, then `Ready` or `Failed`).
 */
import { McpError } from "@effect-mcp/client"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as SubscriptionRef from "effect/SubscriptionRef"
import { ServerStatus } from "../ServerStatus.js"
import type { Connected } from "./connect.js"
import type { Live, Settings } from "./supervisor.js"

/** What a server's restarts are made of. */
export interface RestartOptions {
  readonly name: string
  readonly settings: Settings
  readonly live: SubscriptionRef.SubscriptionRef<Live>
  readonly setStatus: (status: ServerStatus, connected: Option.Option<Connected>) => Effect.Effect<void>
  /** One session: connect, list, serve until it ends; its error is why it ended. */
  readonly session: Effect.Effect<void, McpError.InitializeError>
}

/**
 * Connects, serves, and after a session dies restarts it on the schedule. A first connection
 * that fails is final (`Failed`); a session that stayed up for `resetAfter` starts the schedule over.
 */
export const supervise = (options: RestartOptions): Effect.Effect<void> =>
  Effect.gen(function* () {
    const { name, settings, live, setStatus } = options
    // The schedule's delays as its output, taken at once: whether there is a next restart is
    // known before it is announced (and the wait is ours, under the Reconnecting status).
    const driver = yield* Schedule.driver(Schedule.modifyDelay(Schedule.delays(settings.restart), () => Duration.zero))
    let attempt = 0
    while (true) {
      const started = yield* Clock.currentTimeMillis
      const exit = yield* Effect.exit(options.session)
      if (Exit.isSuccess(exit)) return yield* setStatus(ServerStatus.Stopped(), Option.none())
      if (Cause.isInterruptedOnly(exit.cause)) return
      const cause = Option.getOrElse(
        Cause.failureOption(exit.cause),
        () =>
          new McpError.TransportError({
            server: name,
            reason: `unexpected failure: ${Cause.pretty(exit.cause)}`,
            cause: Cause.squash(exit.cause)
          })
      )
      const before = (yield* SubscriptionRef.get(live)).status
      if (before._tag === "Connecting") return yield* setStatus(ServerStatus.Failed({ cause }), Option.none())
      const now = yield* Clock.currentTimeMillis
      if (before._tag === "Ready" && now - started >= Duration.toMillis(settings.resetAfter)) {
        yield* driver.reset
        attempt = 0
      }
      const next = yield* Effect.either(driver.next(cause))
      if (next._tag === "Left") {
        yield* Effect.logWarning(
          `${name}: the session ended (${cause.message}); not restarting (${attempt} restarts in a row, the schedule is over)`
        )
        return yield* setStatus(ServerStatus.Failed({ cause }), Option.none())
      }
      attempt++
      yield* Effect.logWarning(`${name}: the session ended (${cause.message}); restarting (attempt ${attempt})`)
      yield* setStatus(ServerStatus.Reconnecting({ attempt, cause }), Option.none())
      yield* Effect.sleep(next.right)
    }
  })
