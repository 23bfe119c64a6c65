/** Prompts: templated messages a server offers to the user. */
import * as Schema from "effect/Schema"
import { optional } from "../internal/fields.js"
import { notificationOptionalParams, request, requestOptionalParams } from "../internal/messages.js"
import {
  BaseMetadata,
  Icons,
  NotificationParams,
  PaginatedRequestParams,
  PaginatedResult,
  RequestParams,
  Role
} from "./Base.js"
import { ContentBlock } from "./Content.js"
import { Meta, recordOf } from "./Json.js"

/** An argument a prompt accepts. */
export const PromptArgument = Schema.Struct({
  ...BaseMetadata.fields,
  description: optional(Schema.String),
  required: optional(Schema.Boolean)
}).annotations({ identifier: "PromptArgument" })

/** A prompt or prompt template. */
export const Prompt = Schema.Struct({
  ...BaseMetadata.fields,
  description: optional(Schema.String),
  arguments: optional(Schema.Array(PromptArgument)),
  ...Icons.fields,
  _meta: optional(Meta)
}).annotations({ identifier: "Prompt" })

/** The type of {@link Prompt}. */
export type Prompt = typeof Prompt.Type

/** One message of a prompt. */
export const PromptMessage = Schema.Struct({
  role: Role,
  content: ContentBlock
}).annotations({ identifier: "PromptMessage" })

/** Identifies a prompt (completion references). */
export const PromptReference = Schema.Struct({
  type: Schema.Literal("ref/prompt"),
  ...BaseMetadata.fields
}).annotations({ identifier: "PromptReference" })

/** `prompts/list` */
export const ListPromptsRequest = requestOptionalParams("prompts/list", PaginatedRequestParams).annotations({
  identifier: "ListPromptsRequest"
})

/** The result of `prompts/list`. */
export const ListPromptsResult = Schema.Struct({
  ...PaginatedResult.fields,
  prompts: Schema.Array(Prompt)
}).annotations({ identifier: "ListPromptsResult" })

/** Params of `prompts/get`. */
export const GetPromptRequestParams = Schema.Struct({
  ...RequestParams.fields,
  name: Schema.String,
  arguments: optional(recordOf(Schema.String))
}).annotations({ identifier: "GetPromptRequestParams" })

/** `prompts/get` */
export const GetPromptRequest = request("prompts/get", GetPromptRequestParams).annotations({
  identifier: "GetPromptRequest"
})

/** The result of `prompts/get`. */
export const GetPromptResult = Schema.Struct({
  _meta: optional(Meta),
  description: optional(Schema.String),
  messages: Schema.Array(PromptMessage)
}).annotations({ identifier: "GetPromptResult" })

/** `notifications/prompts/list_changed` */
export const PromptListChangedNotification = notificationOptionalParams(
  "notifications/prompts/list_changed",
  NotificationParams
).annotations({ identifier: "PromptListChangedNotification" })
