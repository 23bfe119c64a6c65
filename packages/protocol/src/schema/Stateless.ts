/**
 * What the stateless revision (2026-07-28) adds to the wire: `server/discover`, the `_meta`
 * keys every request carries, results that ask for input (multi round-trip requests), and the
 * error data that steers version selection, and the definitions whose 2026-07-28 form a
 * 2025-11-25 schema would refuse (`Stateless…`; the method table picks them for that revision).
 * Everything else of that revision decodes with the 2025-11-25 schemas (unknown members are
 * dropped).
 */
import * as Schema from "effect/Schema"
import { optional } from "../internal/fields.js"
import { Implementation } from "./Base.js"
import { AudioContent, ImageContent, TextContent, ToolResultContent, ToolUseContent } from "./Content.js"
import { ElicitRequestFormParams } from "./Elicitation.js"
import { JsonObject, JsonValue, Meta, Uri } from "./Json.js"
import { ServerCapabilities } from "./Lifecycle.js"
import { CreateMessageRequestParams, SamplingMessage } from "./Sampling.js"
import { CallToolResult, JsonSchemaObject, ListToolsResult, ObjectJsonSchema, Tool } from "./Tools.js"

/** The `_meta` keys of a 2026-07-28 request and result. */
export const MetaKey = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId"
} as const

/**
 * The answer to `server/discover`: the revisions, capabilities and identity of the server.
 * `serverInfo` is read from `_meta` (the spec's place) or, leniently, from the result itself.
 */
export const DiscoverResult = Schema.Struct({
  _meta: optional(Meta),
  supportedVersions: Schema.Array(Schema.String),
  capabilities: ServerCapabilities,
  serverInfo: optional(Implementation),
  instructions: optional(Schema.String),
  ttlMs: optional(Schema.Number),
  cacheScope: optional(Schema.String)
}).annotations({ identifier: "DiscoverResult" })

/** The type of {@link DiscoverResult}. */
export type DiscoverResult = typeof DiscoverResult.Type

/** One request for input inside an `input_required` result: a server request without an id. */
export const InputRequest = Schema.Struct({
  method: Schema.String,
  params: optional(JsonObject)
}).annotations({ identifier: "InputRequest" })

/** The type of {@link InputRequest}. */
export type InputRequest = typeof InputRequest.Type

/** An interim result: the server needs input (`inputRequests`) and/or a retry carrying `requestState`. */
export const InputRequiredResult = Schema.Struct({
  _meta: optional(Meta),
  resultType: Schema.Literal("input_required"),
  inputRequests: optional(Schema.Record({ key: Schema.String, value: InputRequest })),
  requestState: optional(Schema.String)
}).annotations({ identifier: "InputRequiredResult" })

/** The type of {@link InputRequiredResult}. */
export type InputRequiredResult = typeof InputRequiredResult.Type

/** The data of a `-32022` error: the revisions the server supports, and the one it was asked for. */
export const UnsupportedProtocolVersionData = Schema.Struct({
  supported: Schema.Array(Schema.String),
  requested: optional(Schema.String)
}).annotations({ identifier: "UnsupportedProtocolVersionData" })

/** The type of {@link UnsupportedProtocolVersionData}. */
export type UnsupportedProtocolVersionData = typeof UnsupportedProtocolVersionData.Type

/**
 * A 2026-07-28 tool: its `inputSchema` constrains only `type: "object"`, and its `outputSchema`
 * may be any JSON Schema object.
 */
export const StatelessTool = Schema.Struct({
  ...Tool.fields,
  inputSchema: ObjectJsonSchema,
  outputSchema: optional(JsonSchemaObject)
}).annotations({ identifier: "StatelessTool" })

/** The type of {@link StatelessTool}. */
export type StatelessTool = typeof StatelessTool.Type

/** The 2026-07-28 result of `tools/list`: its tools are {@link StatelessTool}s. */
export const StatelessListToolsResult = Schema.Struct({
  ...ListToolsResult.fields,
  tools: Schema.Array(StatelessTool)
}).annotations({ identifier: "StatelessListToolsResult" })

/** The 2026-07-28 result of `tools/call`: `structuredContent` may be any JSON value. */
export const StatelessCallToolResult = Schema.Struct({
  ...CallToolResult.fields,
  structuredContent: optional(JsonValue)
}).annotations({ identifier: "StatelessCallToolResult" })

/** The type of {@link StatelessCallToolResult}. */
export type StatelessCallToolResult = typeof StatelessCallToolResult.Type

/**
 * The 2026-07-28 params of a URL-mode `elicitation/create` (an input request): that revision
 * has no `elicitationId` (nor `notifications/elicitation/complete`); one sent anyway is kept.
 */
export const StatelessElicitRequestURLParams = Schema.Struct({
  mode: Schema.Literal("url"),
  message: Schema.String,
  url: Uri,
  elicitationId: optional(Schema.String)
}).annotations({ identifier: "StatelessElicitRequestURLParams" })

/** The 2026-07-28 params of `elicitation/create`, either mode. */
export const StatelessElicitRequestParams = Schema.Union(
  StatelessElicitRequestURLParams,
  ElicitRequestFormParams
).annotations({ identifier: "StatelessElicitRequestParams" })

/** A 2026-07-28 tool result inside a sampling message: `structuredContent` may be any JSON value. */
export const StatelessToolResultContent = Schema.Struct({
  ...ToolResultContent.fields,
  structuredContent: optional(JsonValue)
}).annotations({ identifier: "StatelessToolResultContent" })

const StatelessSamplingBlock = Schema.Union(
  TextContent,
  ImageContent,
  AudioContent,
  ToolUseContent,
  StatelessToolResultContent
)

/** A 2026-07-28 sampling message (its tool results as {@link StatelessToolResultContent}). */
export const StatelessSamplingMessage = Schema.Struct({
  ...SamplingMessage.fields,
  content: Schema.Union(StatelessSamplingBlock, Schema.Array(StatelessSamplingBlock))
}).annotations({ identifier: "StatelessSamplingMessage" })

/** The 2026-07-28 params of `sampling/createMessage` (an input request): its tools are {@link StatelessTool}s. */
export const StatelessCreateMessageRequestParams = Schema.Struct({
  ...CreateMessageRequestParams.fields,
  messages: Schema.Array(StatelessSamplingMessage),
  tools: optional(Schema.Array(StatelessTool))
}).annotations({ identifier: "StatelessCreateMessageRequestParams" })

/** The type of {@link StatelessCreateMessageRequestParams}. */
export type StatelessCreateMessageRequestParams = typeof StatelessCreateMessageRequestParams.Type
