/**
 * The base shapes every MCP message is built from: request and notification params,
 * results, pagination, progress tokens, roles, annotations, icons and implementation info.
 */
import * as Arbitrary from "effect/Arbitrary"
import * as Schema from "effect/Schema"
import { optional } from "../internal/fields.js"
import { JsonRpcVersion, RequestId } from "../JsonRpc.js"
import { Integer, JsonObject, JsonValue, jsonValueArbitrary, Meta, recordOf, UnitInterval, Uri } from "./Json.js"

/** A token that associates progress notifications with the request that asked for them. */
export const ProgressToken = Schema.Union(Schema.String, Integer).annotations({ identifier: "ProgressToken" })

/** An opaque pagination position. */
export const Cursor = Schema.String.annotations({ identifier: "Cursor" })

/** The sender or recipient of a message in a conversation. */
export const Role = Schema.Literal("user", "assistant").annotations({ identifier: "Role" })

/** Hints for clients about how to use or display an object. */
export const Annotations = Schema.Struct({
  audience: optional(Schema.Array(Role)),
  priority: optional(UnitInterval),
  lastModified: optional(
    Schema.String.annotations({
      arbitrary: () => (fc) => fc.constantFrom("2026-01-02T03:04:05Z", "2025-11-25T00:00:00.000+01:00")
    })
  )
}).annotations({ identifier: "Annotations" })

/** An icon a client may display for a server, tool, resource or prompt. */
export const Icon = Schema.Struct({
  src: Uri,
  mimeType: optional(Schema.String),
  sizes: optional(Schema.Array(Schema.String)),
  theme: optional(Schema.Literal("light", "dark"))
}).annotations({ identifier: "Icon" })

/** The `icons` member shared by displayable objects. */
export const Icons = Schema.Struct({ icons: optional(Schema.Array(Icon)) }).annotations({ identifier: "Icons" })

/** A programmatic `name` with an optional human-readable `title`. */
export const BaseMetadata = Schema.Struct({
  name: Schema.String,
  title: optional(Schema.String)
}).annotations({ identifier: "BaseMetadata" })

/** The name and version of an MCP implementation (client or server). */
export const Implementation = Schema.Struct({
  ...BaseMetadata.fields,
  version: Schema.String,
  description: optional(Schema.String),
  websiteUrl: optional(Uri),
  ...Icons.fields
}).annotations({ identifier: "Implementation" })

/** The type of {@link Implementation}. */
export type Implementation = typeof Implementation.Type

/** `_meta` on request params: an optional `progressToken` plus any other members. */
export const RequestMeta = Schema.Struct({ progressToken: optional(ProgressToken) }, recordOf(JsonValue)).annotations({
  identifier: "RequestMeta",
  arbitrary: () => (fc) =>
    fc.record(
      { progressToken: fc.oneof(fc.string(), fc.integer()), "example.com/trace": jsonValueArbitrary(1)(fc) },
      { requiredKeys: [] }
    )
})

/** Params common to every request. */
export const RequestParams = Schema.Struct({ _meta: optional(RequestMeta) }).annotations({
  identifier: "RequestParams"
})

/** Params common to every notification. */
export const NotificationParams = Schema.Struct({ _meta: optional(Meta) }).annotations({
  identifier: "NotificationParams"
})

/** A request, without the JSON-RPC envelope. */
export const Request = Schema.Struct({
  method: Schema.String,
  params: optional(JsonObject)
}).annotations({ identifier: "Request" })

/** A notification, without the JSON-RPC envelope. */
export const Notification = Schema.Struct({
  method: Schema.String,
  params: optional(JsonObject)
}).annotations({ identifier: "Notification" })

/** A result: `_meta` and any other members. Typed results narrow this per method. */
export const Result = Schema.Struct({ _meta: optional(Meta) }, recordOf(JsonValue)).annotations({
  identifier: "Result",
  arbitrary: () => (fc) =>
    fc.record({ _meta: Arbitrary.make(Meta), extra: jsonValueArbitrary(1)(fc) }, { requiredKeys: [] })
})

/** The type of {@link Result}. */
export type Result = typeof Result.Type

/** A result that carries no data (`ping`, `resources/subscribe`, …). */
export const EmptyResult = Result.annotations({ identifier: "EmptyResult" })

/** Params of a paginated list request. */
export const PaginatedRequestParams = Schema.Struct({
  ...RequestParams.fields,
  cursor: optional(Cursor)
}).annotations({ identifier: "PaginatedRequestParams" })

/** Any paginated list request, with the JSON-RPC envelope. */
export const PaginatedRequest = Schema.Struct({
  jsonrpc: JsonRpcVersion,
  id: RequestId,
  method: Schema.String,
  params: optional(PaginatedRequestParams)
}).annotations({ identifier: "PaginatedRequest" })

/** The common part of a paginated list result. */
export const PaginatedResult = Schema.Struct({
  _meta: optional(Meta),
  nextCursor: optional(Cursor)
}).annotations({ identifier: "PaginatedResult" })

/** A request for a task: the requested lifetime of the task, in milliseconds. */
export const TaskMetadata = Schema.Struct({ ttl: optional(Integer) }).annotations({
  identifier: "TaskMetadata"
})

/** Params of a request that may be augmented into a task. */
export const TaskAugmentedRequestParams = Schema.Struct({
  ...RequestParams.fields,
  task: optional(TaskMetadata)
}).annotations({ identifier: "TaskAugmentedRequestParams" })

/** `_meta["io.modelcontextprotocol/related-task"]`: the task a message belongs to. */
export const RelatedTaskMetadata = Schema.Struct({ taskId: Schema.String }).annotations({
  identifier: "RelatedTaskMetadata"
})

/** The `_meta` key under which {@link RelatedTaskMetadata} travels. */
export const RELATED_TASK_META_KEY = "io.modelcontextprotocol/related-task" as const
