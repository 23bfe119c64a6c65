/**
 * Encoding for older revisions. Messages are built and encoded with the 2025-11-25
 * schemas; before they go to a server that negotiated an older revision, these functions
 * take the encoded (wire) params or result down to exactly what that revision allows:
 * members it does not know are dropped, shapes it cannot represent fail with
 * {@link UnrepresentableMessage} (they are never sent half-right).
 *
 * The other way, a server's result to a client of an older revision (a gateway's), `serverResult`
 * takes down the one thing that revision's schema refuses: a content block it does not have.
 *
 * Decoding needs no counterpart for older revisions: their server messages are a subset of the
 * 2025-11-25 schemas (the one exception, 2025-03-26 batches, is `JsonRpc.decodePayload`).
 * 2026-07-28 is not a subset; the method table holds its own definitions where it differs.
 *
 * The complete list of client-sent differences, newest first:
 * - 2026-07-28 (capabilities in each request's `_meta`): no `tasks` capability, no `roots.listChanged`.
 * - before 2025-11-25: no tasks (`tasks/*`, `notifications/tasks/status`, task-augmented
 *   params and results); no `extensions` capability; `Implementation` without `description`,
 *   `icons`, `websiteUrl`;
 *   capabilities `sampling` and `elicitation` are plain `{}` (no `tools`, `context`,
 *   `form`, `url`; a client with URL-mode elicitation only declares none); sampling
 *   results hold exactly one text, image or audio block; elicitation results hold no
 *   arrays; `notifications/cancelled` requires `requestId`.
 * - before 2025-06-18: no elicitation; `Implementation` without `title`;
 *   `completion/complete` without `context` and without the reference's `title`; no `_meta` on roots or content blocks, no
 *   `lastModified` in annotations.
 * - before 2025-03-26: no audio content; progress notifications without `message`.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Either from "effect/Either"
import { ErrorTypeId, type ProtocolVersion } from "./ProtocolVersion.js"
import { isJsonObject } from "./schema/Json.js"

/**
 * A JSON object as it is on the wire.
 *
 * @since 0.1.0
 * @category models
 */
export type WireObject = { readonly [key: string]: unknown }

/**
 * A message that the negotiated revision cannot carry.
 *
 * @since 0.1.0
 * @category errors
 */
export class UnrepresentableMessage extends Data.TaggedError("UnrepresentableMessage")<{
  readonly version: ProtocolVersion
  readonly method: string
  readonly path: ReadonlyArray<string | number>
  readonly reason: string
}> {
  /** The brand of effect-mcp's errors, under a global symbol: recognised in any copy of the packages (the client's `isMcpError`). */
  get [ErrorTypeId](): ErrorTypeId {
    return ErrorTypeId
  }

  override get message(): string {
    const at = this.path.length === 0 ? "" : ` at ${this.path.join(".")}`
    return `Cannot send ${this.method}${at} to a server speaking ${this.version}: ${this.reason}`
  }
}

type Encoded<A> = Either.Either<A, UnrepresentableMessage>

const before = (version: ProtocolVersion, revision: ProtocolVersion): boolean => version < revision

const omit = (object: WireObject, keys: ReadonlyArray<string>): WireObject => {
  if (!keys.some((key) => Object.hasOwn(object, key))) return object
  const copy: Record<string, unknown> = { ...object }
  for (const key of keys) delete copy[key]
  return copy
}

const fail = <A = never>(
  version: ProtocolVersion,
  method: string,
  path: ReadonlyArray<string | number>,
  reason: string
): Encoded<A> => Either.left(new UnrepresentableMessage({ version, method, path, reason }))

const isTaskMethod = (method: string): boolean => method.startsWith("tasks/") || method === "notifications/tasks/status"

/** Tasks exist from 2025-11-25 on; a task message for an older revision cannot be sent at all. */
const tasksUnavailable = (version: ProtocolVersion, method: string): Encoded<never> | undefined =>
  isTaskMethod(method) && before(version, "2025-11-25") ? fail(version, method, [], "tasks need 2025-11-25") : undefined

const implementation = (version: ProtocolVersion, info: WireObject): WireObject => {
  let out = info
  if (before(version, "2025-11-25")) out = omit(out, ["description", "icons", "websiteUrl"])
  if (before(version, "2025-06-18")) out = omit(out, ["title"])
  return out
}

/**
 * The client's capabilities as a revision can say them. 2026-07-28 has no `tasks` capability (tasks
 * are an extension there) and no `roots.listChanged` (no roots notification); before 2025-11-25, see
 * the list above.
 *
 * @since 0.1.0
 * @category encoding
 */
export const clientCapabilities = (version: ProtocolVersion, capabilities: WireObject): WireObject => {
  if (version === "2026-07-28") {
    const out = omit(capabilities, ["tasks"])
    return isJsonObject(out.roots) && Object.hasOwn(out.roots, "listChanged") ? { ...out, roots: {} } : out
  }
  if (!before(version, "2025-11-25")) return capabilities
  const out: Record<string, unknown> = { ...omit(capabilities, ["tasks", "extensions", "sampling", "elicitation"]) }
  if (capabilities.sampling !== undefined) out.sampling = {}
  const elicitation = capabilities.elicitation
  if (isJsonObject(elicitation) && !before(version, "2025-06-18")) {
    const formMode = elicitation.form !== undefined || elicitation.url === undefined
    if (formMode) out.elicitation = {}
  }
  return out
}

const contentBlock = (
  version: ProtocolVersion,
  method: string,
  path: ReadonlyArray<string | number>,
  block: unknown
): Encoded<unknown> => {
  if (!isJsonObject(block)) return Either.right(block)
  if (before(version, "2025-11-25") && (block.type === "tool_use" || block.type === "tool_result")) {
    return fail(version, method, path, `${String(block.type)} content needs 2025-11-25`)
  }
  if (before(version, "2025-03-26") && block.type === "audio") {
    return fail(version, method, path, "audio content needs 2025-03-26")
  }
  if (!before(version, "2025-06-18")) return Either.right(block)
  const annotations = isJsonObject(block.annotations) ? omit(block.annotations, ["lastModified"]) : undefined
  const stripped = omit(block, ["_meta"])
  return Either.right(annotations === undefined ? stripped : { ...stripped, annotations })
}

const samplingResult = (version: ProtocolVersion, method: string, result: WireObject): Encoded<WireObject> => {
  let content = result.content
  if (Array.isArray(content) && before(version, "2025-11-25")) {
    if (content.length !== 1) {
      return fail(version, method, ["content"], "revisions before 2025-11-25 carry exactly one content block")
    }
    content = content[0]
  }
  if (Array.isArray(content)) {
    const blocks: Array<unknown> = []
    for (let index = 0; index < content.length; index++) {
      const block = contentBlock(version, method, ["content", index], content[index])
      if (Either.isLeft(block)) return Either.left(block.left)
      blocks.push(block.right)
    }
    return Either.right({ ...result, content: blocks })
  }
  return Either.map(
    contentBlock(version, method, ["content"], content),
    (block): WireObject => ({
      ...result,
      content: block
    })
  )
}

const elicitResult = (version: ProtocolVersion, method: string, result: WireObject): Encoded<WireObject> => {
  if (before(version, "2025-11-25") && isJsonObject(result.content)) {
    for (const [key, value] of Object.entries(result.content)) {
      if (Array.isArray(value)) return fail(version, method, ["content", key], "multi-select values need 2025-11-25")
    }
  }
  return Either.right(result)
}

/**
 * Takes the params of an outgoing request down to the negotiated revision.
 *
 * @since 0.1.0
 * @category encoding
 */
export const requestParams = (
  version: ProtocolVersion,
  method: string,
  params: WireObject | undefined
): Encoded<WireObject | undefined> => {
  const unavailable = tasksUnavailable(version, method)
  if (unavailable !== undefined) return unavailable
  if (params === undefined) return Either.right(params)
  switch (method) {
    case "initialize": {
      const out: Record<string, unknown> = { ...params }
      if (isJsonObject(params.clientInfo)) out.clientInfo = implementation(version, params.clientInfo)
      if (isJsonObject(params.capabilities)) out.capabilities = clientCapabilities(version, params.capabilities)
      return Either.right(out)
    }
    case "tools/call":
      return Either.right(before(version, "2025-11-25") ? omit(params, ["task"]) : params)
    case "completion/complete": {
      if (!before(version, "2025-06-18")) return Either.right(params)
      const out: Record<string, unknown> = { ...omit(params, ["context"]) }
      if (isJsonObject(params.ref)) out.ref = omit(params.ref, ["title"])
      return Either.right(out)
    }
    default:
      return Either.right(params)
  }
}

/**
 * Takes the params of an outgoing notification down to the negotiated revision.
 *
 * @since 0.1.0
 * @category encoding
 */
export const notificationParams = (
  version: ProtocolVersion,
  method: string,
  params: WireObject | undefined
): Encoded<WireObject | undefined> => {
  const unavailable = tasksUnavailable(version, method)
  if (unavailable !== undefined) return unavailable
  switch (method) {
    case "notifications/cancelled":
      return before(version, "2025-11-25") && params?.requestId === undefined
        ? fail(version, method, ["requestId"], "requestId is required before 2025-11-25")
        : Either.right(params)
    case "notifications/progress":
      return Either.right(params !== undefined && before(version, "2025-03-26") ? omit(params, ["message"]) : params)
    default:
      return Either.right(params)
  }
}

/**
 * Takes the result the client sends for a server request down to the negotiated revision.
 *
 * @since 0.1.0
 * @category encoding
 */
export const result = (version: ProtocolVersion, method: string, value: WireObject): Encoded<WireObject> => {
  if (before(version, "2025-11-25") && (isTaskMethod(method) || Object.hasOwn(value, "task"))) {
    return fail(version, method, [], "task results need 2025-11-25")
  }
  switch (method) {
    case "sampling/createMessage":
      return samplingResult(version, method, value)
    case "elicitation/create":
      return before(version, "2025-06-18")
        ? fail(version, method, [], "elicitation needs 2025-06-18")
        : elicitResult(version, method, value)
    case "roots/list": {
      if (!before(version, "2025-06-18") || !Array.isArray(value.roots)) return Either.right(value)
      return Either.right({
        ...value,
        roots: value.roots.map((root) => (isJsonObject(root) ? omit(root, ["_meta"]) : root))
      })
    }
    default:
      return Either.right(value)
  }
}

/** A content block as a client of `version` can read it: before 2025-06-18 a resource link becomes a text naming it. */
const readableBlock = (version: ProtocolVersion, block: unknown): unknown => {
  if (!isJsonObject(block) || block.type !== "resource_link" || !before(version, "2025-06-18")) return block
  const name = typeof block.name === "string" && block.name !== "" ? ` (${block.name})` : ""
  return { type: "text", text: `[link] ${String(block.uri)}${name}` }
}

/**
 * Takes a server's result down to the revision its client negotiated (a gateway answering an older
 * client): before 2025-06-18, whose content blocks are text, image, audio and embedded resources,
 * a `resource_link` block in a `tools/call` result or a `prompts/get` message becomes a text block
 * naming the link (`[link] <uri> (<name>)`). Members the revision does not define are left as they
 * are (its schema admits them).
 *
 * @since 0.1.0
 * @category encoding
 */
export const serverResult = (version: ProtocolVersion, method: string, value: WireObject): WireObject => {
  if (!before(version, "2025-06-18")) return value
  switch (method) {
    case "tools/call":
      return Array.isArray(value.content)
        ? { ...value, content: value.content.map((block) => readableBlock(version, block)) }
        : value
    case "prompts/get":
      return Array.isArray(value.messages)
        ? {
            ...value,
            messages: value.messages.map((message) =>
              isJsonObject(message) ? { ...message, content: readableBlock(version, message.content) } : message
            )
          }
        : value
    default:
      return value
  }
}
