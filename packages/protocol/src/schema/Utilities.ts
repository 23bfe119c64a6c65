/** Utilities every peer supports: ping, progress and cancellation. */
import * as Schema from "effect/Schema"
import { optional } from "../internal/fields.js"
import { notification, requestOptionalParams } from "../internal/messages.js"
import { RequestId } from "../JsonRpc.js"
import { ProgressToken, RequestParams } from "./Base.js"
import { JsonNumber, Meta } from "./Json.js"

/** `ping`, in either direction; answered with an empty result. */
export const PingRequest = requestOptionalParams("ping", RequestParams).annotations({ identifier: "PingRequest" })

/** Params of `notifications/progress`. */
export const ProgressNotificationParams = Schema.Struct({
  _meta: optional(Meta),
  progressToken: ProgressToken,
  progress: JsonNumber,
  total: optional(JsonNumber),
  message: optional(Schema.String)
}).annotations({ identifier: "ProgressNotificationParams" })

/** The type of {@link ProgressNotificationParams}. */
export type ProgressNotificationParams = typeof ProgressNotificationParams.Type

/** `notifications/progress` */
export const ProgressNotification = notification("notifications/progress", ProgressNotificationParams).annotations({
  identifier: "ProgressNotification"
})

/** Params of `notifications/cancelled`. `requestId` is required before 2025-11-25. */
export const CancelledNotificationParams = Schema.Struct({
  _meta: optional(Meta),
  requestId: optional(RequestId),
  reason: optional(Schema.String)
}).annotations({ identifier: "CancelledNotificationParams" })

/** `notifications/cancelled` */
export const CancelledNotification = notification("notifications/cancelled", CancelledNotificationParams).annotations({
  identifier: "CancelledNotification"
})
