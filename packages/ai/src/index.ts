/**
 * `@effect-mcp/ai`: MCP servers for language models, on `@effect/ai`. The host's aggregated
 * tools (and the servers' skills, loaded on request) as a toolkit, a tool-use loop that any
 * `LanguageModel` drives (with events for a UI), and `sampling/createMessage` served by a
 * `LanguageModel`.
 *
 * @since 0.1.0
 */

/**
 * The host's tools (and its servers' skills, as `load_skill` tools) as an `@effect/ai` toolkit that follows the servers' lists.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as McpToolkit from "./McpToolkit.js"

/**
 * A token budget for each tool result: cut at a boundary, with a marker saying how to get the rest.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as ResultBudget from "./ResultBudget.js"

/**
 * A `Sampling` handler served by a `LanguageModel`, with the user's consent in between.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as SamplingModel from "./SamplingModel.js"

/**
 * Tokens without a tokenizer: four bytes of UTF-8 a token.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as TokenEstimate from "./TokenEstimate.js"

/**
 * One conversation turn with tools: as a Stream of events, or to its outcome.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as ToolLoop from "./ToolLoop.js"

/**
 * What the model receives for an MCP tool result.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as ToolOutput from "./ToolOutput.js"

/**
 * Which tools the model is offered: all, or those matching the conversation.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as ToolSelection from "./ToolSelection.js"
