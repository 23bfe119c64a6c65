/**
 * @effect-mcp/ai: MCP servers for language models, on `@effect/ai`. The host's aggregated
 * tools as a toolkit, a tool-use loop that any `LanguageModel` drives (with events for a UI),
 * and `sampling/createMessage` served by a `LanguageModel`.
 */

/** The host's tools as an `@effect/ai` toolkit that follows the servers' tool lists. */
export * as McpToolkit from "./McpToolkit.js"
/** A `Sampling` handler served by a `LanguageModel`, with the user's consent in between. */
export * as SamplingModel from "./SamplingModel.js"
/** One conversation turn with tools: as a Stream of events, or to its outcome. */
export * as ToolLoop from "./ToolLoop.js"
/** What the model receives for an MCP tool result. */
export * as ToolOutput from "./ToolOutput.js"
