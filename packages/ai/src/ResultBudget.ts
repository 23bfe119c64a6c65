/**
 * A token budget for each tool result handed to a model. A result within the budget is left
 * as it is. A larger one is cut: the text at a boundary near the budget (a paragraph, line,
 * sentence or word end; never inside a word when there is a word end nearby, never inside a
 * surrogate pair), long arrays in the structured content summarised with their length, and a
 * marker saying what was left out, about how many tokens that was, and how to get the rest
 * (the result's resource link, the tool's paging parameters, or a narrower call).
 *
 * The measure is {@link TokenEstimate}'s (four bytes of the result's JSON a token) unless an
 * `@effect/ai` `Tokenizer` is in the context (`AnthropicTokenizer.layer`, `OpenAiTokenizer.layer`):
 * then the provider's own counts decide, and the cut is calibrated to them.
 *
 * @since 0.1.0
 */

import * as Tokenizer from "@effect/ai/Tokenizer"
import type { McpClient } from "@effect-mcp/client"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { countedOutput, fit, measure } from "./internal/fit.js"
import * as TokenEstimate from "./TokenEstimate.js"
import type { ToolOutput } from "./ToolOutput.js"

/**
 * The default budget: 8,000 tokens (about 32 KB of text, a long file or several pages). A
 * turn makes at most 16 calls by default; 16 results at the budget are 128,000 tokens, which
 * still fits a 200,000-token context beside the conversation and the tool definitions.
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_MAX_TOKENS = 8_000

/**
 * The smallest budget: room for the marker and some of the result. Smaller budgets are raised to it.
 *
 * @since 0.1.0
 * @category constants
 */
export const MIN_TOKENS = 256

/**
 * A budget in tokens, or none.
 *
 * @since 0.1.0
 * @category models
 */
export type MaxTokens = number | "unlimited"

import type { Budgeted } from "./internal/budgeted.js"

export type {
  /**
   * An output within its budget, and what was left out (`undefined` when nothing was).
   *
   * @since 0.1.0
   * @category models
   */
  Budgeted,
  /**
   * What a cut left out.
   *
   * @since 0.1.0
   * @category models
   */
  Omitted
} from "./internal/budgeted.js"

/**
 * The budget of one result.
 *
 * @since 0.1.0
 * @category options
 */
export interface Options {
  /** At most this many tokens (raised to {@link MIN_TOKENS}). */
  readonly maxTokens: number
  /** How the model can get the rest: one sentence, ending the marker (see {@link hintFor}). */
  readonly hint: string
}

/**
 * The estimated tokens of an output as a provider sends it (base64 data asked for with `binary: "include"` not counted).
 *
 * @since 0.1.0
 * @category measuring
 */
export const tokensOf = (output: ToolOutput): number => TokenEstimate.ofBytes(measure(output))

const budgetOf = (options: Options): number => Math.max(MIN_TOKENS, Math.floor(options.maxTokens))

/**
 * The output within the budget, measured with the estimate: at most `maxTokens` by {@link tokensOf}.
 *
 * @since 0.1.0
 * @category combinators
 */
export const apply = (output: ToolOutput, options: Options): Budgeted => {
  const maxTokens = budgetOf(options)
  return fit(output, {
    maxBytes: maxTokens * TokenEstimate.BYTES_PER_TOKEN,
    maxTokens,
    bytesPerToken: TokenEstimate.BYTES_PER_TOKEN,
    hint: options.hint
  })
}

/**
 * The output within the budget as a tokenizer counts it: the whole output is counted once; a
 * larger one is cut to the bytes-per-token ratio it showed, counted again, and cut tighter if
 * still over (at most four rounds). Falls back to {@link apply} when the tokenizer fails.
 *
 * @since 0.1.0
 * @category combinators
 */
export const applyCounted = (
  output: ToolOutput,
  options: Options,
  tokenizer: Tokenizer.Service
): Effect.Effect<Budgeted> => {
  const maxTokens = budgetOf(options)
  const tokens = (value: ToolOutput) =>
    Effect.map(tokenizer.tokenize(JSON.stringify(countedOutput(value))), (ids) => Math.max(1, ids.length))
  return Effect.gen(function* () {
    const total = yield* tokens(output)
    if (total <= maxTokens) return { output, omitted: undefined }
    const bytesPerToken = measure(output) / total
    let maxBytes = Math.floor(maxTokens * bytesPerToken)
    let result: Budgeted = { output, omitted: undefined }
    for (let round = 0; round < 4; round++) {
      result = fit(output, { maxBytes, maxTokens, bytesPerToken, hint: options.hint })
      const used = yield* tokens(result.output)
      if (used <= maxTokens) return result
      maxBytes = Math.floor(((maxBytes * maxTokens) / used) * 0.95)
    }
    return result
  }).pipe(Effect.catchAll(() => Effect.succeed(apply(output, options))))
}

/**
 * The output within the budget: counted by the context's `Tokenizer` when there is one, else estimated.
 *
 * @since 0.1.0
 * @category combinators
 */
export const budget = (output: ToolOutput, options: Options): Effect.Effect<Budgeted> =>
  Effect.flatMap(Effect.serviceOption(Tokenizer.Tokenizer), (tokenizer) =>
    Option.isSome(tokenizer) ? applyCounted(output, options, tokenizer.value) : Effect.succeed(apply(output, options))
  )

// Parameter names (lower case, without `-` and `_`) that page through a tool's output.
const PAGING = new Set([
  "cursor",
  "page",
  "pagetoken",
  "pagenumber",
  "offset",
  "skip",
  "start",
  "startline",
  "end",
  "endline",
  "limit",
  "pagesize",
  "perpage",
  "maxresults",
  "head",
  "tail",
  "range"
])

/**
 * The tool's input parameters that look like paging (`offset`, `limit`, `cursor`, `page`, `head`, …).
 *
 * @since 0.1.0
 * @category accessors
 */
export const pagingParameters = (tool: McpClient.Tool): ReadonlyArray<string> =>
  Object.keys(tool.inputSchema.properties ?? {}).filter((name) => PAGING.has(name.toLowerCase().replace(/[-_]/g, "")))

const MAX_URI = 200

/**
 * How the model can get the rest of a cut result: read the result's resource link (or
 * embedded resource) when it has one, else call the tool again with its paging parameters when
 * it has some, else call it again with narrower arguments.
 *
 * @since 0.1.0
 * @category rendering
 */
export const hintFor = (tool: McpClient.Tool, modelName: string, output: ToolOutput): string => {
  const uris = output.content.flatMap((block) =>
    block.type === "resource_link" || block.type === "resource" ? [block.uri] : []
  )
  const [uri] = uris
  if (uri !== undefined && uri.length <= MAX_URI) {
    const others = uris.length > 1 ? ` (and ${uris.length - 1} more)` : ""
    return `The result refers to the resource ${uri}${others}: read it for the full content.`
  }
  const paging = pagingParameters(tool)
  if (paging.length > 0)
    return `Call ${modelName} again with ${paging.map((name) => `"${name}"`).join(", ")} to get the rest.`
  return `Call ${modelName} again with narrower arguments to get the part you need.`
}
