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
import type { McpHost } from "@effect-mcp/host"
import { McpApps } from "@effect-mcp/protocol"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Encoding from "effect/Encoding"
import type * as PubSub from "effect/PubSub"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as Api from "../Api.js"
import type { Chat } from "./chat.js"
import { randomId } from "./inputs.js"
import { viewPolicy } from "./sandbox.js"
import type { Trace } from "./trace.js"
import {
  Codes,
  decodeEnvelope,
  decodeNotification,
  decodeRequest,
  decodeResponse,
  execute,
  KNOWN,
  notified,
  Refusal,
  respond,
  type View
} from "./viewRequests.js"

export { Codes } from "./viewRequests.js"

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

const decodeMeta = Schema.decodeUnknownEither(McpApps.ResourceMeta)

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
            : yield* notified(events, trace, view, request.view, notification.right)
        }
        const decoded = decodeRequest(raw)
        if (Either.isLeft(decoded)) {
          return yield* respond(
            trace,
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
        const outcome = yield* Effect.either(execute(host, chat, request.view, view, decoded.right))
        return yield* respond(trace, view.server, request.view, id, outcome)
      })

    return { open, rpc }
  })
