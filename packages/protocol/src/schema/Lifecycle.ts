/** Lifecycle: capabilities and the `initialize` handshake. */
import * as Schema from "effect/Schema"
import { optional } from "../internal/fields.js"
import { notificationOptionalParams, request } from "../internal/messages.js"
import { Implementation, NotificationParams, RequestParams } from "./Base.js"
import { JsonObject, Meta, recordOf } from "./Json.js"

const ListChanged = Schema.Struct({ listChanged: optional(Schema.Boolean) })

/** The part of the `tasks` capability both sides share: support for `tasks/list` and `tasks/cancel`. */
const taskManagement = { list: optional(JsonObject), cancel: optional(JsonObject) }

/**
 * Extensions a side supports (SEP-2133; a member of the capabilities from 2026-07-28, sent in
 * 2025-11-25 handshakes too): extension identifier → its settings (`{}`: supported, no settings).
 */
export const Extensions = recordOf(JsonObject).annotations({ identifier: "Extensions" })

/** What a client supports. Each member present means the feature is supported. */
export const ClientCapabilities = Schema.Struct({
  experimental: optional(recordOf(JsonObject)),
  extensions: optional(Extensions),
  roots: optional(ListChanged),
  sampling: optional(Schema.Struct({ context: optional(JsonObject), tools: optional(JsonObject) })),
  elicitation: optional(Schema.Struct({ form: optional(JsonObject), url: optional(JsonObject) })),
  tasks: optional(
    Schema.Struct({
      ...taskManagement,
      requests: optional(
        Schema.Struct({
          sampling: optional(Schema.Struct({ createMessage: optional(JsonObject) })),
          elicitation: optional(Schema.Struct({ create: optional(JsonObject) }))
        })
      )
    })
  )
}).annotations({ identifier: "ClientCapabilities" })

/** The type of {@link ClientCapabilities}. */
export type ClientCapabilities = typeof ClientCapabilities.Type

/** What a server supports. Each member present means the feature is supported. */
export const ServerCapabilities = Schema.Struct({
  experimental: optional(recordOf(JsonObject)),
  extensions: optional(Extensions),
  logging: optional(JsonObject),
  completions: optional(JsonObject),
  prompts: optional(ListChanged),
  resources: optional(Schema.Struct({ subscribe: optional(Schema.Boolean), listChanged: optional(Schema.Boolean) })),
  tools: optional(ListChanged),
  tasks: optional(
    Schema.Struct({
      ...taskManagement,
      requests: optional(
        Schema.Struct({
          tools: optional(Schema.Struct({ call: optional(JsonObject) }))
        })
      )
    })
  )
}).annotations({ identifier: "ServerCapabilities" })

/** The type of {@link ServerCapabilities}. */
export type ServerCapabilities = typeof ServerCapabilities.Type

/** Params of `initialize`. */
export const InitializeRequestParams = Schema.Struct({
  ...RequestParams.fields,
  protocolVersion: Schema.String,
  capabilities: ClientCapabilities,
  clientInfo: Implementation
}).annotations({ identifier: "InitializeRequestParams" })

/** The type of {@link InitializeRequestParams}. */
export type InitializeRequestParams = typeof InitializeRequestParams.Type

/** `initialize`: the first request of a session. */
export const InitializeRequest = request("initialize", InitializeRequestParams).annotations({
  identifier: "InitializeRequest"
})

/** The server's answer to `initialize`. */
export const InitializeResult = Schema.Struct({
  _meta: optional(Meta),
  protocolVersion: Schema.String,
  capabilities: ServerCapabilities,
  serverInfo: Implementation,
  instructions: optional(Schema.String)
}).annotations({ identifier: "InitializeResult" })

/** The type of {@link InitializeResult}. */
export type InitializeResult = typeof InitializeResult.Type

/** `notifications/initialized`: the client finished initialization. */
export const InitializedNotification = notificationOptionalParams(
  "notifications/initialized",
  NotificationParams
).annotations({ identifier: "InitializedNotification" })
