/**
 * @effect-mcp/client: a Model Context Protocol client for Effect.
 */

/** The handler services that become client capabilities: `Sampling`, `Elicitation`, `Roots`. */
export * as Capabilities from "./Capabilities.js"
/** Two transports connected in one process. */
export * as InMemoryTransport from "./InMemoryTransport.js"
/** The client service and its layer. */
export * as McpClient from "./McpClient.js"
/** The errors of the client. */
export * as McpError from "./McpError.js"
/** Message-level middleware. */
export * as Middleware from "./Middleware.js"
/** The JSON-RPC peer. */
export * as Peer from "./Peer.js"
/** The session's lifecycle states. */
export * as SessionState from "./SessionState.js"
/** The stdio transport: a server as a child process. */
export * as StdioTransport from "./StdioTransport.js"
/** The transport seam. */
export * as Transport from "./Transport.js"
