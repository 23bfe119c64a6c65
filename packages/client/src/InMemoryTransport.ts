/**
 * A connected pair of transports in memory, messages passed as JSON text (tests, in-process
 * servers). Defined in `@effect-mcp/jsonrpc`, which the gateway shares.
 *
 * @since 0.1.0
 */

/**
 * @since 0.1.0
 */
export * from "@effect-mcp/jsonrpc/InMemoryTransport"
