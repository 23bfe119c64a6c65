/**
 * effect-mcp for Promise programs on Node, in one file: connect to a server by command or URL and
 * call it with Promises (`PromiseClient`), over `NodeStdioTransport` or `NodeHttpTransport`.
 *
 * Published as one bundled module with `effect` inside it (`dist/bundle/NodePromiseClient.js`):
 * Node loads a few files where the modules of `effect` and this package are some 630, so a
 * program starts in about a third of the time. The price is a copy of `effect` of its own: use
 * this entry from code that does not use Effect, and `PromiseClient.connect(layer)` from code
 * that does (its values and errors are those of the program's `effect`).
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as Layer from "effect/Layer"
import type * as HttpTransport from "./HttpTransport.js"
import * as McpClient from "./McpClient.js"
import * as NodeHttpTransport from "./NodeHttpTransport.js"
import * as NodeStdioTransport from "./NodeStdioTransport.js"
import * as PromiseClient from "./PromiseClient.js"
import type { StdioOptions } from "./StdioTransport.js"

/** The errors a call rejects with, for `instanceof` checks (or read their `_tag`). */
export * as McpError from "./McpError.js"
export type { PromiseCallOptions, PromiseClient } from "./PromiseClient.js"

/** A server run as a child process and spoken to over its stdin and stdout. */
export type StdioServer = StdioOptions

/** A server at a URL: Streamable HTTP (falling back to legacy HTTP+SSE with `transport: "auto"`). */
export type HttpServer = HttpTransport.HttpOptions & NodeHttpTransport.NodeHttpOptions

/** Where the server is: a command (`{ command, args }`) or a URL (`{ url }`). */
export type Server = StdioServer | HttpServer

/** The transport layer for a server: Node's child process, or `node:http` with fetch for the rest. */
const transportOf = (server: Server) =>
  "command" in server
    ? NodeStdioTransport.layer(server)
    : NodeHttpTransport.layer(server).pipe(Layer.provide(FetchHttpClient.layer))

/**
 * Connects to `server` and completes the handshake. Rejects with the client's error
 * (`TransportError`, `InitializeError`, …); `close` on the client ends the session and, for a
 * command, the process.
 */
export const connect = (
  server: Server,
  options: McpClient.McpClientOptions = {}
): Promise<PromiseClient.PromiseClient> =>
  PromiseClient.connect(McpClient.layer(options).pipe(Layer.provide(transportOf(server))))
