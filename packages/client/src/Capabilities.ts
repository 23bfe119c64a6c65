/**
 * The handler services a host provides for server-initiated requests. Which of them are
 * provided decides the client capabilities declared in `initialize`: provide `Sampling` and
 * the client declares `sampling`, and so on. A server request for an undeclared capability
 * is answered with a JSON-RPC error.
 *
 * @example
 * ```ts
 * import { Capabilities, McpClient } from "@effect-mcp/client"
 * import { Effect, Layer } from "effect"
 *
 * // `roots` (with `listChanged` when `changes` is given)
 * const RootsLive = Layer.succeed(Capabilities.Roots, {
 *   list: Effect.succeed([{ uri: "file:///home/me/project", name: "project" }])
 * })
 *
 * // `elicitation` in form mode only (no `url` handler)
 * const ElicitationLive = Layer.succeed(Capabilities.Elicitation, {
 *   form: (params, context) =>
 *     Effect.as(Effect.logInfo(`${context.server} asks: ${params.message}`), {
 *       action: "accept" as const,
 *       content: { confirmed: true }
 *     })
 * })
 *
 * // The client finds the handlers in its context: it declares `roots` and `elicitation`
 * const ClientLive = McpClient.layer({ name: "everything" }).pipe(
 *   Layer.provide(Layer.merge(RootsLive, ElicitationLive))
 * )
 * ```
 *
 * @since 0.1.0
 */
import type { JsonRpc, McpSchema } from "@effect-mcp/protocol"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Stream from "effect/Stream"
import type { JsonRpcFailure } from "./McpError.js"

/**
 * Who is asking: passed to every handler.
 *
 * @since 0.1.0
 * @category models
 */
export interface RequestContext {
  /** The server's name (as the client was configured). */
  readonly server: string
  /** The JSON-RPC id of the server's request. */
  readonly requestId: JsonRpc.RequestId
  /** The task this request belongs to, when it carries related-task metadata. */
  readonly relatedTaskId: string | undefined
  /**
   * An input request's round (2026-07-28): the server's `requestState`, which a relay answering
   * in a later request passes back with its answers (`CallOptions.answering`).
   */
  readonly requestState?: string | undefined
}

/**
 * Answers `sampling/createMessage`: runs the server's prompt through a model, with the user's consent.
 *
 * @since 0.1.0
 * @category services
 */
export class Sampling extends Context.Tag("@effect-mcp/client/Sampling")<
  Sampling,
  {
    /** From 2026-07-28 (an input request), tools may have any `outputSchema` and tool results any `structuredContent`. */
    readonly createMessage: (
      params: McpSchema.CreateMessageRequestParams | McpSchema.StatelessCreateMessageRequestParams,
      context: RequestContext
    ) => Effect.Effect<McpSchema.CreateMessageResult, JsonRpcFailure>
    /** The model may use tools the server offers (`sampling.tools`). */
    readonly tools?: boolean
    /** `includeContext` other than `none` is honoured (`sampling.context`). */
    readonly context?: boolean
  }
>() {}

/**
 * Answers `elicitation/create`: asks the user, in a form or by sending them to a URL.
 *
 * @since 0.1.0
 * @category services
 */
export class Elicitation extends Context.Tag("@effect-mcp/client/Elicitation")<
  Elicitation,
  {
    readonly form?: (
      params: typeof McpSchema.ElicitRequestFormParams.Type,
      context: RequestContext
    ) => Effect.Effect<McpSchema.ElicitResult, JsonRpcFailure>
    /** A URL-mode request; from 2026-07-28 (an input request) it carries no `elicitationId`. */
    readonly url?: (
      params: typeof McpSchema.ElicitRequestURLParams.Type | typeof McpSchema.StatelessElicitRequestURLParams.Type,
      context: RequestContext
    ) => Effect.Effect<McpSchema.ElicitResult, JsonRpcFailure>
  }
>() {}

/**
 * Answers `roots/list`; `changes` (when given) makes the client send `notifications/roots/list_changed`.
 *
 * @since 0.1.0
 * @category services
 */
export class Roots extends Context.Tag("@effect-mcp/client/Roots")<
  Roots,
  {
    readonly list: Effect.Effect<ReadonlyArray<McpSchema.Root>, JsonRpcFailure>
    /** Answers one request knowing who asks (a relay routes it by that); without it, `list`. */
    readonly listFor?: (context: RequestContext) => Effect.Effect<ReadonlyArray<McpSchema.Root>, JsonRpcFailure>
    readonly changes?: Stream.Stream<void>
  }
>() {}

/**
 * The handler services found in the context.
 *
 * @since 0.1.0
 * @category models
 */
export interface Handlers {
  readonly sampling: Option.Option<Context.Tag.Service<Sampling>>
  readonly elicitation: Option.Option<Context.Tag.Service<Elicitation>>
  readonly roots: Option.Option<Context.Tag.Service<Roots>>
}

/**
 * The client capabilities that the provided handlers amount to (with `tasks` when the client serves them).
 *
 * @since 0.1.0
 * @category constructors
 */
export const clientCapabilities = (handlers: Handlers, servesTasks = false): McpSchema.ClientCapabilities => {
  const sampling = Option.map(handlers.sampling, (service) => ({
    ...(service.tools === true ? { tools: {} } : {}),
    ...(service.context === true ? { context: {} } : {})
  }))
  const elicitation = Option.flatMap(handlers.elicitation, (service) =>
    service.form === undefined && service.url === undefined
      ? Option.none()
      : Option.some({
          ...(service.form === undefined ? {} : { form: {} }),
          ...(service.url === undefined ? {} : { url: {} })
        })
  )
  const roots = Option.map(handlers.roots, (service) => (service.changes === undefined ? {} : { listChanged: true }))
  const taskRequests = {
    ...(Option.isSome(sampling) ? { sampling: { createMessage: {} } } : {}),
    ...(Option.isSome(elicitation) ? { elicitation: { create: {} } } : {})
  }
  const tasks = servesTasks && Object.keys(taskRequests).length > 0
  return {
    ...(Option.isSome(sampling) ? { sampling: sampling.value } : {}),
    ...(Option.isSome(elicitation) ? { elicitation: elicitation.value } : {}),
    ...(Option.isSome(roots) ? { roots: roots.value } : {}),
    ...(tasks ? { tasks: { list: {}, cancel: {}, requests: taskRequests } } : {})
  }
}

/**
 * The client capabilities that 2026-07-28 requests made within an effect declare, in place of the
 * client's own: a gateway passes on the capabilities of the client it calls for, so that a server
 * asks only for input that client can give. Default: none (the client's own). Requests of a
 * stateful revision declare the client's capabilities once, at `initialize`, and are unaffected.
 *
 * @since 0.1.0
 * @category services
 */
export class OnBehalfOf extends Context.Reference<OnBehalfOf>()("@effect-mcp/client/Capabilities/OnBehalfOf", {
  defaultValue: (): McpSchema.ClientCapabilities | undefined => undefined
}) {}
