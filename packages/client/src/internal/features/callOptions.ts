/** Per-call options of the client's API, and those options as the session takes them. */

import type * as Peer from "@effect-mcp/jsonrpc/Peer"
import { type McpSchema, Methods, type ProtocolVersion } from "@effect-mcp/protocol"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Retry from "../../Retry.js"
import type { RoundAnswers } from "../session/dialect.js"
import type * as Session from "../session/types.js"

/** Progress reported by the server for one request. */
export interface Progress {
  readonly progress: number
  readonly total?: number
  readonly message?: string
}

export type { RoundAnswers } from "../session/dialect.js"

/** Per-call options. */
export interface CallOptions {
  /** Overrides the client's request timeout. */
  readonly timeout?: Duration.DurationInput
  /**
   * Progress restarts the timeout, so a call that keeps reporting progress lives on (bounded by
   * `maxTotalTimeout`). Default: true for a call that asks for progress (`onProgress`).
   */
  readonly resetTimeoutOnProgress?: boolean
  /** The longest the call may take, progress or not (default: no bound beyond the timeout). */
  readonly maxTotalTimeout?: Duration.DurationInput
  /** Asks for progress and receives it. */
  readonly onProgress?: (progress: Progress) => Effect.Effect<void>
  /** This call's retry policy, over the client's (`false`: none). */
  readonly retry?: Retry.RetryPolicy | false
  /**
   * This call answers the `input_required` result of an earlier one (2026-07-28): its first request
   * carries these answers and the server's state (ignored at the stateful revisions).
   */
  readonly answering?: RoundAnswers
  /**
   * Receives this call's own log messages: those the server sends on the call's own stream (over
   * Streamable HTTP, where a server relates a log to its request), which then do not reach
   * `logMessages`, even when they come after the call ended (they are dropped then). A transport
   * that cannot tell whose a log is (stdio, the GET stream) puts every log on `logMessages`.
   */
  readonly onLog?: (message: LogMessage) => Effect.Effect<void>
  /**
   * The least severe log message the server may send for this call, over the client's level
   * (2026-07-28, where the level is a request's; at the stateful revisions the session's level,
   * `setLoggingLevel`, applies to every call).
   */
  readonly logLevel?: McpSchema.LoggingLevel
}

/** A log message (`notifications/message`) as the caller is given it. */
export type LogMessage = typeof McpSchema.LoggingMessageNotificationParams.Type

/** A `notifications/progress` notification's params as the caller is given them; `undefined` when they do not decode. */
export const progressOf = (raw: Peer.WireObject, version: ProtocolVersion.ProtocolVersion): Progress | undefined => {
  const decoded = Methods.decodeNotificationParams("notifications/progress", raw, version)
  if (Either.isLeft(decoded)) return undefined
  const { progress, total, message } = decoded.right
  return {
    progress,
    ...(total === undefined ? {} : { total }),
    ...(message === undefined ? {} : { message })
  }
}

/** The session's options for one call: timeouts and retry as given, progress decoded before it reaches the caller. */
export const toRequestOptions = (
  call: (CallOptions & { readonly idempotent?: boolean }) | undefined,
  version: ProtocolVersion.ProtocolVersion
): Session.RequestOptions => {
  if (call === undefined) return {}
  const { onProgress, onLog } = call
  return {
    ...(call.logLevel === undefined ? {} : { logLevel: call.logLevel }),
    ...(onLog === undefined
      ? {}
      : {
          onLog: (raw: Peer.WireObject) => {
            const decoded = Methods.decodeNotificationParams("notifications/message", raw, version)
            return Either.isRight(decoded) ? onLog(decoded.right) : Effect.void
          }
        }),
    ...(call.retry === undefined ? {} : { retry: call.retry }),
    ...(call.idempotent === undefined ? {} : { idempotent: call.idempotent }),
    ...(call.timeout === undefined ? {} : { timeout: call.timeout }),
    // Progress extends the deadline of a call that asked for it, unless the caller says otherwise.
    ...(call.resetTimeoutOnProgress === undefined && onProgress === undefined
      ? {}
      : { resetTimeoutOnProgress: call.resetTimeoutOnProgress ?? true }),
    ...(call.maxTotalTimeout === undefined ? {} : { maxTotalTimeout: call.maxTotalTimeout }),
    ...(call.answering === undefined ? {} : { answering: call.answering }),
    ...(onProgress === undefined
      ? {}
      : {
          onProgress: (raw: Peer.WireObject) => {
            const progress = progressOf(raw, version)
            return progress === undefined ? Effect.void : onProgress(progress)
          }
        })
  }
}
