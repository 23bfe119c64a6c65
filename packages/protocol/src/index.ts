/**
 * @effect-mcp/protocol: the Model Context Protocol as Effect Schemas. Pure; no I/O.
 */

/** JSON-RPC 2.0: ids, message kinds, batches, error codes, strict classification. */
export * as JsonRpc from "./JsonRpc.js"

/** Every MCP 2025-11-25 definition as a Schema of the same name. */
export * as McpSchema from "./McpSchema.js"

/** The method table: direction, params and result Schemas, capability, revision. */
export * as Methods from "./Methods.js"

/** Supported revisions and the negotiation rule. */
export * as ProtocolVersion from "./ProtocolVersion.js"

/** Encoding for servers that negotiated an older revision. */
export * as Revision from "./Revision.js"

/** The skills extension (`io.modelcontextprotocol/skills`, SEP-2640): its wire shapes. */
export * as Skills from "./Skills.js"
