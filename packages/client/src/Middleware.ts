/**
 * Interceptors around every JSON-RPC message, outbound and inbound (logging, tracing, redaction).
 * Defined in `@effect-mcp/jsonrpc`, which the gateway shares.
 *
 * @since 0.1.0
 */

/**
 * @since 0.1.0
 */
export * from "@effect-mcp/jsonrpc/Middleware"
