/**
 * What an MCP Apps view may send the host and what each message does: the Schemas its requests,
 * notifications and responses are decoded with, the JSON-RPC error codes it is refused with, and
 * the execution of a decoded message (its own server's app-visible tools and resources, the chat,
 * the trace, or the page), answered as a JSON-RPC response recorded in the trace.
 */
import type { McpClient } from "@effect-mcp/client"
import type { McpHost } from "@effect-mcp/host"
import { McpApps } from "@effect-mcp/protocol"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as PubSub from "effect/PubSub"
import * as Schema from "effect/Schema"
import type * as Api from "../Api.js"
import type { Chat } from "./chat.js"
import { CSP_VIOLATION } from "./sandbox.js"
import type { Trace } from "./trace.js"

/** The view a message comes from: its server, `ui://` address and tool. */
export interface View {
  readonly server: string
  readonly uri: string
  readonly tool: string
}

// --- what a view may send -----------------------------------------------------------------------

/** A JSON-RPC id. */
const Id = Schema.Union(Schema.String, Schema.Number)
const Envelope = Schema.Struct({
  jsonrpc: Schema.Literal("2.0"),
  id: Schema.optional(Id),
  method: Schema.optional(Schema.String)
})
const Args = Schema.Record({ key: Schema.String, value: Schema.Unknown })
const ToolsCall = Schema.Struct({
  method: Schema.Literal("tools/call"),
  params: Schema.Struct({ name: Schema.String, arguments: Schema.optional(Args) })
})
const ResourcesRead = Schema.Struct({
  method: Schema.Literal("resources/read"),
  params: Schema.Struct({ uri: Schema.String })
})
const Ping = Schema.Struct({ method: Schema.Literal("ping"), params: Schema.optional(Schema.Unknown) })
const Log = Schema.Struct({
  method: Schema.Literal("notifications/message"),
  params: Schema.Struct({ level: Schema.String, logger: Schema.optional(Schema.String), data: Schema.Unknown })
})
const CspViolation = Schema.Struct({
  method: Schema.Literal(CSP_VIOLATION),
  params: Schema.Struct({ directive: Schema.String, blockedUri: Schema.String, sample: Schema.optional(Schema.String) })
})
const ViewRequest = Schema.Union(McpApps.ViewRequest, ToolsCall, ResourcesRead, Ping)
const ViewNotification = Schema.Union(McpApps.ViewNotification, Log, CspViolation)
const ViewResponse = Schema.Struct({
  id: Id,
  result: Schema.optional(Schema.Unknown),
  error: Schema.optional(
    Schema.Struct({ code: Schema.Number, message: Schema.String, data: Schema.optional(Schema.Unknown) })
  )
})
/** Decoders of what a view sends: any message's envelope, then a request, notification or response. */
export const decodeEnvelope = Schema.decodeUnknownEither(Envelope)
export const decodeRequest = Schema.decodeUnknownEither(ViewRequest)
export const decodeNotification = Schema.decodeUnknownEither(ViewNotification)
export const decodeResponse = Schema.decodeUnknownEither(ViewResponse)

/** A request a view may send. */
export type Request = typeof ViewRequest.Type
/** A notification a view may send. */
export type Notification = typeof ViewNotification.Type

/** JSON-RPC error codes a view is answered with. */
export const Codes = {
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
  /** Refused by the host (the extension's implementation-defined code). */
  refused: -32000
} as const

/** A JSON-RPC error to a view. */
export class Refusal extends Data.TaggedError("Refusal")<{ readonly code: number; readonly message: string }> {}

const refuse = (code: number, message: string) => Effect.fail(new Refusal({ code, message }))

const textOf = (content: ReadonlyArray<unknown>) =>
  content
    .flatMap((block) =>
      typeof block === "object" && block !== null && "type" in block && block.type === "text" && "text" in block
        ? [String(block.text)]
        : []
    )
    .join("\n")

const isWebUrl = (text: string) => {
  try {
    const url = new URL(text)
    return url.protocol === "http:" || url.protocol === "https:"
  } catch {
    return false
  }
}

const messageOf = (error: unknown) =>
  typeof error === "object" && error !== null && "message" in error && typeof error.message === "string"
    ? error.message
    : String(error)

/** A JSON-RPC error's code as the server gave it, when the failure carries one. */
const codeOf = (error: unknown): number => {
  if (typeof error !== "object" || error === null) return Codes.internal
  if ("code" in error && typeof error.code === "number") return error.code
  if ("error" in error) return codeOf(error.error)
  return Codes.internal
}

/** The requests a view may send. */
export const KNOWN: ReadonlySet<string> = new Set([
  "ui/initialize",
  "ui/open-link",
  "ui/message",
  "ui/request-display-mode",
  "ui/update-model-context",
  "ui/download-file",
  "tools/call",
  "resources/read",
  "ping"
])

/** The view's own server's tool of that name, when its visibility lets a view call it. */
const ownTool = (client: McpClient.McpClientService, view: View, name: string) =>
  Effect.gen(function* () {
    const tools = yield* Effect.mapError(
      client.tools,
      (error) => new Refusal({ code: Codes.internal, message: error.message })
    )
    const tool = tools.find((one) => one.name === name)
    if (tool === undefined)
      return yield* refuse(
        Codes.invalidParams,
        `no tool "${name}" on ${view.server}: a view calls its own server's tools only`
      )
    if (!McpApps.visibleToApp(tool.ui))
      return yield* refuse(
        Codes.refused,
        `the tool "${name}" of ${view.server} is not callable from a view (its visibility lacks app)`
      )
    return tool
  })

/** Executes a view's request: on its own server, into the chat, or handed to the page. */
export const execute = (
  host: McpHost.McpHostService,
  chat: Chat,
  id: string,
  view: View,
  request: Request
): Effect.Effect<Api.AppRpcAnswer, Refusal> =>
  Effect.gen(function* () {
    const client = () =>
      Effect.mapError(host.client(view.server), (error) => new Refusal({ code: Codes.refused, message: error.message }))
    const served = <A, E>(effect: Effect.Effect<A, E>) =>
      Effect.mapError(effect, (error) => new Refusal({ code: codeOf(error), message: messageOf(error) }))
    switch (request.method) {
      case "tools/call": {
        const mcp = yield* client()
        yield* ownTool(mcp, view, request.params.name)
        return {
          _tag: "Response",
          response: yield* served(mcp.callTool(request.params.name, request.params.arguments ?? {}))
        }
      }
      case "resources/read": {
        const mcp = yield* client()
        return { _tag: "Response", response: yield* served(mcp.readResource(request.params.uri)) }
      }
      case "ping":
        return { _tag: "Response", response: {} }
      case "ui/message": {
        const text = textOf(request.params.content)
        if (text === "") return yield* refuse(Codes.invalidParams, "Invalid message format: no text content")
        yield* chat.fromView(view.server, text)
        return { _tag: "Response", response: {} }
      }
      case "ui/update-model-context": {
        const parts = [
          ...(request.params.content === undefined ? [] : [textOf(request.params.content)]),
          ...(request.params.structuredContent === undefined ? [] : [JSON.stringify(request.params.structuredContent)])
        ].filter((part) => part !== "")
        yield* chat.setContext(id, view.server, parts.join("\n"))
        return { _tag: "Response", response: {} }
      }
      case "ui/open-link":
        if (!isWebUrl(request.params.url))
          return yield* refuse(Codes.refused, "Invalid URL: only http and https links are opened")
        return { _tag: "Page", message: request }
      case "ui/download-file":
        return yield* refuse(Codes.methodNotFound, "downloads are not offered by this host")
      case "ui/initialize":
      case "ui/request-display-mode":
        return { _tag: "Page", message: request }
    }
  })

/** The JSON-RPC response to the view, recorded in the trace. */
export const respond = (
  trace: Trace,
  server: string,
  view: string,
  id: string | number,
  outcome: Either.Either<Api.AppRpcAnswer, Refusal>
) =>
  Effect.gen(function* () {
    // The page answers with the request's id.
    if (Either.isRight(outcome) && outcome.right._tag === "Page")
      return {
        _tag: "Page",
        message: {
          jsonrpc: "2.0",
          id,
          ...(typeof outcome.right.message === "object" && outcome.right.message !== null ? outcome.right.message : {})
        }
      } satisfies Api.AppRpcAnswer
    if (Either.isRight(outcome) && outcome.right._tag === "Done") return outcome.right
    const response = Either.isRight(outcome)
      ? { jsonrpc: "2.0", id, result: outcome.right._tag === "Response" ? outcome.right.response : {} }
      : { jsonrpc: "2.0", id, error: { code: outcome.left.code, message: outcome.left.message } }
    yield* trace.view(server, view, "send", response)
    return { _tag: "Response", response } satisfies Api.AppRpcAnswer
  })

/** What a view's notification does: a log event, a policy note in the trace, or a message for the page. */
export const notified = (
  events: PubSub.PubSub<Api.Event>,
  trace: Trace,
  view: View,
  viewId: string,
  notification: Notification
): Effect.Effect<Api.AppRpcAnswer> => {
  switch (notification.method) {
    case "notifications/message":
      return Effect.as(
        PubSub.publish(events, {
          _tag: "Log",
          server: view.server,
          t: Date.now(),
          level: notification.params.level,
          logger: notification.params.logger ?? `view ${viewId}`,
          data: notification.params.data
        }),
        { _tag: "Done" }
      )
    case CSP_VIOLATION:
      return Effect.as(
        trace.note(
          view.server,
          `view ${view.uri}: its policy blocked ${notification.params.blockedUri || "something"} (${notification.params.directive})`
        ),
        { _tag: "Page", message: notification }
      )
    default:
      return Effect.succeed({ _tag: "Page", message: notification })
  }
}
