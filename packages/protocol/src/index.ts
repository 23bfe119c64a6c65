/**
 * `@effect-mcp/protocol`: the Model Context Protocol as Effect Schemas. Pure; no I/O.
 *
 * @since 0.1.0
 */

/**
 * JSON-RPC 2.0: ids, message kinds, batches, error codes, strict classification.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as JsonRpc from "./JsonRpc.js"
/**
 * The MCP Apps extension (`io.modelcontextprotocol/ui`): tool and resource metadata, view ↔ host messages.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as McpApps from "./McpApps.js"
/**
 * Every MCP 2025-11-25 definition as a Schema of the same name.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as McpSchema from "./McpSchema.js"

/**
 * The method table: direction, params and result Schemas, capability, revision.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as Methods from "./Methods.js"

/**
 * Supported revisions and the negotiation rule.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as ProtocolVersion from "./ProtocolVersion.js"

/**
 * Encoding for servers that negotiated an older revision.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as Revision from "./Revision.js"

/**
 * The skills extension (`io.modelcontextprotocol/skills`, SEP-2640): its wire shapes.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as Skills from "./Skills.js"
