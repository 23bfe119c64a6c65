/**
 * effect-mcp for Promise programs on Node, in one file: connect to a server by command or URL and
 * call it with Promises (`PromiseClient`), over `NodeStdioTransport` or `NodeHttpTransport`.
 *
 * Published as one bundled module with `effect` inside it (`dist/bundle/NodePromiseClient.js`):
 * Node loads a few files instead of the hundreds of modules of `effect` and this package, so a
 * program starts sooner. The price is a copy of `effect` of its own: use this entry from code that
 * does not use Effect, and `PromiseClient.connect(transportLayer, options)` from code that does
 * (its values are those of the program's `effect`). Its errors are instances of the classes
 * re-exported here (`McpError`, the bundle's copy of `@effect-mcp/client`'s); code holding the
 * program's own copy recognises them with `McpError.isMcpError` and their `_tag`.
 *
 * @since 0.1.0
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpTransport from "@effect-mcp/client/HttpTransport"
import type * as McpClient from "@effect-mcp/client/McpClient"
import type { TransportError } from "@effect-mcp/client/McpError"
import * as PromiseClient from "@effect-mcp/client/PromiseClient"
import type { StdioOptions } from "@effect-mcp/client/StdioTransport"
import type { TransportService } from "@effect-mcp/client/Transport"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as NodeHttpTransport from "./NodeHttpTransport.js"
import * as NodeStdioTransport from "./NodeStdioTransport.js"

/**
 * The errors a call rejects with, for `instanceof` checks (or read their `_tag`).
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as McpError from "@effect-mcp/client/McpError"
export type {
  /**
   * Options of one call: the client's, with progress as a plain callback and an `AbortSignal`.
   *
   * @since 0.1.0
   * @category options
   */
  PromiseCallOptions,
  /**
   * A connected client, for Promise programs.
   *
   * @since 0.1.0
   * @category models
   */
  PromiseClient
} from "@effect-mcp/client/PromiseClient"

/**
 * A server run as a child process and spoken to over its stdin and stdout.
 *
 * @since 0.1.0
 * @category models
 */
export type StdioServer = StdioOptions

/**
 * A server at a URL: Streamable HTTP (falling back to legacy HTTP+SSE with `transport: "auto"`).
 *
 * @since 0.1.0
 * @category models
 */
export type HttpServer = HttpTransport.HttpOptions & NodeHttpTransport.NodeHttpOptions

/**
 * Where the server is: a command (`{ command, args }`) or a URL (`{ url }`).
 *
 * @since 0.1.0
 * @category models
 */
export type Server = StdioServer | HttpServer

/** Node's fetch as the `HttpClient` (for what the HTTP transport does not send on `node:http`), made once. */
let fetchClient: HttpClient.HttpClient | undefined
const fetchHttpClient = () => {
  fetchClient ??= Effect.runSync(Effect.provide(HttpClient.HttpClient, FetchHttpClient.layer))
  return fetchClient
}

/** The transport for a server, in the scope: Node's child process, or `node:http` with fetch for the rest. */
const transportOf = (server: Server): Effect.Effect<TransportService, TransportError, Scope.Scope> =>
  "command" in server
    ? Effect.map(NodeStdioTransport.make(server), ([transport]) => transport)
    : Effect.provideService(NodeHttpTransport.make(server), HttpClient.HttpClient, fetchHttpClient())

/**
 * Connects to `server` and completes the handshake. Rejects with the client's error
 * (`TransportError`, `InitializeError`, …); `close` on the client ends the session and, for a
 * command, the process.
 *
 * @example
 * ```ts
 * import * as NodePromiseClient from "@effect-mcp/node/NodePromiseClient"
 *
 * export const echo = async (message: string) => {
 *   const mcp = await NodePromiseClient.connect(
 *     // or { url, headers }
 *     { command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] },
 *     { name: "everything", requestTimeout: "30 seconds" } // `McpClient.layer`'s options
 *   )
 *   try {
 *     const result = await mcp.callTool(
 *       "echo",
 *       { message },
 *       { signal: AbortSignal.timeout(10_000) }
 *     )
 *     return result.content
 *   } catch (error) {
 *     if (error instanceof NodePromiseClient.McpError.RpcError)
 *       console.error(error.code, error.message)
 *     throw error
 *   } finally {
 *     await mcp.close()
 *   }
 * }
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const connect = (
  server: Server,
  options: McpClient.McpClientOptions = {}
): Promise<PromiseClient.PromiseClient> => PromiseClient.make(transportOf(server), options)
