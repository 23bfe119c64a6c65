/**
 * `@effect-mcp/node`: effect-mcp on Node. Node's own transports behind the client's constructors
 * and `Transports` service; the one-file client for Promise programs is the `./NodePromiseClient`
 * entry (a bundle), not re-exported here.
 *
 * @since 0.1.0
 */

/**
 * HTTP transports with their requests on `node:http` (`layer` is the drop-in for `HttpTransport.layer`).
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as NodeHttpTransport from "./NodeHttpTransport.js"

/**
 * The stdio transport on `node:child_process` (`layer` is the drop-in for `StdioTransport.layer`).
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as NodeStdioTransport from "./NodeStdioTransport.js"

/**
 * Node's transports as the client's `Transports` service.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as NodeTransports from "./NodeTransports.js"
