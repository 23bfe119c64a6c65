/**
 * What the stateless revision (2026-07-28) adds to the wire: `server/discover`, the `_meta`
 * keys every request carries, results that ask for input (multi round-trip requests), and the
 * error data that steers version selection. Everything else of that revision decodes with the
 * 2025-11-25 schemas (unknown members are dropped).
 */
import * as Schema from "effect/Schema"
import { optional } from "../internal/fields.js"
import { Implementation } from "./Base.js"
import { JsonObject, Meta } from "./Json.js"
import { ServerCapabilities } from "./Lifecycle.js"

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
