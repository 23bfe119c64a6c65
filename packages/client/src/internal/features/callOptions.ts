/** Per-call options of the client's API, as the peer takes them. */
import { Methods } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type { CallOptions } from "../../McpClient.js"
import type * as Peer from "../peer/peer.js"
import type * as Session from "../session/session.js"

/** The session's options for one call: timeouts and retry as given, progress decoded before it reaches the caller. */
export const toRequestOptions = (
  call: (CallOptions & { readonly idempotent?: boolean }) | undefined
): Session.RequestOptions => {
  if (call === undefined) return {}
  const onProgress = call.onProgress
  return {
    ...(call.retry === undefined ? {} : { retry: call.retry }),
    ...(call.idempotent === undefined ? {} : { idempotent: call.idempotent }),
    ...(call.timeout === undefined ? {} : { timeout: call.timeout }),
    ...(call.resetTimeoutOnProgress === undefined ? {} : { resetTimeoutOnProgress: call.resetTimeoutOnProgress }),
    ...(call.maxTotalTimeout === undefined ? {} : { maxTotalTimeout: call.maxTotalTimeout }),
    ...(onProgress === undefined
      ? {}
      : {
          onProgress: (raw: Peer.WireObject) => {
            const decoded = Methods.decodeNotificationParams("notifications/progress", raw)
            if (Either.isLeft(decoded)) return Effect.void
            const { progress, total, message } = decoded.right
            return onProgress({
              progress,
              ...(total === undefined ? {} : { total }),
              ...(message === undefined ? {} : { message })
            })
          }
        })
  }
}
