/**
 * `@effect-mcp/gateway`: effect-mcp's host served as one MCP server.
 *
 * @since 0.1.0
 */

/**
 * @since 0.1.0
 */
export * as AccessPolicy from "./AccessPolicy.js"
/**
 * @since 0.1.0
 */
export * as AuditLog from "./AuditLog.js"
/**
 * @since 0.1.0
 */
export * as Authentication from "./Authentication.js"
/**
 * @since 0.1.0
 */
export * as McpGateway from "./McpGateway.js"
/**
 * @since 0.1.0
 */
export * as NodeStreamableHttpServer from "./NodeStreamableHttpServer.js"
/**
 * @since 0.1.0
 */
export * as StdioServerTransport from "./StdioServerTransport.js"
/**
 * @since 0.1.0
 */
export * as StreamableHttpServer from "./StreamableHttpServer.js"
