/** Sampling: a server asks the client's model for a completion, optionally with tools. */
import * as Schema from "effect/Schema"
import { optional } from "../internal/fields.js"
import { request } from "../internal/messages.js"
import { Role, TaskAugmentedRequestParams } from "./Base.js"
import { SamplingMessageContentBlock } from "./Content.js"
import { Integer, JsonNumber, JsonObject, Meta, UnitInterval } from "./Json.js"
import { Tool } from "./Tools.js"

/** A hint for model selection (a substring of a model name). */
export const ModelHint = Schema.Struct({ name: optional(Schema.String) }).annotations({ identifier: "ModelHint" })

/** The server's preferences for model selection. */
export const ModelPreferences = Schema.Struct({
  hints: optional(Schema.Array(ModelHint)),
  costPriority: optional(UnitInterval),
  speedPriority: optional(UnitInterval),
  intelligencePriority: optional(UnitInterval)
}).annotations({ identifier: "ModelPreferences" })

/** How the model may use the offered tools. */
export const ToolChoice = Schema.Struct({
  mode: optional(Schema.Literal("auto", "required", "none"))
}).annotations({ identifier: "ToolChoice" })

/** One block or several blocks of sampling content. */
const SamplingContent = Schema.Union(SamplingMessageContentBlock, Schema.Array(SamplingMessageContentBlock))

/** A message of a sampling conversation. */
export const SamplingMessage = Schema.Struct({
  role: Role,
  content: SamplingContent,
  _meta: optional(Meta)
}).annotations({ identifier: "SamplingMessage" })

/** Params of `sampling/createMessage`. */
export const CreateMessageRequestParams = Schema.Struct({
  ...TaskAugmentedRequestParams.fields,
  messages: Schema.Array(SamplingMessage),
  modelPreferences: optional(ModelPreferences),
  systemPrompt: optional(Schema.String),
  includeContext: optional(Schema.Literal("none", "thisServer", "allServers")),
  temperature: optional(JsonNumber),
  maxTokens: Integer,
  stopSequences: optional(Schema.Array(Schema.String)),
  metadata: optional(JsonObject),
  tools: optional(Schema.Array(Tool)),
  toolChoice: optional(ToolChoice)
}).annotations({ identifier: "CreateMessageRequestParams" })

/** The type of {@link CreateMessageRequestParams}. */
export type CreateMessageRequestParams = typeof CreateMessageRequestParams.Type

/** `sampling/createMessage` (server to client) */
export const CreateMessageRequest = request("sampling/createMessage", CreateMessageRequestParams).annotations({
  identifier: "CreateMessageRequest"
})

/** The client's answer to `sampling/createMessage`. */
export const CreateMessageResult = Schema.Struct({
  _meta: optional(Meta),
  role: Role,
  content: SamplingContent,
  model: Schema.String,
  stopReason: optional(Schema.String)
}).annotations({ identifier: "CreateMessageResult" })

/** The type of {@link CreateMessageResult}. */
export type CreateMessageResult = typeof CreateMessageResult.Type
