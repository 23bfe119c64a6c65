/** Logging: the client sets a level; the server sends log messages. */
import * as Schema from "effect/Schema"
import { optional } from "../internal/fields.js"
import { notification, request } from "../internal/messages.js"
import { RequestParams } from "./Base.js"
import { JsonValue, Meta } from "./Json.js"

/** Syslog severities (RFC 5424), from least to most severe. */
export const LoggingLevel = Schema.Literal(
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency"
).annotations({ identifier: "LoggingLevel" })

/** The type of {@link LoggingLevel}. */
export type LoggingLevel = typeof LoggingLevel.Type

/** Params of `logging/setLevel`. */
export const SetLevelRequestParams = Schema.Struct({
  ...RequestParams.fields,
  level: LoggingLevel
}).annotations({ identifier: "SetLevelRequestParams" })

/** `logging/setLevel` */
export const SetLevelRequest = request("logging/setLevel", SetLevelRequestParams).annotations({
  identifier: "SetLevelRequest"
})

/** Params of `notifications/message`. */
export const LoggingMessageNotificationParams = Schema.Struct({
  _meta: optional(Meta),
  level: LoggingLevel,
  logger: optional(Schema.String),
  data: JsonValue
}).annotations({ identifier: "LoggingMessageNotificationParams" })

/** `notifications/message`: a log message from the server. */
export const LoggingMessageNotification = notification(
  "notifications/message",
  LoggingMessageNotificationParams
).annotations({ identifier: "LoggingMessageNotification" })
