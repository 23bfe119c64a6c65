/**
 * Every definition of the MCP 2025-11-25 schema as an Effect Schema of the same name,
 * plus the JSON-RPC envelope. Older revisions decode with these schemas (each is a
 * superset of its predecessors); `Revision` encodes for them.
 *
 * Wire shapes are `Schema.Struct`s whose optional members are exact: absent, never `undefined`,
 * as in JSON. Decoding drops unknown members; `_meta` is declared wherever the specification has
 * it, so it is kept. Free-form JSON (arguments, structured content, `_meta`, capability objects)
 * is checked to be an object and kept as the very same value.
 *
 * @example
 * ```ts
 * import { McpSchema } from "@effect-mcp/protocol"
 * import { Schema } from "effect"
 * import { deepStrictEqual } from "node:assert"
 *
 * const tool = Schema.decodeUnknownSync(McpSchema.Tool)({
 *   name: "echo",
 *   description: "Echoes its input",
 *   inputSchema: {
 *     type: "object",
 *     properties: { message: { type: "string" } },
 *     required: ["message"]
 *   }
 * })
 * deepStrictEqual(tool.inputSchema.required, ["message"])
 *
 * // Unknown members of a message are dropped; a wrong one fails with a `ParseError`
 * deepStrictEqual(Schema.decodeUnknownEither(McpSchema.Tool)({ name: 1 })._tag, "Left")
 * ```
 *
 * @since 0.1.0
 */

/**
 * The JSON-RPC 2.0 envelope: ids, the four message kinds, batches and error codes.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * from "./JsonRpc.js"

/**
 * The base shapes every MCP message is built from: request and notification params, results,
 * pagination, progress tokens, roles, annotations, icons and implementation info.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * from "./schema/Base.js"

/**
 * Completion: argument suggestions for prompts and resource templates.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * from "./schema/Completion.js"

/**
 * Content blocks: what tools return, prompts contain and sampling exchanges.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * from "./schema/Content.js"

/**
 * Elicitation: a server asks the user for input, through a form (form mode) or by sending the user
 * to a URL (URL mode).
 *
 * @since 0.1.0
 * @category re-exports
 */
export * from "./schema/Elicitation.js"

/**
 * JSON building blocks shared by every MCP message: JSON values, `_meta`, and the string formats
 * the specification names (URI, URI template, base64).
 *
 * @since 0.1.0
 * @category re-exports
 */
export * from "./schema/Json.js"

/**
 * Lifecycle: capabilities and the `initialize` handshake.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * from "./schema/Lifecycle.js"

/**
 * Logging: the client sets a level; the server sends log messages.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * from "./schema/Logging.js"

/**
 * The unions of messages each side may send, as the specification groups them.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * from "./schema/Messages.js"

/**
 * Prompts: templated messages a server offers to the user.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * from "./schema/Prompts.js"

/**
 * Resources: data a server exposes by URI, their templates, reads and subscriptions.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * from "./schema/Resources.js"

/**
 * Roots: the directories or files a client exposes to servers.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * from "./schema/Roots.js"

/**
 * Sampling: a server asks the client's model for a completion, optionally with tools.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * from "./schema/Sampling.js"

/**
 * What the stateless revision (2026-07-28) adds to the wire: `server/discover`, the `_meta` keys
 * every request carries, results that ask for input, and the `Stateless…` definitions of that
 * revision.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * from "./schema/Stateless.js"

/**
 * Tasks (2025-11-25, experimental): durable, pollable requests in either direction.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * from "./schema/Tasks.js"

/**
 * Tools: functions a server exposes to the model, listed and called by the client.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * from "./schema/Tools.js"

/**
 * Utilities every peer supports: ping, progress and cancellation.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * from "./schema/Utilities.js"
