/**
 * The host served as one MCP server. Each connection is a client of the gateway: it initializes,
 * then sees every ready server's tools and prompts under host-wide names, their resources and
 * templates, completion, logging and subscriptions; its calls are routed by the host (with its
 * allow and deny lists, retries, bounded concurrency and restarts), progress and cancellation pass
 * through, and the servers' requests (sampling, elicitation, roots) are asked of the client. A
 * request's `_meta` reaches the servers: its trace context continued (`traceparent`, `tracestate`)
 * and its own keys as given; progress tokens and the protocol's reserved keys are the gateway's.
 *
 * MCP Apps (`io.modelcontextprotocol/ui`): the gateway declares the extension when one of its
 * servers does, and rewrites every view address a server gives to name that server
 * (`ui://<server>/<the address after ui://>`, the name percent-encoded) in tools' `_meta`, call
 * results, resource lists and reads; a read of such an address reaches that server alone, with its
 * own address. The host is shared by every client, so it declares the extension to the servers
 * itself (`McpHost.layer({ mcpApps: true, … })`; a 2026-07-28 server also hears each client's own
 * capabilities with its requests); a client that does not declare the extension is shown no views
 * (no `_meta.ui`, no tool only views may call, no `ui://` resources). See {@link VIEW_META_KEY} for
 * a view's calls.
 *
 * @example
 * ```ts
 * import { McpGateway, StdioServerTransport } from "@effect-mcp/gateway"
 * import { McpHost } from "@effect-mcp/host"
 * import { NodeTransports } from "@effect-mcp/node"
 * import { NodeSink, NodeStream } from "@effect/platform-node"
 * import { Effect, Layer, Stream } from "effect"
 *
 * const host = McpHost.layer({
 *   servers: [{ name: "everything", target: { _tag: "Stdio", command: "npx", args: ["@modelcontextprotocol/server-everything"], env: {} } }]
 * }).pipe(Layer.provide(McpGateway.handlers), Layer.provide(NodeTransports.layer))
 *
 * const program = Effect.gen(function* () {
 *   const transport = yield* StdioServerTransport.make({
 *     input: NodeStream.stdin,
 *     write: (text) => Effect.sync(() => void process.stdout.write(text))
 *   })
 *   yield* McpGateway.serve(transport)
 * }).pipe(Effect.scoped, Effect.provide(Layer.provideMerge(host, McpGateway.layerAttachments)))
 * ```
 *
 * @since 0.1.0
 */
import type { Capabilities } from "@effect-mcp/client"
import type { McpHost } from "@effect-mcp/host"
import type { TransportService } from "@effect-mcp/jsonrpc/Transport"
import type { McpSchema } from "@effect-mcp/protocol"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Connection from "./internal/connection.js"
import * as Handshake from "./internal/handshake.js"
import * as ServerRequests from "./internal/serverRequests.js"
import * as Views from "./internal/views.js"

/**
 * How the gateway presents itself.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The name and version the gateway gives in `initialize`. Default: `effect-mcp-gateway`. */
  readonly serverInfo?: McpSchema.Implementation
  /** Instructions for the client's model. */
  readonly instructions?: string
  /** The client's name in errors and logs. Default: the name the client gives, once it has. */
  readonly clientName?: string
  /**
   * Tool search, for clients drowning in tool definitions: `tools/list` answers two tools,
   * `search_tools` (ranks the servers' tools by name, title and description against a query; an
   * empty query lists them all) and `call_tool` (calls one by its host-wide name). Every tool
   * stays callable by its host-wide name with `tools/call`. Default: false (every tool listed).
   */
  readonly toolSearch?: boolean
  /**
   * The longest a call (a tool call, a read, a prompt) made for a client may take on a server,
   * however often it reports progress; `undefined` for a server: no bound. Otherwise the client's
   * own request governs: a call lives until it is answered, or the client cancels it or goes.
   * Default: no bound.
   */
  readonly maxCallTime?: (server: string) => Duration.DurationInput | undefined
}

/**
 * The clients connected to the gateway, where the servers' requests go; one set per gateway,
 * shared by the host's handlers and every connection.
 *
 * @since 0.1.0
 * @category services
 */
export const Attachments = ServerRequests.Attachments

/**
 * An empty {@link Attachments}.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerAttachments = ServerRequests.layerAttachments

/**
 * The host's handler services (provide them to `McpHost.layer`): a server's sampling, elicitation
 * and roots requests are asked of the connected client that can answer them.
 *
 * @since 0.1.0
 * @category layers
 */
export const handlers: Layer.Layer<
  Capabilities.Sampling | Capabilities.Elicitation | Capabilities.Roots,
  never,
  ServerRequests.Attachments
> = ServerRequests.layer

/**
 * The `_meta` key of a `tools/call` or `resources/read` a client makes for one of the servers' views
 * (MCP Apps): the view's address as the gateway listed it. A view calls its tools by the names its own
 * server gives them; with this key such a bare name reaches the view's server, and a call or read
 * that would reach another server, or a tool whose visibility lacks `app`, is refused. Without it, a
 * bare name is the tool of the one server whose views may call a tool of that name.
 *
 * @since 0.1.0
 * @category constants
 */
export const VIEW_META_KEY = Views.VIEW_META_KEY

/**
 * The name and version the gateway gives by default.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultServerInfo: McpSchema.Implementation = Handshake.defaultServerInfo

/**
 * Serves one client over `transport` until the connection ends (or the fiber is interrupted): the
 * handshake, then the host's catalog (before `initialize`, its methods are not found: -32601).
 *
 * @since 0.1.0
 * @category constructors
 */
export const serve = (
  transport: TransportService,
  options: Options = {}
): Effect.Effect<void, never, McpHost.McpHost | ServerRequests.Attachments> =>
  Connection.serve(transport, options, undefined)
