/** Content blocks: what tools return, prompts contain and sampling exchanges. */
import * as Schema from "effect/Schema"
import { optional } from "../internal/fields.js"
import { Annotations } from "./Base.js"
import { Base64, JsonObject, Meta } from "./Json.js"
import { Resource, ResourceContentsUnion } from "./Resources.js"

/** Text. */
export const TextContent = Schema.Struct({
  type: Schema.Literal("text"),
  text: Schema.String,
  annotations: optional(Annotations),
  _meta: optional(Meta)
}).annotations({ identifier: "TextContent" })

/** The type of {@link TextContent}. */
export type TextContent = typeof TextContent.Type

/** An image, base64-encoded. */
export const ImageContent = Schema.Struct({
  type: Schema.Literal("image"),
  data: Base64,
  mimeType: Schema.String,
  annotations: optional(Annotations),
  _meta: optional(Meta)
}).annotations({ identifier: "ImageContent" })

/** Audio, base64-encoded. */
export const AudioContent = Schema.Struct({
  type: Schema.Literal("audio"),
  data: Base64,
  mimeType: Schema.String,
  annotations: optional(Annotations),
  _meta: optional(Meta)
}).annotations({ identifier: "AudioContent" })

/** A link to a resource the client may read (not necessarily listed by `resources/list`). */
export const ResourceLink = Schema.Struct({
  type: Schema.Literal("resource_link"),
  ...Resource.fields
}).annotations({ identifier: "ResourceLink" })

/** A resource's contents embedded in a message. */
export const EmbeddedResource = Schema.Struct({
  type: Schema.Literal("resource"),
  resource: ResourceContentsUnion,
  annotations: optional(Annotations),
  _meta: optional(Meta)
}).annotations({ identifier: "EmbeddedResource" })

/** Any content block of a tool result or prompt message. */
export const ContentBlock = Schema.Union(
  TextContent,
  ImageContent,
  AudioContent,
  ResourceLink,
  EmbeddedResource
).annotations({ identifier: "ContentBlock" })

/** The type of {@link ContentBlock}. */
export type ContentBlock = typeof ContentBlock.Type

/** Sampling with tools: the model asks to call a tool. */
export const ToolUseContent = Schema.Struct({
  type: Schema.Literal("tool_use"),
  id: Schema.String,
  name: Schema.String,
  input: JsonObject,
  _meta: optional(Meta)
}).annotations({ identifier: "ToolUseContent" })

/** Sampling with tools: the result of a tool use, sent back to the model. */
export const ToolResultContent = Schema.Struct({
  type: Schema.Literal("tool_result"),
  toolUseId: Schema.String,
  content: Schema.Array(ContentBlock),
  structuredContent: optional(JsonObject),
  isError: optional(Schema.Boolean),
  _meta: optional(Meta)
}).annotations({ identifier: "ToolResultContent" })

/** Any content block of a sampling message. */
export const SamplingMessageContentBlock = Schema.Union(
  TextContent,
  ImageContent,
  AudioContent,
  ToolUseContent,
  ToolResultContent
).annotations({ identifier: "SamplingMessageContentBlock" })

/** The type of {@link SamplingMessageContentBlock}. */
export type SamplingMessageContentBlock = typeof SamplingMessageContentBlock.Type
