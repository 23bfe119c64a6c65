/**
 * MCP Apps on the host's side: a tool's view is opened for a server and a `ui://` address (its
 * HTML read with `resources/read` from that server, cached per server and address), and gets an
 * id. Every message of the view comes here through the page: decoded with the extension's
 * Schemas, recorded in the server's trace as the view's traffic, and executed: `tools/call` to the
 * view's own server only and only for tools whose visibility has `app`, `resources/read` of its own
 * server, `ping`, logging, `ui/message` into the chat, `ui/update-model-context` kept for the next
 * turn; a link is checked here and opened by the page after the user's consent; the handshake,
 * display modes and sizes are the page's. A refusal is a JSON-RPC error to the view.
 */
import type { McpClient } from "@effect-mcp/client"
import type { McpHost } from "@effect-mcp/host"
import { McpApps } from "@effect-mcp/protocol"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Encoding from "effect/Encoding"
import * as PubSub from "effect/PubSub"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as Api from "../Api.js"
import type { Chat } from "./chat.js"
import { randomId } from "./inputs.js"
import { CSP_VIOLATION, viewPolicy } from "./sandbox.js"
import type { Trace } from "./trace.js"

/** No view of that id, or a view that cannot be read. */
export class AppError extends Data.TaggedError("NotFound")<{ readonly message: string }> {}

/** The view could not be read from its server. */
export class AppUnreadable extends Data.TaggedError("RequestError")<{ readonly message: string }> {}

/** The apps part. */
export interface Apps {
  readonly open: (request: Api.AppOpen) => Effect.Effect<Api.AppOpened, AppError | AppUnreadable>
  readonly rpc: (request: Api.AppRpc) => Effect.Effect<Api.AppRpcAnswer, AppError>
}

interface Resource {
  readonly html: string
  readonly meta: McpApps.ResourceMeta | undefined
}

interface View {
  readonly server: string
  readonly uri: string
  readonly tool: string
}

// --- what a view may send -----------------------------------------------------------------------

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
const decodeEnvelope = Schema.decodeUnknownEither(Envelope)
const decodeRequest = Schema.decodeUnknownEither(ViewRequest)
const decodeNotification = Schema.decodeUnknownEither(ViewNotification)
const decodeResponse = Schema.decodeUnknownEither(ViewResponse)
const decodeMeta = Schema.decodeUnknownEither(McpApps.ResourceMeta)

type Request = typeof ViewRequest.Type
type Notification = typeof ViewNotification.Type

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
class Refusal extends Data.TaggedError("Refusal")<{ readonly code: number; readonly message: string }> {}

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

/** Reads a view's HTML and declaration from its `resources/read` result. */
export const resourceOf = (uri: string, result: unknown): Either.Either<Resource, string> => {
  const contents =
    typeof result === "object" && result !== null && "contents" in result && Array.isArray(result.contents)
      ? (result.contents as ReadonlyArray<unknown>)
      : []
  const objects = contents.filter(
    (one): one is { readonly [key: string]: unknown } => typeof one === "object" && one !== null
  )
  const content = objects.find((one) => one.uri === uri) ?? objects[0]
  if (content === undefined) return Either.left(`${uri} has no contents`)
  const mimeType = typeof content.mimeType === "string" ? content.mimeType.replace(/\s+/g, "").toLowerCase() : ""
  if (mimeType !== McpApps.MIME_TYPE) return Either.left(`${uri} is ${mimeType || "untyped"}, not ${McpApps.MIME_TYPE}`)
  let html: string
  if (typeof content.text === "string") html = content.text
  else if (typeof content.blob === "string") {
    const bytes = Encoding.decodeBase64(content.blob)
    if (Either.isLeft(bytes)) return Either.left(`${uri}'s blob is not base64`)
    html = new TextDecoder().decode(bytes.right)
  } else return Either.left(`${uri} has neither text nor blob`)
  const metaOf = typeof content._meta === "object" && content._meta !== null ? content._meta : {}
  const ui = "ui" in metaOf ? metaOf.ui : undefined
  const meta = ui === undefined ? undefined : Either.getOrUndefined(decodeMeta(ui))
  return Either.right({ html, meta })
}

/** Starts the apps part. */
export const make = (
  host: McpHost.McpHostService,
  events: PubSub.PubSub<Api.Event>,
  trace: Trace,
  chat: Chat
): Effect.Effect<Apps, never, Scope.Scope> =>
  Effect.gen(function* () {
    const views = yield* Ref.make<ReadonlyMap<string, View>>(new Map())
    const cache = yield* Ref.make<ReadonlyMap<string, Resource>>(new Map())
    // A server's views are read again after it restarts or says its resources changed.
    yield* host.changes.pipe(
      Stream.runForEach((change) =>
        change._tag === "Status" || change.list === "resources"
          ? Ref.update(cache, (map) => new Map([...map].filter(([key]) => !key.startsWith(`${change.server}\u0000`))))
          : Effect.void
      ),
      Effect.forkScoped
    )

    const read = (server: string, uri: string) =>
      Effect.gen(function* () {
        const key = `${server}\u0000${uri}`
        const cached = (yield* Ref.get(cache)).get(key)
        if (cached !== undefined) return cached
        const client = yield* Effect.mapError(
          host.client(server),
          (error) => new AppUnreadable({ message: error.message })
        )
        const result = yield* Effect.mapError(
          client.readResource(uri),
          (error) => new AppUnreadable({ message: `${uri} could not be read: ${error.message}` })
        )
        const resource = yield* Either.mapLeft(resourceOf(uri, result), (message) => new AppUnreadable({ message }))
        yield* Ref.update(cache, (map) => new Map(map).set(key, resource))
        return resource
      })

    const open = (request: Api.AppOpen) =>
      Effect.gen(function* () {
        const resource = yield* read(request.server, request.uri)
        const view = randomId()
        yield* Ref.update(views, (map) =>
          new Map(map).set(view, { server: request.server, uri: request.uri, tool: request.tool })
        )
        const policy = viewPolicy(resource.meta?.csp)
        // The audit trail the extension asks for: which policy each view runs under.
        yield* trace.note(request.server, `view ${request.uri} (${request.tool}) opened under: ${policy}`)
        return {
          view,
          html: resource.html,
          policy,
          ...(resource.meta?.csp === undefined ? {} : { csp: resource.meta.csp }),
          ...(resource.meta?.permissions === undefined ? {} : { permissions: resource.meta.permissions }),
          ...(resource.meta?.prefersBorder === undefined ? {} : { prefersBorder: resource.meta.prefersBorder })
        } satisfies Api.AppOpened
      })

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

    const execute = (id: string, view: View, request: Request): Effect.Effect<Api.AppRpcAnswer, Refusal> =>
      Effect.gen(function* () {
        const client = () =>
          Effect.mapError(
            host.client(view.server),
            (error) => new Refusal({ code: Codes.refused, message: error.message })
          )
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
              ...(request.params.structuredContent === undefined
                ? []
                : [JSON.stringify(request.params.structuredContent)])
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
    const respond = (
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
              ...(typeof outcome.right.message === "object" && outcome.right.message !== null
                ? outcome.right.message
                : {})
            }
          } satisfies Api.AppRpcAnswer
        if (Either.isRight(outcome) && outcome.right._tag === "Done") return outcome.right
        const response = Either.isRight(outcome)
          ? { jsonrpc: "2.0", id, result: outcome.right._tag === "Response" ? outcome.right.response : {} }
          : { jsonrpc: "2.0", id, error: { code: outcome.left.code, message: outcome.left.message } }
        yield* trace.view(server, view, "send", response)
        return { _tag: "Response", response } satisfies Api.AppRpcAnswer
      })

    const notified = (view: View, viewId: string, notification: Notification): Effect.Effect<Api.AppRpcAnswer> => {
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

    const rpc = (request: Api.AppRpc) =>
      Effect.gen(function* () {
        const view = (yield* Ref.get(views)).get(request.view)
        if (view === undefined) return yield* new AppError({ message: `no view ${request.view}` })
        const raw = request.message
        const object = typeof raw === "object" && raw !== null && !Array.isArray(raw) ? raw : { invalid: raw }
        if (request.from === "page") {
          yield* trace.view(view.server, request.view, "send", object)
          return { _tag: "Done" } satisfies Api.AppRpcAnswer
        }
        yield* trace.view(view.server, request.view, "receive", object)
        const envelope = decodeEnvelope(raw)
        if (Either.isLeft(envelope)) return { _tag: "Done" } satisfies Api.AppRpcAnswer
        const { id, method } = envelope.right
        if (method === undefined) {
          // The answer to the page's own request (the teardown).
          const response = decodeResponse(raw)
          return Either.isLeft(response)
            ? ({ _tag: "Done" } satisfies Api.AppRpcAnswer)
            : ({ _tag: "Page", message: { jsonrpc: "2.0", ...response.right } } satisfies Api.AppRpcAnswer)
        }
        if (id === undefined) {
          const notification = decodeNotification(raw)
          return Either.isLeft(notification)
            ? ({ _tag: "Done" } satisfies Api.AppRpcAnswer)
            : yield* notified(view, request.view, notification.right)
        }
        const decoded = decodeRequest(raw)
        if (Either.isLeft(decoded)) {
          return yield* respond(
            view.server,
            request.view,
            id,
            Either.left(
              new Refusal({
                code: KNOWN.has(method) ? Codes.invalidParams : Codes.methodNotFound,
                message: KNOWN.has(method)
                  ? `invalid ${method}: ${decoded.left.message}`
                  : `a view may not call ${method}`
              })
            )
          )
        }
        const outcome = yield* Effect.either(execute(request.view, view, decoded.right))
        return yield* respond(view.server, request.view, id, outcome)
      })

    return { open, rpc }
  })

/** The requests a view may send. */
const KNOWN: ReadonlySet<string> = new Set([
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
