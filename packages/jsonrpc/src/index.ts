/**
 * `@effect-mcp/jsonrpc`: the transport seam and the JSON-RPC peer, shared by the client and the
 * gateway. Programs that use a client never import it: `@effect-mcp/client` re-exports what they need.
 *
 * @since 0.1.0
 */

/**
 * @since 0.1.0
 */
export * as Framing from "./Framing.js"
/**
 * @since 0.1.0
 */
export * as IdTable from "./IdTable.js"
/**
 * @since 0.1.0
 */
export * as InMemoryTransport from "./InMemoryTransport.js"
/**
 * @since 0.1.0
 */
export * as Middleware from "./Middleware.js"
/**
 * @since 0.1.0
 */
export * as Peer from "./Peer.js"
/**
 * @since 0.1.0
 */
export * as PeerError from "./PeerError.js"
/**
 * @since 0.1.0
 */
export * as PlainForm from "./PlainForm.js"
/**
 * @since 0.1.0
 */
export * as Tracing from "./Tracing.js"
/**
 * @since 0.1.0
 */
export * as Transport from "./Transport.js"
