/**
 * `sampling/createMessage` served by a `LanguageModel`: a server's request (messages, system
 * prompt, tools and tool choice) becomes a prompt, the user's consent hook is asked first,
 * and the model's answer (text, or tool uses when the server offered tools) goes back as the
 * `CreateMessageResult`. A declined request is JSON-RPC error -1, as the spec says; a model
 * failure is an internal error that names the model's error.
 *
 * What the generic `LanguageModel` interface cannot carry (`maxTokens`, `temperature`,
 * `stopSequences`, model preferences) is left to the provider layer's own configuration.
 *
 * @since 0.1.0
 */
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as Prompt from "@effect/ai/Prompt"
import type * as Response from "@effect/ai/Response"
import { Capabilities, type McpClient, McpError } from "@effect-mcp/client"
import type { McpSchema, Methods } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Predicate from "effect/Predicate"
import { type AiTool, type AiToolkit, aiToolFor } from "./McpToolkit.js"
import * as ToolOutput from "./ToolOutput.js"

/**
 * Options of the sampling handler.
 *
 * @since 0.1.0
 * @category options
 */
export interface SamplingModelOptions {
  /** Asked before each request reaches the model; `false` declines it. Default: every request is served. */
  readonly consent?: (params: Params, context: Capabilities.RequestContext) => Effect.Effect<boolean>
  /** The model name reported to the server. Default: `"effect-ai"`. */
  readonly modelName?: string
}

type MessageEncoded = Prompt.MessageEncoded
/** The params of a sampling request, in any revision. */
type Params = Methods.RequestParamsOf<"sampling/createMessage">
type SamplingBlock = McpSchema.SamplingMessageContentBlock | typeof McpSchema.StatelessToolResultContent.Type

const blocksOf = (content: Params["messages"][number]["content"]): ReadonlyArray<SamplingBlock> =>
  Array.isArray(content) ? content : [content as SamplingBlock]

/**
 * The server's messages as a prompt: text and media as they are, tool uses and results as tool calls and results.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toPrompt = (params: Params): Prompt.Prompt => {
  const messages: Array<MessageEncoded> = []
  if (params.systemPrompt !== undefined) messages.push({ role: "system", content: params.systemPrompt })
  const toolNames = new Map<string, string>()
  for (const message of params.messages) {
    const parts: Array<Prompt.TextPartEncoded | Prompt.FilePartEncoded | Prompt.ToolCallPartEncoded> = []
    const results: Array<Prompt.ToolResultPartEncoded> = []
    for (const block of blocksOf(message.content)) {
      switch (block.type) {
        case "text":
          parts.push({ type: "text", text: block.text })
          break
        case "image":
        case "audio":
          parts.push({ type: "file", mediaType: block.mimeType, data: block.data })
          break
        case "tool_use":
          toolNames.set(block.id, block.name)
          parts.push({
            type: "tool-call",
            id: block.id,
            name: block.name,
            params: block.input,
            providerExecuted: false
          })
          break
        case "tool_result": {
          const { output } = ToolOutput.fromResult({
            content: block.content,
            ...(block.structuredContent === undefined ? {} : { structuredContent: block.structuredContent })
          })
          results.push({
            type: "tool-result",
            id: block.toolUseId,
            name: toolNames.get(block.toolUseId) ?? "tool",
            isFailure: block.isError === true,
            result: output,
            providerExecuted: false
          })
          break
        }
      }
    }
    if (results.length > 0) messages.push({ role: "tool", content: results })
    if (parts.length === 0) continue
    if (message.role === "assistant") messages.push({ role: "assistant", content: parts })
    else
      messages.push({
        role: "user",
        content: parts.filter(
          (part): part is Prompt.TextPartEncoded | Prompt.FilePartEncoded => part.type !== "tool-call"
        )
      })
  }
  return Prompt.make(messages)
}

/** The server's tools, offered to the model but never run here: the server runs them. */
const offeredTools = (tools: ReadonlyArray<McpClient.Tool>): AiToolkit => ({
  tools: Object.fromEntries(tools.map((tool) => [tool.name, aiToolFor(tool.name, tool)])),
  handle: (name) => Effect.die(new Error(`sampling tool ${String(name)} is run by the server, not here`))
})

const stopReason = (reason: Response.FinishReason): string => {
  switch (reason) {
    case "stop":
      return "endTurn"
    case "length":
      return "maxTokens"
    case "tool-calls":
      return "toolUse"
    default:
      return reason
  }
}

/**
 * The model's answer as sampling content: its text, and a tool use for each tool call.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toResult = (
  response: LanguageModel.GenerateTextResponse<Record<string, AiTool>>,
  modelName: string
): McpSchema.CreateMessageResult => {
  const content: Array<McpSchema.SamplingMessageContentBlock> = []
  const text = response.text
  if (text.length > 0 || response.toolCalls.length === 0) content.push({ type: "text", text })
  for (const call of response.toolCalls)
    content.push({
      type: "tool_use",
      id: call.id,
      name: call.name,
      input: Predicate.isRecord(call.params) ? call.params : {}
    })
  return {
    role: "assistant",
    content: content.length === 1 && content[0] !== undefined ? content[0] : content,
    model: modelName,
    stopReason: stopReason(response.finishReason)
  }
}

/**
 * The sampling handler over the context's `LanguageModel`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: SamplingModelOptions = {}
): Effect.Effect<Capabilities.Sampling["Type"], never, LanguageModel.LanguageModel> =>
  Effect.map(LanguageModel.LanguageModel, (model) => ({
    tools: true,
    createMessage: (params, context) =>
      Effect.gen(function* () {
        const allowed = options.consent === undefined ? true : yield* options.consent(params, context)
        if (!allowed)
          return yield* new McpError.JsonRpcFailure({
            code: -1,
            errorMessage: "the user declined the sampling request"
          })
        const prompt = toPrompt(params)
        const tools = params.tools ?? []
        const response = yield* (
          tools.length === 0
            ? model.generateText({ prompt })
            : model.generateText({
                prompt,
                toolkit: offeredTools(tools),
                toolChoice: params.toolChoice?.mode ?? "auto",
                disableToolCallResolution: true
              })
        ).pipe(
          Effect.mapError(
            (error) => new McpError.JsonRpcFailure({ code: -32603, errorMessage: `the model failed: ${error.message}` })
          )
        )
        return toResult(response, options.modelName ?? "effect-ai")
      }).pipe(Effect.withSpan("SamplingModel.createMessage", { attributes: { "mcp.server": context.server } }))
  }))

/**
 * `Capabilities.Sampling` served by the context's `LanguageModel`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: SamplingModelOptions = {}
): Layer.Layer<Capabilities.Sampling, never, LanguageModel.LanguageModel> =>
  Layer.effect(Capabilities.Sampling, make(options))
