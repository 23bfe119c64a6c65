/**
 * Every definition of the MCP 2025-11-25 schema as an Effect Schema of the same name,
 * plus the JSON-RPC envelope. Older revisions decode with these schemas (each is a
 * superset of its predecessors); `Revision` encodes for them.
 */
export * from "./JsonRpc.js"
export * from "./schema/Base.js"
export * from "./schema/Completion.js"
export * from "./schema/Content.js"
export * from "./schema/Elicitation.js"
export * from "./schema/Json.js"
export * from "./schema/Lifecycle.js"
export * from "./schema/Logging.js"
export * from "./schema/Messages.js"
export * from "./schema/Prompts.js"
export * from "./schema/Resources.js"
export * from "./schema/Roots.js"
export * from "./schema/Sampling.js"
export * from "./schema/Stateless.js"
export * from "./schema/Tasks.js"
export * from "./schema/Tools.js"
export * from "./schema/Utilities.js"
