/**
 * The method table: for every MCP method, who sends it, the Schemas of its params and
 * result, the capability the other side must have declared, and the first revision
 * that has it.
 *
 * Each revision is read by its own definitions. The 2025-11-25 Schemas read every older
 * revision, but 2026-07-28 is no subset (any JSON Schema as a tool's `outputSchema`, any JSON
 * value as `structuredContent`, URL elicitation without `elicitationId`), so where it differs the
 * table holds a `Stateless…` definition, and every codec here takes the revision the session
 * speaks (`decodeResult(method, value, version)`, …).
 *
 * @since 0.1.0
 */
import type * as Either from "effect/Either"
import type * as ParseResult from "effect/ParseResult"
import type * as Schema from "effect/Schema"
import * as Compiled from "./internal/compiled.js"
import { isStateless, type ProtocolVersion } from "./ProtocolVersion.js"
import { EmptyResult, NotificationParams, PaginatedRequestParams, RequestParams } from "./schema/Base.js"
import { CompleteRequestParams, CompleteResult } from "./schema/Completion.js"
import { ElicitationCompleteNotification, ElicitRequestParams, ElicitResult } from "./schema/Elicitation.js"
import { InitializeRequestParams, InitializeResult } from "./schema/Lifecycle.js"
import { LoggingMessageNotificationParams, SetLevelRequestParams } from "./schema/Logging.js"
import { GetPromptRequestParams, GetPromptResult, ListPromptsResult } from "./schema/Prompts.js"
import {
  ListResourcesResult,
  ListResourceTemplatesResult,
  ReadResourceRequestParams,
  ReadResourceResult,
  ResourceUpdatedNotificationParams,
  SubscribeRequestParams,
  UnsubscribeRequestParams
} from "./schema/Resources.js"
import { ListRootsResult } from "./schema/Roots.js"
import { CreateMessageRequestParams, CreateMessageResult } from "./schema/Sampling.js"
import {
  DiscoverResult,
  StatelessCallToolResult,
  StatelessCreateMessageRequestParams,
  StatelessElicitRequestParams,
  StatelessListToolsResult
} from "./schema/Stateless.js"
import {
  CancelTaskRequest,
  CancelTaskResult,
  GetTaskPayloadResult,
  GetTaskResult,
  ListTasksResult,
  TaskStatusNotificationParams
} from "./schema/Tasks.js"
import { CallToolRequestParams, CallToolResult, ListToolsResult } from "./schema/Tools.js"
import { CancelledNotificationParams, ProgressNotificationParams } from "./schema/Utilities.js"

/**
 * Who sends a message.
 *
 * @since 0.1.0
 * @category models
 */
export type Direction = "clientToServer" | "serverToClient" | "both"

/**
 * A capability the receiving side must have declared: a path into its capabilities
 * object (`["resources", "subscribe"]`). A member that is present and not `false` counts.
 *
 * @since 0.1.0
 * @category models
 */
export interface Capability {
  readonly side: "client" | "server"
  readonly path: ReadonlyArray<string>
  /** Revisions older than this had no such capability and do not gate the method. */
  readonly since?: ProtocolVersion
}

/**
 * A request method. `params` and `result` are the 2025-11-25 definitions, which decode every
 * older revision (each is a subset); `stateless` holds the 2026-07-28 definitions where that
 * revision differs (a 2025-11-25 schema would refuse what it allows).
 *
 * @since 0.1.0
 * @category models
 */
export interface RequestMethod<P extends Schema.Schema.Any, R extends Schema.Schema.Any> {
  readonly direction: Direction
  readonly params: P
  /** Whether `params` may be omitted. */
  readonly paramsOptional: boolean
  readonly result: R
  readonly stateless?: { readonly params?: Schema.Schema.AnyNoContext; readonly result?: Schema.Schema.AnyNoContext }
  readonly capability?: Capability
  readonly since: ProtocolVersion
}

/**
 * A notification method.
 *
 * @since 0.1.0
 * @category models
 */
export interface NotificationMethod<P extends Schema.Schema.Any> {
  readonly direction: Direction
  readonly params: P
  readonly paramsOptional: boolean
  readonly capability?: Capability
  readonly since: ProtocolVersion
}

const server = (path: ReadonlyArray<string>, since?: ProtocolVersion): Capability =>
  since === undefined ? { side: "server", path } : { side: "server", path, since }
const client = (path: ReadonlyArray<string>, since?: ProtocolVersion): Capability =>
  since === undefined ? { side: "client", path } : { side: "client", path, since }

const TaskIdParams = CancelTaskRequest.fields.params

/**
 * Every request method of 2025-11-25.
 *
 * @since 0.1.0
 * @category constants
 */
export const requests = {
  initialize: {
    direction: "clientToServer",
    params: InitializeRequestParams,
    paramsOptional: false,
    result: InitializeResult,
    since: "2024-11-05"
  },
  ping: { direction: "both", params: RequestParams, paramsOptional: true, result: EmptyResult, since: "2024-11-05" },
  "server/discover": {
    direction: "clientToServer",
    params: RequestParams,
    paramsOptional: true,
    result: DiscoverResult,
    since: "2026-07-28"
  },
  "resources/list": {
    direction: "clientToServer",
    params: PaginatedRequestParams,
    paramsOptional: true,
    result: ListResourcesResult,
    capability: server(["resources"]),
    since: "2024-11-05"
  },
  "resources/templates/list": {
    direction: "clientToServer",
    params: PaginatedRequestParams,
    paramsOptional: true,
    result: ListResourceTemplatesResult,
    capability: server(["resources"]),
    since: "2024-11-05"
  },
  "resources/read": {
    direction: "clientToServer",
    params: ReadResourceRequestParams,
    paramsOptional: false,
    result: ReadResourceResult,
    capability: server(["resources"]),
    since: "2024-11-05"
  },
  "resources/subscribe": {
    direction: "clientToServer",
    params: SubscribeRequestParams,
    paramsOptional: false,
    result: EmptyResult,
    capability: server(["resources", "subscribe"]),
    since: "2024-11-05"
  },
  "resources/unsubscribe": {
    direction: "clientToServer",
    params: UnsubscribeRequestParams,
    paramsOptional: false,
    result: EmptyResult,
    capability: server(["resources", "subscribe"]),
    since: "2024-11-05"
  },
  "prompts/list": {
    direction: "clientToServer",
    params: PaginatedRequestParams,
    paramsOptional: true,
    result: ListPromptsResult,
    capability: server(["prompts"]),
    since: "2024-11-05"
  },
  "prompts/get": {
    direction: "clientToServer",
    params: GetPromptRequestParams,
    paramsOptional: false,
    result: GetPromptResult,
    capability: server(["prompts"]),
    since: "2024-11-05"
  },
  "tools/list": {
    direction: "clientToServer",
    params: PaginatedRequestParams,
    paramsOptional: true,
    result: ListToolsResult,
    stateless: { result: StatelessListToolsResult },
    capability: server(["tools"]),
    since: "2024-11-05"
  },
  "tools/call": {
    direction: "clientToServer",
    params: CallToolRequestParams,
    paramsOptional: false,
    result: CallToolResult,
    stateless: { result: StatelessCallToolResult },
    capability: server(["tools"]),
    since: "2024-11-05"
  },
  "logging/setLevel": {
    direction: "clientToServer",
    params: SetLevelRequestParams,
    paramsOptional: false,
    result: EmptyResult,
    capability: server(["logging"]),
    since: "2024-11-05"
  },
  "completion/complete": {
    direction: "clientToServer",
    params: CompleteRequestParams,
    paramsOptional: false,
    result: CompleteResult,
    capability: server(["completions"], "2025-03-26"),
    since: "2024-11-05"
  },
  "tasks/get": {
    direction: "both",
    params: TaskIdParams,
    paramsOptional: false,
    result: GetTaskResult,
    since: "2025-11-25"
  },
  "tasks/result": {
    direction: "both",
    params: TaskIdParams,
    paramsOptional: false,
    result: GetTaskPayloadResult,
    since: "2025-11-25"
  },
  "tasks/list": {
    direction: "both",
    params: PaginatedRequestParams,
    paramsOptional: true,
    result: ListTasksResult,
    since: "2025-11-25"
  },
  "tasks/cancel": {
    direction: "both",
    params: TaskIdParams,
    paramsOptional: false,
    result: CancelTaskResult,
    since: "2025-11-25"
  },
  "sampling/createMessage": {
    direction: "serverToClient",
    params: CreateMessageRequestParams,
    paramsOptional: false,
    result: CreateMessageResult,
    stateless: { params: StatelessCreateMessageRequestParams },
    capability: client(["sampling"]),
    since: "2024-11-05"
  },
  "roots/list": {
    direction: "serverToClient",
    params: RequestParams,
    paramsOptional: true,
    result: ListRootsResult,
    capability: client(["roots"]),
    since: "2024-11-05"
  },
  "elicitation/create": {
    direction: "serverToClient",
    params: ElicitRequestParams,
    paramsOptional: false,
    result: ElicitResult,
    stateless: { params: StatelessElicitRequestParams },
    capability: client(["elicitation"]),
    since: "2025-06-18"
  }
} as const satisfies Record<string, RequestMethod<Schema.Schema.Any, Schema.Schema.Any>>

/**
 * The name of a request method.
 *
 * @since 0.1.0
 * @category models
 */
export type RequestMethodName = keyof typeof requests

/** The Type of a method's 2026-07-28 definition of `part`, or `never` when it has none. */
type StatelessType<E, Part extends "params" | "result"> = E extends {
  readonly stateless: { readonly [K in Part]: infer S extends Schema.Schema.Any }
}
  ? Schema.Schema.Type<S>
  : never

/**
 * The decoded params of a request method, in any revision.
 *
 * @since 0.1.0
 * @category models
 */
export type RequestParamsOf<M extends RequestMethodName> =
  | Schema.Schema.Type<(typeof requests)[M]["params"]>
  | StatelessType<(typeof requests)[M], "params">

/**
 * The decoded result of a request method, in any revision.
 *
 * @since 0.1.0
 * @category models
 */
export type ResultOf<M extends RequestMethodName> =
  | Schema.Schema.Type<(typeof requests)[M]["result"]>
  | StatelessType<(typeof requests)[M], "result">

/**
 * `tasks/list` and `tasks/cancel` are gated by the receiver's `tasks.list` and
 * `tasks.cancel` capabilities on whichever side receives them.
 *
 * @since 0.1.0
 * @category capabilities
 */
export const taskCapability = (method: "tasks/list" | "tasks/cancel", receiver: "client" | "server"): Capability => ({
  side: receiver,
  path: ["tasks", method === "tasks/list" ? "list" : "cancel"],
  since: "2025-11-25"
})

/**
 * Every notification method of 2025-11-25.
 *
 * @since 0.1.0
 * @category constants
 */
export const notifications = {
  "notifications/initialized": {
    direction: "clientToServer",
    params: NotificationParams,
    paramsOptional: true,
    since: "2024-11-05"
  },
  "notifications/cancelled": {
    direction: "both",
    params: CancelledNotificationParams,
    paramsOptional: false,
    since: "2024-11-05"
  },
  "notifications/progress": {
    direction: "both",
    params: ProgressNotificationParams,
    paramsOptional: false,
    since: "2024-11-05"
  },
  "notifications/message": {
    direction: "serverToClient",
    params: LoggingMessageNotificationParams,
    paramsOptional: false,
    capability: server(["logging"]),
    since: "2024-11-05"
  },
  "notifications/resources/updated": {
    direction: "serverToClient",
    params: ResourceUpdatedNotificationParams,
    paramsOptional: false,
    capability: server(["resources", "subscribe"]),
    since: "2024-11-05"
  },
  "notifications/resources/list_changed": {
    direction: "serverToClient",
    params: NotificationParams,
    paramsOptional: true,
    capability: server(["resources", "listChanged"]),
    since: "2024-11-05"
  },
  "notifications/tools/list_changed": {
    direction: "serverToClient",
    params: NotificationParams,
    paramsOptional: true,
    capability: server(["tools", "listChanged"]),
    since: "2024-11-05"
  },
  "notifications/prompts/list_changed": {
    direction: "serverToClient",
    params: NotificationParams,
    paramsOptional: true,
    capability: server(["prompts", "listChanged"]),
    since: "2024-11-05"
  },
  "notifications/roots/list_changed": {
    direction: "clientToServer",
    params: NotificationParams,
    paramsOptional: true,
    capability: client(["roots", "listChanged"]),
    since: "2024-11-05"
  },
  "notifications/tasks/status": {
    direction: "both",
    params: TaskStatusNotificationParams,
    paramsOptional: false,
    since: "2025-11-25"
  },
  "notifications/elicitation/complete": {
    direction: "serverToClient",
    params: ElicitationCompleteNotification.fields.params,
    paramsOptional: false,
    capability: client(["elicitation", "url"], "2025-11-25"),
    since: "2025-11-25"
  }
} as const satisfies Record<string, NotificationMethod<Schema.Schema.Any>>

/**
 * The name of a notification method.
 *
 * @since 0.1.0
 * @category models
 */
export type NotificationMethodName = keyof typeof notifications

/**
 * The decoded params of a notification method.
 *
 * @since 0.1.0
 * @category models
 */
export type NotificationParamsOf<M extends NotificationMethodName> = Schema.Schema.Type<
  (typeof notifications)[M]["params"]
>

/**
 * Is this a request method of the table?
 *
 * @since 0.1.0
 * @category guards
 */
export const isRequestMethod = (method: string): method is RequestMethodName => Object.hasOwn(requests, method)

/**
 * Is this a notification method of the table?
 *
 * @since 0.1.0
 * @category guards
 */
export const isNotificationMethod = (method: string): method is NotificationMethodName =>
  Object.hasOwn(notifications, method)

/**
 * Does a capabilities object declare a capability? A member counts when it is present
 * and not `false` (flags such as `subscribe: true`, objects such as `tools: {}`).
 *
 * @since 0.1.0
 * @category guards
 */
export const declares = (capabilities: unknown, capability: Capability, version: ProtocolVersion): boolean => {
  if (capability.since !== undefined && version < capability.since) return true
  let node: unknown = capabilities
  for (const key of capability.path) {
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, key)) return false
    node = Reflect.get(node, key)
  }
  return node !== false && node !== undefined && node !== null
}

type Codec = (input: unknown) => Either.Either<unknown, ParseResult.ParseError>

/** Which definition a codec is for: the table's (2025-11-25 and older) or 2026-07-28's. */
type Era = "stateful" | "stateless"

const eraOf = (version: ProtocolVersion): Era => (isStateless(version) ? "stateless" : "stateful")

/** Compiles, once per method, era and direction, on first use, the codec of the Schema the table holds. */
const compiled = <K extends string>(
  schemaOf: (key: K, era: Era) => Schema.Schema.AnyNoContext,
  direction: "decode" | "encode"
) => {
  // One cache per era, keyed by the method: no key is built per message.
  const caches: Record<Era, Map<K, Codec>> = { stateful: new Map(), stateless: new Map() }
  return (key: K, version: ProtocolVersion): Codec => {
    const era = eraOf(version)
    const cache = caches[era]
    let codec = cache.get(key)
    if (codec === undefined) {
      const schema: Schema.Schema<unknown, unknown> = schemaOf(key, era)
      codec = direction === "decode" ? Compiled.decoder(schema) : Compiled.encoder(schema)
      cache.set(key, codec)
    }
    return codec
  }
}

const requestPart = (method: RequestMethodName, part: "params" | "result", era: Era): Schema.Schema.AnyNoContext => {
  const entry: RequestMethod<Schema.Schema.AnyNoContext, Schema.Schema.AnyNoContext> = requests[method]
  return (era === "stateless" ? entry.stateless?.[part] : undefined) ?? entry[part]
}

const resultDecoder = compiled((method: RequestMethodName, era) => requestPart(method, "result", era), "decode")
const resultEncoder = compiled((method: RequestMethodName, era) => requestPart(method, "result", era), "encode")
const requestParamsDecoder = compiled((method: RequestMethodName, era) => requestPart(method, "params", era), "decode")
const requestParamsEncoder = compiled((method: RequestMethodName, era) => requestPart(method, "params", era), "encode")
const notificationParamsDecoder = compiled((method: NotificationMethodName) => notifications[method].params, "decode")
const notificationParamsEncoder = compiled((method: NotificationMethodName) => notifications[method].params, "encode")

// The casts below restate what the table guarantees: the value was decoded (or encoded) by
// the very Schema the table holds for that method and revision.

/**
 * Decodes the result of a request method with the definition of the revision `version`.
 *
 * @example
 * ```ts
 * import { Methods } from "@effect-mcp/protocol"
 * import { Either } from "effect"
 * import { deepStrictEqual } from "node:assert"
 *
 * // A `tools/list` result as a 2025-11-25 server sends it
 * const raw = {
 *   tools: [
 *     {
 *       name: "echo",
 *       inputSchema: { type: "object", properties: { message: { type: "string" } } }
 *     }
 *   ]
 * }
 *
 * const result = Either.getOrThrow(Methods.decodeResult("tools/list", raw, "2025-11-25"))
 * deepStrictEqual(
 *   result.tools.map((tool) => tool.name),
 *   ["echo"]
 * )
 *
 * // Something that is not a result of the method is a `ParseError`
 * deepStrictEqual(
 *   Either.isLeft(Methods.decodeResult("tools/list", { tools: "none" }, "2025-11-25")),
 *   true
 * )
 * ```
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeResult = <M extends RequestMethodName>(
  method: M,
  input: unknown,
  version: ProtocolVersion
): Either.Either<ResultOf<M>, ParseResult.ParseError> =>
  resultDecoder(method, version)(input) as Either.Either<ResultOf<M>, ParseResult.ParseError>

/**
 * Encodes the result of a request method (what a client answers to a server request) for `version`.
 *
 * @since 0.1.0
 * @category encoding
 */
export const encodeResult = <M extends RequestMethodName>(
  method: M,
  value: ResultOf<M>,
  version: ProtocolVersion
): Either.Either<unknown, ParseResult.ParseError> => resultEncoder(method, version)(value)

/**
 * Decodes the params of a request method with the definition of the revision `version`.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeRequestParams = <M extends RequestMethodName>(
  method: M,
  input: unknown,
  version: ProtocolVersion
): Either.Either<RequestParamsOf<M>, ParseResult.ParseError> =>
  requestParamsDecoder(method, version)(input) as Either.Either<RequestParamsOf<M>, ParseResult.ParseError>

/**
 * Encodes the params of a request method for `version`.
 *
 * @since 0.1.0
 * @category encoding
 */
export const encodeRequestParams = <M extends RequestMethodName>(
  method: M,
  value: RequestParamsOf<M>,
  version: ProtocolVersion
): Either.Either<unknown, ParseResult.ParseError> => requestParamsEncoder(method, version)(value)

/**
 * Decodes the params of a notification method with the definition of the revision `version`.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeNotificationParams = <M extends NotificationMethodName>(
  method: M,
  input: unknown,
  version: ProtocolVersion
): Either.Either<NotificationParamsOf<M>, ParseResult.ParseError> =>
  notificationParamsDecoder(method, version)(input) as Either.Either<NotificationParamsOf<M>, ParseResult.ParseError>

/**
 * Encodes the params of a notification method for `version`.
 *
 * @since 0.1.0
 * @category encoding
 */
export const encodeNotificationParams = <M extends NotificationMethodName>(
  method: M,
  value: NotificationParamsOf<M>,
  version: ProtocolVersion
): Either.Either<unknown, ParseResult.ParseError> => notificationParamsEncoder(method, version)(value)

/**
 * The capability the receiver of a request method must have declared, if any.
 *
 * @since 0.1.0
 * @category capabilities
 */
export const requestCapability = (method: RequestMethodName): Capability | undefined => {
  const entry: RequestMethod<Schema.Schema.Any, Schema.Schema.Any> = requests[method]
  return entry.capability
}
