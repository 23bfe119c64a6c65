/**
 * The client's features as services: `Tools`, `Resources`, `Prompts`, `Tasks` and `Skills`, each
 * over the `Session` in context and built from the options it reads. `McpClient.layerFromSession` provides
 * `Features.layer`; `McpClient.layerFromFeatures` takes them from context instead, so a program
 * can replace or decorate one (log each tool call, serve a fixed prompt list) the normal Effect way.
 *
 * *Gotchas*: `McpClient.callTool`, `tools`, `resources`, `prompts`, `tasks` and `skills` go
 * through these services; `Tasks` checks its tool's definition and output through the `Tools` in
 * context, so provide a decorated `Tools` to both (`Layer.provideMerge`). A Promise client sees a
 * decorated feature when it is made with `PromiseClient.fromLayer`.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { SkillsService, TasksService } from "./internal/api.js"
import * as Lists from "./internal/features/lists.js"
import * as Services from "./internal/features/services.js"
import { Session } from "./Session.js"

export type {
  /**
   * The server's skills (the skills extension): listed (cached), one by URI, loaded and verified.
   *
   * @since 0.1.0
   * @category models
   */
  SkillsService,
  /**
   * Tools run as tasks (2025-11-25), and the tasks the server keeps.
   *
   * @since 0.1.0
   * @category models
   */
  TasksService
} from "./internal/api.js"
export type {
  /**
   * What the lists of resources and prompts read of the client's options.
   *
   * @since 0.1.0
   * @category options
   */
  ListsOptions,
  /**
   * A server's prompts: listed (cached), filled in, and argument completion.
   *
   * @since 0.1.0
   * @category models
   */
  PromptsService,
  /**
   * A server's resources: listed (cached), their templates, and reads.
   *
   * @since 0.1.0
   * @category models
   */
  ResourcesService,
  /**
   * What the tools read of the client's options.
   *
   * @since 0.1.0
   * @category options
   */
  ToolsOptions,
  /**
   * A server's tools: listed (cached until they change), called, and a result got another way checked.
   *
   * @since 0.1.0
   * @category models
   */
  ToolsService
} from "./internal/features/services.js"

/**
 * The tools of the server of the `Session` in context.
 *
 * @since 0.1.0
 * @category services
 */
export class Tools extends Context.Tag("@effect-mcp/client/Tools")<Tools, Services.ToolsService>() {}

/**
 * The resources of the server of the `Session` in context.
 *
 * @since 0.1.0
 * @category services
 */
export class Resources extends Context.Tag("@effect-mcp/client/Resources")<Resources, Services.ResourcesService>() {}

/**
 * The prompts of the server of the `Session` in context.
 *
 * @since 0.1.0
 * @category services
 */
export class Prompts extends Context.Tag("@effect-mcp/client/Prompts")<Prompts, Services.PromptsService>() {}

/**
 * The server's tasks (2025-11-25), over the `Session` and the `Tools` in context: tools run as
 * tasks (their task support and output checked through `Tools`), polled, listed, cancelled.
 *
 * @since 0.1.0
 * @category services
 */
export class Tasks extends Context.Tag("@effect-mcp/client/Tasks")<Tasks, TasksService>() {}

/**
 * The server's skills (the skills extension, SEP-2640), over the `Session` in context.
 *
 * @since 0.1.0
 * @category services
 */
export class Skills extends Context.Tag("@effect-mcp/client/Skills")<Skills, SkillsService>() {}

/**
 * The tools over the `Session` in context: listed when first asked for, cached until the server
 * says they changed; arguments checked unless `validateToolInput` is false.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerTools = (options: Services.ToolsOptions = {}): Layer.Layer<Tools, never, Session> =>
  Layer.scoped(
    Tools,
    Effect.flatMap(Session, (session) => Effect.map(Services.tools(session, options), ({ service }) => service))
  )

/**
 * The resources over the `Session` in context, built at their first use.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerResources = (options: Services.ListsOptions = {}): Layer.Layer<Resources, never, Session> =>
  Layer.scoped(
    Resources,
    Effect.flatMap(Session, (session) => Services.resources(session, options))
  )

/**
 * The prompts over the `Session` in context, built at their first use.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerPrompts = (options: Services.ListsOptions = {}): Layer.Layer<Prompts, never, Session> =>
  Layer.scoped(
    Prompts,
    Effect.flatMap(Session, (session) => Services.prompts(session, options))
  )

/**
 * The tasks over the `Session` and the `Tools` in context, built at their first use.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerTasks: Layer.Layer<Tasks, never, Session | Tools> = Layer.scoped(
  Tasks,
  Effect.flatMap(Effect.zip(Session, Tools), ([session, tools]) => Services.tasks(session, tools))
)

/**
 * The skills over the `Session` in context, built at their first use.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSkills: Layer.Layer<Skills, never, Session> = Layer.scoped(
  Skills,
  Effect.flatMap(Session, Services.skills)
)

/**
 * Every feature over the `Session` in context, each from the options it reads.
 *
 * @example
 * ```ts
 * import { Features, McpClient, Session, StdioTransport } from "@effect-mcp/client"
 * import { NodeContext } from "@effect/platform-node"
 * import { Effect, Layer } from "effect"
 *
 * // Tools that log each call, then call as the client would
 * const LoggedTools = Layer.effect(
 *   Features.Tools,
 *   Effect.map(
 *     Features.Tools,
 *     (tools): Features.ToolsService => ({
 *       ...tools,
 *       call: (name, args, options) => Effect.zipRight(Effect.logInfo(`calling ${name}`), tools.call(name, args, options))
 *     })
 *   )
 * ).pipe(Layer.provide(Features.layerTools()))
 *
 * // The client and the tasks both take the logged tools
 * const ClientLive = McpClient.layerFromFeatures().pipe(
 *   Layer.provide(
 *     Layer.mergeAll(Features.layerResources(), Features.layerPrompts(), Features.layerTasks, Features.layerSkills)
 *   ),
 *   Layer.provideMerge(LoggedTools),
 *   Layer.provideMerge(Session.layer({ name: "everything" })),
 *   Layer.provide(StdioTransport.layer({ command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] })),
 *   Layer.provide(NodeContext.layer)
 * )
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Services.ToolsOptions & Services.ListsOptions = {}
): Layer.Layer<Tools | Resources | Prompts | Tasks | Skills, never, Session> =>
  Layer.mergeAll(layerTasks, layerSkills, layerResources(options), layerPrompts(options)).pipe(
    Layer.provideMerge(layerTools(options))
  )

/**
 * A feature whose `list` may be served stale (`Tools`, `Resources`, `Prompts`, `Skills`).
 *
 * @since 0.1.0
 * @category models
 */
export type Listing<A> = Lists.Listing<A>

/**
 * The feature with its `list` answered from the last list it gave when a refresh fails (even one
 * a change notification invalidated since), with a warning naming the server and the list; a
 * failure before any list was given stays a failure. A combinator over the service, as
 * `HttpClient.retryTransient` is over a client: the option `serveStaleLists` applies it to the
 * tools, resources and prompts.
 *
 * @example
 * ```ts
 * import { Features } from "@effect-mcp/client"
 * import { Effect, Layer } from "effect"
 *
 * // Tools that keep answering with the last list while the server cannot list them
 * export const StaleTools = Layer.effect(
 *   Features.Tools,
 *   Effect.flatMap(Features.Tools, Features.servingStale("tools"))
 * ).pipe(Layer.provide(Features.layerTools()))
 * ```
 *
 * @since 0.1.0
 * @category combinators
 */
export const servingStale =
  (what: string) =>
  <A, S extends Listing<A>>(service: S & Listing<A>): Effect.Effect<S, never, Session> =>
    Effect.flatMap(Session, (session) => Lists.servingStale(() => session.server, what)(service))
