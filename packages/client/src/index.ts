/**
 * @effect-mcp/client: a Model Context Protocol client for Effect.
 */

/** The handler services that become client capabilities: `Sampling`, `Elicitation`, `Roots`. */
export * as Capabilities from "./Capabilities.js"
/** HTTP transports by URL, with automatic fallback from Streamable HTTP to HTTP+SSE. */
export * as HttpTransport from "./HttpTransport.js"
/** Two transports connected in one process. */
export * as InMemoryTransport from "./InMemoryTransport.js"
/** JSON Schema validation of values against schemas from the wire. */
export * as JsonSchema from "./JsonSchema.js"
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
/** The legacy HTTP+SSE transport (2024-11-05). */
export * as SseTransport from "./SseTransport.js"
/** The stdio transport: a server as a child process. */
export * as StdioTransport from "./StdioTransport.js"
/** The Streamable HTTP transport (2025-11-25). */
export * as StreamableHttpTransport from "./StreamableHttpTransport.js"
/** The transport seam. */
export * as Transport from "./Transport.js"
