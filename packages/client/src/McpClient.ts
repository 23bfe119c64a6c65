/**
 * The client: a typed, Effect-returning API over one MCP server. `McpClient.layer(options)`
 * needs a {@link Transport}; the handler services a host provides (`Sampling`, `Elicitation`,
 * `Roots`) become the client's capabilities. Building the layer performs the handshake;
 * closing its scope ends the session and the connection.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as Features from "./Features.js"
import type { KeepAliveOptions as KeepAlive, McpClientOptions, McpClientService } from "./internal/api.js"
import * as Client from "./internal/client.js"
import type { InitializeError } from "./McpError.js"
import * as Session from "./Session.js"
import type { Transport } from "./Transport.js"

export type {
  /**
   * Per-call options.
   *
   * @since 0.1.0
   * @category options
   */
  CallOptions,
  /**
   * A client's `callTool`, with its plain form (`StartCallTool`) while it has one: a decorated
   * `callTool` has none, so a Promise client's calls go through the decoration.
   *
   * @since 0.1.0
   * @category models
   */
  CallTool,
  /**
   * What a tool call can fail with.
   *
   * @since 0.1.0
   * @category errors
   */
  CallToolError,
  /**
   * A `tools/call` result, in any revision (from 2026-07-28 `structuredContent` may be any JSON
   * value).
   *
   * @since 0.1.0
   * @category models
   */
  CallToolResult,
  /**
   * Which cached list a list-changed notification invalidated.
   *
   * @since 0.1.0
   * @category models
   */
  ListKind,
  /**
   * A log message (`notifications/message`) as a caller is given it.
   *
   * @since 0.1.0
   * @category models
   */
  LogMessage,
  /**
   * Options of a client.
   *
   * @since 0.1.0
   * @category options
   */
  McpClientOptions,
  /**
   * The client service.
   *
   * @since 0.1.0
   * @category models
   */
  McpClientService,
  /**
   * Progress reported by the server for one request.
   *
   * @since 0.1.0
   * @category models
   */
  Progress,
  /**
   * A client's `request`, with its plain form (`StartRequest`) while it has one.
   *
   * @since 0.1.0
   * @category models
   */
  Request,
  /**
   * The plain form of a client's `callTool`: the call started from plain code, for a Promise adapter.
   *
   * @since 0.1.0
   * @category models
   */
  StartCallTool,
  /**
   * The plain form of a client's `request`.
   *
   * @since 0.1.0
   * @category models
   */
  StartRequest,
  /**
   * An event of {@link McpClientService.runToolAsTaskStream}: the task's status changes and
   * progress, then the result.
   *
   * @since 0.1.0
   * @category models
   */
  TaskRunEvent,
  /**
   * A tool as a server lists it, in any revision (from 2026-07-28 `outputSchema` may be any JSON
   * Schema).
   *
   * @since 0.1.0
   * @category models
   */
  Tool,
  /**
   * An event of {@link McpClientService.callToolStream}: progress, then the result.
   *
   * @since 0.1.0
   * @category models
   */
  ToolCallEvent,
  /**
   * Options of one tool call.
   *
   * @since 0.1.0
   * @category options
   */
  ToolCallOptions
} from "./internal/api.js"

/**
 * When a client pings its server, and how long each ping may take (`McpClientOptions.keepAlive`).
 *
 * @since 0.1.0
 * @category options
 */
export type KeepAliveOptions = KeepAlive

export {
  /**
   * The W3C `tracestate` a request sends beside its `traceparent` (a `Context.Reference`; default
   * none).
   *
   * @since 0.1.0
   * @category services
   */
  TraceState
} from "@effect-mcp/jsonrpc/Peer"

/**
 * The client of one MCP server.
 *
 * @since 0.1.0
 * @category services
 */
export class McpClient extends Context.Tag("@effect-mcp/client/McpClient")<McpClient, McpClientService>() {}

/**
 * Starts a session over the transport in context (the handshake), then a client over it. Fails
 * with the handshake's error; the session ends with the scope.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: McpClientOptions = {}
): Effect.Effect<McpClientService, InitializeError, Transport | Scope.Scope> => Client.make(options)

/**
 * The client over the `Session` and the features in context (`Features.Tools`, `Resources`,
 * `Prompts`, `Tasks`, `Skills`): provide `Features.layer`, or a layer that replaces or decorates
 * one of them.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerFromFeatures = (): Layer.Layer<
  McpClient,
  never,
  Session.Session | Features.Tools | Features.Resources | Features.Prompts | Features.Tasks | Features.Skills
> =>
  Layer.scoped(
    McpClient,
    Effect.gen(function* () {
      const session = yield* Session.Session
      const features = {
        tools: yield* Features.Tools,
        resources: yield* Features.Resources,
        prompts: yield* Features.Prompts,
        tasks: yield* Features.Tasks,
        skills: yield* Features.Skills
      }
      return yield* Client.assemble(session, features)
    })
  )

/**
 * The client over the `Session` in context: the features (tools, resources, prompts, tasks,
 * skills) built over it. Provide it a `Session.layer`, or one that decorates it.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerFromSession = (options: McpClientOptions = {}): Layer.Layer<McpClient, never, Session.Session> =>
  layerFromFeatures().pipe(Layer.provide(Features.layer(options)))

/**
 * A client layer over the transport in context: `Session.layer` (the handshake, the handlers in
 * context served) composed with `layerFromSession`.
 *
 * *When to use*: an Effect program that talks to one server over a transport it provides. For many
 * servers at once (a config file, restarts, routed tool names) use `McpHost`; to decorate the
 * session or one feature, compose `layerFromSession` or `layerFromFeatures` yourself.
 *
 * *Gotchas*: building the layer is the handshake, so a server that is down fails it with an
 * `InitializeError` (catch it where the layer is provided, or let `McpHost` restart the server).
 * The handler services (`Capabilities.Sampling`, `Elicitation`, `Roots`) are read when the layer
 * is built: provide them below it. `protocolVersion: "auto"` (the default) sends `server/discover`
 * before anything else; pin a revision for a server that mishandles an unknown method before
 * `initialize`.
 *
 * @example
 * ```ts
 * import { McpClient, StdioTransport } from "@effect-mcp/client"
 * import { NodeContext } from "@effect/platform-node"
 * import { Effect, Layer } from "effect"
 *
 * const program = Effect.gen(function* () {
 *   const client = yield* McpClient.McpClient
 *   const tools = yield* client.tools // every page, cached until the server says the list changed
 *   const result = yield* client.callTool("echo", { message: "hi" }, { timeout: "30 seconds" })
 *   return { tools: tools.map((tool) => tool.name), content: result.content }
 * })
 *
 * // Building the layer starts the server and performs the handshake; its scope ends both
 * const ClientLive = McpClient.layer({ name: "everything" }).pipe(
 *   Layer.provide(
 *     StdioTransport.layer({
 *       command: "npx",
 *       args: ["-y", "@modelcontextprotocol/server-everything"]
 *     })
 *   ),
 *   Layer.provide(NodeContext.layer)
 * )
 *
 * // Run it with `NodeRuntime.runMain(main)` (from "@effect/platform-node")
 * const main = program.pipe(Effect.provide(ClientLive))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: McpClientOptions = {}): Layer.Layer<McpClient, InitializeError, Transport> =>
  layerFromSession(options).pipe(Layer.provide(Session.layer(options)))

/**
 * Every tool of the client in context, all pages (cached).
 *
 * @since 0.1.0
 * @category accessors
 */
export const tools = Effect.flatMap(McpClient, (client) => client.tools)

/**
 * Calls a tool of the client in context (see {@link McpClientService.callTool}).
 *
 * @example
 * ```ts
 * import { McpClient } from "@effect-mcp/client"
 * import { Effect } from "effect"
 *
 * const echoed = McpClient.callTool("echo", { message: "hi" }).pipe(Effect.map((result) => result.content))
 * ```
 *
 * @since 0.1.0
 * @category accessors
 */
export const callTool = Effect.serviceFunctionEffect(McpClient, (client) => client.callTool)

/**
 * Every resource of the client in context, all pages (cached).
 *
 * @since 0.1.0
 * @category accessors
 */
export const resources = Effect.flatMap(McpClient, (client) => client.resources)

/**
 * Reads a resource of the client in context.
 *
 * @since 0.1.0
 * @category accessors
 */
export const readResource = Effect.serviceFunctionEffect(McpClient, (client) => client.readResource)

/**
 * Every prompt of the client in context, all pages (cached).
 *
 * @since 0.1.0
 * @category accessors
 */
export const prompts = Effect.flatMap(McpClient, (client) => client.prompts)

/**
 * Gets a prompt of the client in context with its arguments filled in.
 *
 * @since 0.1.0
 * @category accessors
 */
export const getPrompt = Effect.serviceFunctionEffect(McpClient, (client) => client.getPrompt)
