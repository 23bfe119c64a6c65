/**
 * Serving the server's requests with the handler services the host provided: params decoded
 * with the method table, results encoded and taken down to the negotiated revision, form
 * elicitation answers completed with defaults and checked.
 */
import { JsonRpc, McpSchema, Methods, Revision } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { Handlers, RequestContext } from "../Capabilities.js"
import type { JsonRpcFailure } from "../McpError.js"
import * as Peer from "../Peer.js"
import type * as ClientTasks from "./clientTasks.js"
import * as ElicitationContent from "./elicitation.js"
import type { Session } from "./session.js"

type ServedMethod = "sampling/createMessage" | "elicitation/create" | "roots/list"

const relatedTaskId = (params: Peer.WireObject | undefined): string | undefined => {
  const meta = params?._meta
  const related = McpSchema.isJsonObject(meta) ? meta["io.modelcontextprotocol/related-task"] : undefined
  return McpSchema.isJsonObject(related) && typeof related.taskId === "string" ? related.taskId : undefined
}

/** What serving needs: the session (its peer, and the revision each answer is encoded for), and the task store. */
export interface ServeContext {
  readonly session: Session
  /** The client's task store, when it serves task-augmented requests. */
  readonly tasks?: ClientTasks.ClientTasks
}

const serve = <M extends ServedMethod>(
  { session, tasks }: ServeContext,
  method: M,
  run: (
    params: Methods.RequestParamsOf<M>,
    context: RequestContext
  ) => Effect.Effect<Methods.ResultOf<M>, JsonRpcFailure>
) =>
  session.peer.handle(method, (inbound) =>
    Effect.gen(function* () {
      const params = Methods.decodeRequestParams(method, inbound.params ?? {})
      if (Either.isLeft(params)) {
        return yield* Peer.failWith(
          JsonRpc.ErrorCode.InvalidParams,
          `Invalid params for ${method}: ${ParseResult.TreeFormatter.formatErrorSync(params.left)}`
        )
      }
      const context: RequestContext = {
        server: session.server,
        requestId: inbound.id,
        relatedTaskId: relatedTaskId(inbound.params)
      }
      const answer = Effect.gen(function* () {
        const result = yield* run(params.right, context)
        const encoded = Methods.encodeResult(method, result)
        if (Either.isLeft(encoded) || !McpSchema.isJsonObject(encoded.right)) {
          return yield* Peer.failWith(
            JsonRpc.ErrorCode.InternalError,
            `The client produced an invalid ${method} result`
          )
        }
        const wire = Revision.result(session.established().protocolVersion, method, encoded.right)
        if (Either.isLeft(wire)) return yield* Peer.failWith(JsonRpc.ErrorCode.InternalError, wire.left.message)
        return wire.right
      })
      // A task-augmented request (when this client serves tasks) is answered at once with a task.
      const task = "task" in params.right ? params.right.task : undefined
      return task !== undefined && tasks !== undefined ? yield* tasks.create(task.ttl, answer) : yield* answer
    })
  )

const unsupported = (mode: string) =>
  Effect.fail(Peer.failWith(JsonRpc.ErrorCode.InvalidParams, `This client does not support ${mode}-mode elicitation`))

/**
 * Registers a handler for each capability the provided services declare. A method whose
 * capability was not declared gets no handler, so the peer answers it with -32601.
 */
export const register = (context: ServeContext, handlers: Handlers): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function* () {
    if (Option.isSome(handlers.sampling)) {
      const sampling = handlers.sampling.value
      yield* serve(context, "sampling/createMessage", (params, ctx) => sampling.createMessage(params, ctx))
    }
    if (Option.isSome(handlers.elicitation)) {
      const elicitation = handlers.elicitation.value
      yield* serve(context, "elicitation/create", (params, ctx) => {
        if (params.mode === "url")
          return elicitation.url === undefined ? unsupported("URL") : elicitation.url(params, ctx)
        if (elicitation.form === undefined) return unsupported("form")
        return Effect.flatMap(elicitation.form(params, ctx), (result) => {
          if (result.action !== "accept") return Effect.succeed(result)
          const content = ElicitationContent.withDefaults(params.requestedSchema, result.content)
          const problem = ElicitationContent.check(params.requestedSchema, content)
          return problem === undefined
            ? Effect.succeed({ ...result, content })
            : Effect.fail(
                Peer.failWith(
                  JsonRpc.ErrorCode.InternalError,
                  `The user's answer does not match the requested schema: ${problem}`
                )
              )
        })
      })
    }
    if (Option.isSome(handlers.roots)) {
      const roots = handlers.roots.value
      yield* serve(context, "roots/list", () => Effect.map(roots.list, (list) => ({ roots: list })))
      if (roots.changes !== undefined) {
        yield* roots.changes.pipe(
          Stream.runForEach(() => Effect.ignore(context.session.notify("notifications/roots/list_changed", undefined))),
          Effect.forkScoped
        )
      }
    }
  })
