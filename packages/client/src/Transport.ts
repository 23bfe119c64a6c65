/**
 * The transport seam: a connection that pushes inbound JSON-RPC messages to its reader as they
 * arrive and sends outbound ones. A transport is built by a scoped `Layer`: acquiring it connects,
 * releasing it closes. Defined in `@effect-mcp/jsonrpc`, which the gateway shares.
 *
 * @since 0.1.0
 */

/**
 * @since 0.1.0
 */
export * from "@effect-mcp/jsonrpc/Transport"
