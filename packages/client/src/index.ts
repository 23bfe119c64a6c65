/**
 * `@effect-mcp/client`: a Model Context Protocol client for Effect.
 *
 * @since 0.1.0
 */

/**
 * Two transports connected in one process.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as InMemoryTransport from "@effect-mcp/jsonrpc/InMemoryTransport"
/**
 * Message-level middleware.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as Middleware from "@effect-mcp/jsonrpc/Middleware"
/**
 * The plain-code form a function may carry (a Promise client's way in), lost by any wrapper.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as PlainForm from "@effect-mcp/jsonrpc/PlainForm"
/**
 * The transport seam.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as Transport from "@effect-mcp/jsonrpc/Transport"
/**
 * The authorization failure.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as AuthError from "./auth/AuthError.js"
/**
 * The authorizations a client holds: log in now, list them without secrets, revoke and remove them.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as Authorizations from "./auth/Authorizations.js"
/**
 * The interactive step of authorization (a loopback listener, or following the redirect in tests).
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as Authorizer from "./auth/Authorizer.js"
/**
 * OAuth 2.1 authorization of the HTTP transports: the flow and its options.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as OAuth from "./auth/OAuth.js"
/**
 * Where tokens and client registrations are kept (memory, or a 0600 file).
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as TokenStore from "./auth/TokenStore.js"
/**
 * The handler services that become client capabilities: `Sampling`, `Elicitation`, `Roots`.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as Capabilities from "./Capabilities.js"
/**
 * The client's features as services (`Tools`, `Resources`, `Prompts`) with their layers, to replace or decorate one.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as Features from "./Features.js"
/**
 * HTTP transports by URL: Streamable HTTP, legacy HTTP+SSE, or `auto` (the first, falling back to the second).
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as HttpTransport from "./HttpTransport.js"
/**
 * JSON Schema validation of values against schemas from the wire.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as JsonSchema from "./JsonSchema.js"
/**
 * The client service and its layer.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as McpClient from "./McpClient.js"
/**
 * The errors of the client.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as McpError from "./McpError.js"
/**
 * The client for Promise programs: calls as Promises, with no fiber per call when none is needed.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as PromiseClient from "./PromiseClient.js"
/**
 * Retries by what is safe to repeat: the policy, and how failures are classified.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as Retry from "./Retry.js"
/**
 * The session with one server as a service: its state, what was established, the one request path.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as Session from "./Session.js"
/**
 * The session's lifecycle states.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as SessionState from "./SessionState.js"
/**
 * Skills (the `io.modelcontextprotocol/skills` extension): listed, loaded and verified.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as Skills from "./Skills.js"
/**
 * The stdio transport: a server as a child process.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as StdioTransport from "./StdioTransport.js"

/**
 * A platform's transports as one service (`stdio`, `http`), chosen by the layer provided.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as Transports from "./Transports.js"
