/**
 * Serving the server's requests with the handler services the host provided: params decoded
 * with the method table, results encoded and taken down to the negotiated revision, form
 * elicitation answers completed with defaults and checked.
 */

import * as Peer from "@effect-mcp/jsonrpc/Peer"
import { JsonRpc, McpSchema, Methods, type ProtocolVersion, Revision } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { Handlers, RequestContext } from "../../Capabilities.js"
import type { JsonRpcFailure } from "../../McpError.js"
import type { ServerRequestHandler, SessionService as Session } from "../session/types.js"
import type * as ClientTasks from "./clientTasks.js"
import * as ElicitationContent from "./elicitation.js"

type ServedMethod = "sampling/createMessage" | "elicitation/create" | "roots/list"

const relatedTaskId = (params: Peer.WireObject | undefined): string | undefined => {
  const meta = params?._meta
  const related = McpSchema.isJsonObject(meta) ? meta["io.modelcontextprotocol/related-task"] : undefined
  return McpSchema.isJsonObject(related) && typeof related.taskId === "string" ? related.taskId : undefined
}

/** What serving needs: the session (where requests are served, and the revision each result is encoded for), and the task store. */
export interface ServeContext {
  readonly session: Session
  /** The client's task store, when it serves task-augmented requests. */
  readonly tasks?: ClientTasks.ClientTasks
}

type Runner<M extends ServedMethod> = (
  params: Methods.RequestParamsOf<M>,
  context: RequestContext
) => Effect.Effect<Methods.ResultOf<M>, JsonRpcFailure>

/** The runner of each method the provided handlers serve. */
interface Runners {
  readonly "sampling/createMessage"?: Runner<"sampling/createMessage">
  readonly "elicitation/create"?: Runner<"elicitation/create">
  readonly "roots/list"?: Runner<"roots/list">
}

const unsupported = (mode: string) =>
  Effect.fail(Peer.failWith(JsonRpc.ErrorCode.InvalidParams, `This client does not support ${mode}-mode elicitation`))

const runnersOf = (handlers: Handlers): Runners => {
  const sampling = Option.getOrUndefined(handlers.sampling)
  const elicitation = Option.getOrUndefined(handlers.elicitation)
  const roots = Option.getOrUndefined(handlers.roots)
  return {
    ...(sampling === undefined
      ? {}
      : { "sampling/createMessage": (params, context) => sampling.createMessage(params, context) }),
    ...(elicitation === undefined
      ? {}
      : {
          "elicitation/create": (params, context) => {
            if (params.mode === "url")
              return elicitation.url === undefined ? unsupported("URL") : elicitation.url(params, context)
            if (elicitation.form === undefined) return unsupported("form")
            return Effect.flatMap(elicitation.form(params, context), (result) => {
              if (result.action !== "accept") return Effect.succeed(result)
              const content = ElicitationContent.withDefaults(params.requestedSchema, result.content)
              return Effect.flatMap(ElicitationContent.check(params.requestedSchema, content), (problem) =>
                problem === undefined
                  ? Effect.succeed({ ...result, content })
                  : Effect.fail(
                      Peer.failWith(
                        JsonRpc.ErrorCode.InternalError,
                        `The user's answer does not match the requested schema: ${problem}`
                      )
                    )
              )
            })
          }
        }),
    ...(roots === undefined
      ? {}
      : {
          "roots/list": (_params, context) =>
            Effect.map(roots.listFor?.(context) ?? roots.list, (list) => ({ roots: list }))
        })
  }
}

/** One served method: params decoded, the handler run, the result encoded and taken down to `version`. */
const run = <M extends ServedMethod>(
  method: M,
  runner: Runner<M>,
  raw: Peer.WireObject | undefined,
  context: RequestContext,
  version: ProtocolVersion.ProtocolVersion
): Effect.Effect<Peer.WireObject, JsonRpcFailure> =>
  Effect.gen(function* () {
    const params = Methods.decodeRequestParams(method, raw ?? {}, version)
    if (Either.isLeft(params)) {
      return yield* Peer.failWith(
        JsonRpc.ErrorCode.InvalidParams,
        `Invalid params for ${method}: ${ParseResult.TreeFormatter.formatErrorSync(params.left)}`
      )
    }
    const result = yield* runner(params.right, context)
    const encoded = Methods.encodeResult(method, result, version)
    if (Either.isLeft(encoded) || !McpSchema.isJsonObject(encoded.right)) {
      return yield* Peer.failWith(JsonRpc.ErrorCode.InternalError, `The client produced an invalid ${method} result`)
    }
    const wire = Revision.result(version, method, encoded.right)
    if (Either.isLeft(wire)) return yield* Peer.failWith(JsonRpc.ErrorCode.InternalError, wire.left.message)
    return wire.right
  })

/** What the provided handlers serve: the server's requests, and what a multi round-trip request asks for. */
export const serveWith = (handlers: Handlers): ServerRequestHandler => {
  const runners = runnersOf(handlers)
  return (method, params, context, version) => {
    switch (method) {
      case "sampling/createMessage":
      case "elicitation/create":
      case "roots/list": {
        const runner: Runner<typeof method> | undefined = runners[method]
        if (runner !== undefined) return run(method, runner, params, context, version)
      }
    }
    return Effect.fail(Peer.failWith(JsonRpc.ErrorCode.MethodNotFound, `Method not found: ${method}`))
  }
}

/**
 * Registers a handler for each capability the provided services declare. A method whose
 * capability was not declared gets no handler, so the peer answers it with -32601.
 */
export const register = (context: ServeContext, handlers: Handlers): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function* () {
    const { session, tasks } = context
    const serve = serveWith(handlers)
    const runners = runnersOf(handlers)
    const served = (["sampling/createMessage", "elicitation/create", "roots/list"] as const).filter(
      (method) => runners[method] !== undefined
    )
    for (const method of served) {
      yield* session.handle(method, (inbound) => {
        const requestContext: RequestContext = {
          server: session.server,
          requestId: inbound.id,
          relatedTaskId: relatedTaskId(inbound.params)
        }
        const served = serve(method, inbound.params, requestContext, session.established().protocolVersion)
        // A task-augmented request (when this client serves tasks) is answered at once with a task;
        // one whose params do not decode is answered -32602 at once, as a plain request is.
        const task = inbound.params?.task
        const asTask =
          McpSchema.isJsonObject(task) &&
          tasks !== undefined &&
          Either.isRight(
            Methods.decodeRequestParams(method, inbound.params ?? {}, session.established().protocolVersion)
          )
        return asTask ? tasks.create(typeof task.ttl === "number" ? task.ttl : undefined, served) : served
      })
    }
    const roots = Option.getOrUndefined(handlers.roots)
    if (roots?.changes !== undefined) {
      yield* roots.changes.pipe(
        Stream.runForEach(() => Effect.ignore(session.notify("notifications/roots/list_changed", undefined))),
        Effect.forkScoped
      )
    }
  })
