/**
 * Combinators over a session's request path: a bound on requests in flight, and retries of
 * transient failures. Each takes a session and gives one whose `execute` (and its plain form, the
 * Promise adapter's way in) does the more; `Session.make` applies them when the
 * options ask for them (`maxInFlight`, `retry`), and a program may apply them to any session.
 */
import * as PlainForm from "@effect-mcp/jsonrpc/PlainForm"
import type * as Retry from "../../Retry.js"
import * as Executor from "./executor.js"
import * as Limiter from "./limiter.js"
import type { SessionOptions, SessionService, StartExecute } from "./types.js"

/** How many requests may be in flight, and how many wait beyond them (`Overloaded` past both). */
export interface Bound {
  readonly maxInFlight: number
  /** Default: no bound on the queue. */
  readonly maxQueued?: number | undefined
}

/** The session with at most `bound.maxInFlight` requests in flight; unbounded when it is not finite. */
export const bounded =
  (bound: Bound) =>
  <S extends SessionService>(session: S): S => {
    const limiter = Limiter.make(() => session.server, bound.maxInFlight, bound.maxQueued)
    if (limiter === undefined) return session
    const execute = Executor.limited(limiter)(session.execute)
    const start = PlainForm.of(session.execute)
    if (start === undefined) return { ...session, execute }
    // A request started from plain code holds a slot until its outcome or its giving up.
    const startLimited: StartExecute = (request, onDone) => {
      const release = limiter.tryAcquire()
      if (release === undefined) return undefined
      const giveUp = start(request, (outcome) => {
        release()
        onDone(outcome)
      })
      if (giveUp === undefined) {
        release()
        return undefined
      }
      return () => {
        try {
          giveUp()
        } finally {
          release()
        }
      }
    }
    return { ...session, execute: PlainForm.attach(execute, startLimited) }
  }

/**
 * The session with reads and tool calls retried after a transient failure as `settings` say (a
 * tool call that may have reached the server only when it is idempotent). A request with a retry
 * policy is never started from plain code.
 */
export const retried =
  (settings: Retry.RetrySettings) =>
  <S extends SessionService>(session: S): S => {
    const policy = Executor.policyOf(settings)
    const execute = Executor.retrying(() => session.server, policy)(session.execute)
    const start = PlainForm.of(session.execute)
    if (start === undefined) return { ...session, execute }
    const startUnlessRetried: StartExecute = (request, onDone) =>
      policy(request.method, request.options) === undefined ? start(request, onDone) : undefined
    return { ...session, execute: PlainForm.attach(execute, startUnlessRetried) }
  }

/** The combinators the session's options ask for (`maxInFlight`/`maxQueued`, `retry`): the options are sugar. */
export const fromOptions =
  (options: Pick<SessionOptions, "maxInFlight" | "maxQueued" | "retry">) =>
  (session: SessionService): SessionService => {
    const limited =
      options.maxInFlight === undefined
        ? session
        : bounded({ maxInFlight: options.maxInFlight, maxQueued: options.maxQueued })(session)
    return options.retry === undefined ? limited : retried(options.retry)(limited)
  }
