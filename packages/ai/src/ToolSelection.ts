/**
 * Which tools the model is offered. A host with many servers can have hundreds of tools, and
 * every definition offered costs tokens on every request. `all` offers every tool; `lexical`
 * offers those whose names or descriptions share words with the conversation's recent user
 * messages.
 *
 * The lexical rule, deterministic and without a model: the query is the text of the last
 * `recentMessages` user messages, and the tools are scored against it by the host's
 * `ToolRanking` (terms of the host-wide name and title weigh 3, of the description 1, each times
 * its rarity among the tools). Tools scoring above zero and at
 * least `minScore` are ranked (ties keep the host's order), the first `maxTools` are offered,
 * and so is every tool the conversation has already called (a provider may refuse a history that
 * names tools it is not given). The tools keep the host's order. When nothing matches, no tool
 * is offered (or all, with `whenNoneMatch: "all"`).
 *
 * @since 0.1.0
 */
import type * as Prompt from "@effect/ai/Prompt"
import * as Tool from "@effect/ai/Tool"
import { ToolRanking } from "@effect-mcp/host"
import * as Data from "effect/Data"
import type { McpTool } from "./McpToolkit.js"
import * as TokenEstimate from "./TokenEstimate.js"

/**
 * How the tools are chosen.
 *
 * @since 0.1.0
 * @category models
 */
export type Selection = Data.TaggedEnum<{
  /** Every tool. */
  All: {}
  /** The tools that match the conversation lexically (see the module's rule). */
  Lexical: {
    readonly maxTools: number
    readonly minScore: number
    readonly recentMessages: number
    readonly whenNoneMatch: "none" | "all"
  }
}>

/**
 * Constructors and matchers of {@link Selection}.
 *
 * @since 0.1.0
 * @category constructors
 */
export const Selection = Data.taggedEnum<Selection>()

/**
 * Every tool, every time (the default).
 *
 * @since 0.1.0
 * @category constructors
 */
export const all: Selection = Selection.All()

/**
 * Options of {@link lexical}.
 *
 * @since 0.1.0
 * @category options
 */
export interface LexicalOptions {
  /** At most this many matching tools (besides those already called). Default: 8. */
  readonly maxTools?: number
  /** Only tools scoring at least this much. Default: 0 (any shared term). */
  readonly minScore?: number
  /** How many of the latest user messages make the query. Default: 3. */
  readonly recentMessages?: number
  /** What to offer when no tool matches and none was called: nothing, or every tool. Default: `"none"`. */
  readonly whenNoneMatch?: "none" | "all"
}

/**
 * The tools that match the conversation's recent user messages (see the module's rule).
 *
 * @since 0.1.0
 * @category constructors
 */
export const lexical = (options: LexicalOptions = {}): Selection =>
  Selection.Lexical({
    maxTools: options.maxTools ?? 8,
    minScore: options.minScore ?? 0,
    recentMessages: options.recentMessages ?? 3,
    whenNoneMatch: options.whenNoneMatch ?? "none"
  })

/**
 * What selection reads of a tool.
 *
 * @since 0.1.0
 * @category models
 */
export type Candidate = Pick<McpTool, "modelName" | "hostName" | "tool">

/**
 * A tool and its score against a query.
 *
 * @since 0.1.0
 * @category models
 */
export type Scored<T> = ToolRanking.Scored<T>

const fieldsOf = (candidate: Candidate): ToolRanking.Fields => ({ name: candidate.hostName, tool: candidate.tool })

/**
 * Every tool's score against the query, in the tools' order.
 *
 * @since 0.1.0
 * @category scoring
 */
export const score = <T extends Candidate>(tools: ReadonlyArray<T>, query: string): ReadonlyArray<Scored<T>> =>
  ToolRanking.score(tools, query, fieldsOf)

/**
 * The text of the last `recentMessages` user messages.
 *
 * @since 0.1.0
 * @category accessors
 */
export const queryOf = (prompt: Prompt.Prompt, recentMessages: number): string =>
  prompt.content
    .filter((message): message is Prompt.UserMessage => message.role === "user")
    .slice(-Math.max(1, recentMessages))
    .flatMap((message) => message.content.flatMap((part) => (part.type === "text" ? [part.text] : [])))
    .join("\n")

/**
 * The names of the tools the conversation has called.
 *
 * @since 0.1.0
 * @category accessors
 */
export const calledTools = (prompt: Prompt.Prompt): ReadonlySet<string> =>
  new Set(
    prompt.content.flatMap((message) =>
      message.role === "assistant"
        ? message.content.flatMap((part) => (part.type === "tool-call" ? [part.name] : []))
        : []
    )
  )

/**
 * The tools to offer for this conversation, in the host's order.
 *
 * @since 0.1.0
 * @category filtering
 */
export const select = <T extends Candidate>(
  tools: ReadonlyArray<T>,
  prompt: Prompt.Prompt,
  selection: Selection
): ReadonlyArray<T> => {
  if (selection._tag === "All") return tools
  const ranked = ToolRanking.rank(tools, queryOf(prompt, selection.recentMessages), fieldsOf, {
    limit: selection.maxTools,
    minScore: selection.minScore
  })
  const chosen = new Set(ranked.map((scored) => scored.tool))
  const called = calledTools(prompt)
  const offered = tools.filter((tool) => chosen.has(tool) || called.has(tool.modelName))
  return offered.length === 0 && selection.whenNoneMatch === "all" ? tools : offered
}

/**
 * The estimated tokens of tool definitions as a provider sends them: per tool its name,
 * description and JSON input schema (`{ name, description, input_schema }`, as Anthropic's API
 * takes them), by {@link TokenEstimate.ofJson}. Takes `@effect/ai` tools: an {@link McpTool}'s
 * `aiTool`, or the `tools` of a request a `LanguageModel` received.
 *
 * @since 0.1.0
 * @category measuring
 */
export const definitionTokens = (tools: ReadonlyArray<Tool.Any>): number =>
  tools.reduce(
    (sum, tool) =>
      sum +
      TokenEstimate.ofJson({
        name: tool.name,
        description: tool.description,
        input_schema: Tool.getJsonSchemaFromSchemaAst(tool.parametersSchema.ast)
      }),
    0
  )
