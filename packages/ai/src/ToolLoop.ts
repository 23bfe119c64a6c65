/**
 * One turn of a conversation with tools: the model (any `LanguageModel` layer) answers or asks
 * for tool calls, we run them on their MCP servers (in parallel when it asks for several, each
 * with a timeout, after the caller's consent where asked for), hand the results back, and
 * repeat until the model answers. A turn makes at most `maxToolCalls` calls; past the limit,
 * calls get an error result and the model is asked to answer without tools.
 *
 * The model is offered the tools {@link TurnOptions.tools} selects (all by default; see
 * {@link ToolSelection}), chosen again at each step, among them the toolkit's `load_skill` tools
 * for servers that serve skills (a loaded skill's instructions stay in the conversation as its
 * tool result), and each result is held to the toolkit's token budget (see {@link ResultBudget}).
 *
 * {@link stream} gives the turn as events for a UI; {@link run} gives its outcome. Interrupting
 * either (or ending the stream early) interrupts the running tool calls, which cancels them on
 * their servers.
 *
 * @since 0.1.0
 */
import type * as AiError from "@effect/ai/AiError"
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as Prompt from "@effect/ai/Prompt"
import * as Response from "@effect/ai/Response"
import type { McpClient } from "@effect-mcp/client"
import * as Data from "effect/Data"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Mailbox from "effect/Mailbox"
import * as Stream from "effect/Stream"
import { type AiTool, type McpTool, McpToolkit, type McpToolkitService, type ToolOutcome } from "./McpToolkit.js"
import type * as ResultBudget from "./ResultBudget.js"
import * as ToolOutput from "./ToolOutput.js"
import * as ToolSelection from "./ToolSelection.js"

/**
 * A tool call the model asked for.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolCall {
  /** The model's id of the call. */
  readonly callId: string
  /** The tool's name as the model knows it. */
  readonly name: string
  /** The MCP tool (absent when the model named a tool that does not exist). */
  readonly tool: McpTool | undefined
  /** The arguments, as the model gave them. */
  readonly arguments: unknown
}

/**
 * What happens during a turn, in order (events of parallel calls interleave).
 *
 * @since 0.1.0
 * @category models
 */
export type TurnEvent = Data.TaggedEnum<{
  /** A piece of the model's answer. */
  TextDelta: { readonly text: string }
  /** A tool call starts (after consent, when asked for). */
  ToolCallStarted: { readonly call: ToolCall }
  /** A running tool reported progress. */
  ToolProgress: { readonly callId: string; readonly progress: McpClient.Progress }
  /** A tool call ended; `isError` when the tool failed, the host could not run it, or the user declined. */
  ToolResult: {
    readonly call: ToolCall
    readonly output: ToolOutput.ToolOutput
    readonly isError: boolean
  }
  /** The model failed; the turn ends here. */
  Error: { readonly error: AiError.AiError }
  /** The turn is over. */
  Done: { readonly outcome: TurnOutcome }
}>

/**
 * Constructors and matchers of {@link TurnEvent}.
 *
 * @since 0.1.0
 * @category constructors
 */
export const TurnEvent = Data.taggedEnum<TurnEvent>()

/**
 * How a turn ended.
 *
 * @since 0.1.0
 * @category models
 */
export interface TurnOutcome {
  /** The model's final answer. */
  readonly text: string
  /** The conversation so far: the turn's prompt, then every message of the turn. */
  readonly prompt: Prompt.Prompt
  /** How many tool calls were made. */
  readonly toolCalls: number
  /** Whether the tool-call limit was reached. */
  readonly limitReached: boolean
  /** Why the model stopped. */
  readonly finishReason: Response.FinishReason
}

/**
 * Options of a turn.
 *
 * @since 0.1.0
 * @category options
 */
export interface TurnOptions {
  /** The conversation so far, ending with the user's message. */
  readonly prompt: Prompt.RawInput
  /** A system prompt (replaces the prompt's own). */
  readonly system?: string
  /** At most this many tool calls in the turn. Default: 16. */
  readonly maxToolCalls?: number
  /** The timeout of each tool call. Default: the toolkit's. */
  readonly callTimeout?: Duration.DurationInput
  /** How many of the calls the model asks for at once run in parallel. Default: all. */
  readonly concurrency?: number | "unbounded"
  /** Asked before each call (one at a time, before any of a batch runs); `false` declines it. Default: every call runs. */
  readonly approve?: (call: ToolCall) => Effect.Effect<boolean>
  /** Which tools the model is offered at each step. Default: {@link ToolSelection.all}. */
  readonly tools?: ToolSelection.Selection
  /** The token budget of each tool result. Default: the toolkit's. */
  readonly maxResultTokens?: ResultBudget.MaxTokens
}

const DEFAULT_MAX_TOOL_CALLS = 16

/**
 * Asks `ask` before tools that may destroy something (MCP's `destructiveHint`); others run.
 *
 * @since 0.1.0
 * @category constructors
 */
export const approveDestructive =
  (ask: (call: ToolCall) => Effect.Effect<boolean>) =>
  (call: ToolCall): Effect.Effect<boolean> =>
    call.tool !== undefined &&
    (call.tool.tool.annotations?.readOnlyHint === true || call.tool.tool.annotations?.destructiveHint === false)
      ? Effect.succeed(true)
      : ask(call)

type AnyPart = Response.StreamPart<Record<string, AiTool>>
type ToolCallPart = Extract<AnyPart, { readonly type: "tool-call" }>

const resultPart = (call: ToolCallPart, outcome: ToolOutcome) =>
  Response.makePart("tool-result", {
    id: call.id,
    name: call.name,
    result: outcome.output,
    encodedResult: outcome.output,
    isFailure: outcome.isError,
    providerExecuted: false
  })

const failed = (message: string): ToolOutcome => ({ output: ToolOutput.text(message), isError: true })

const textOf = (parts: ReadonlyArray<AnyPart>): string =>
  parts.map((part) => (part.type === "text-delta" ? part.delta : "")).join("")

/** The turn's body: emits every event but `Done`, and returns the outcome. */
const turn = (
  toolkit: McpToolkitService,
  options: TurnOptions,
  emit: (event: TurnEvent) => Effect.Effect<void>
): Effect.Effect<TurnOutcome, AiError.AiError, LanguageModel.LanguageModel> =>
  Effect.gen(function* () {
    const model = yield* LanguageModel.LanguageModel
    const maxToolCalls = options.maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS
    let prompt = Prompt.make(options.prompt)
    if (options.system !== undefined) prompt = Prompt.setSystem(prompt, options.system)
    let toolCalls = 0
    let limitReached = false
    while (true) {
      const tools = ToolSelection.select(yield* toolkit.tools, prompt, options.tools ?? ToolSelection.all)
      const parts: Array<AnyPart> = []
      yield* model
        .streamText({
          prompt,
          toolkit: toolkit.withHandler(tools),
          toolChoice: limitReached ? "none" : "auto",
          disableToolCallResolution: true
        })
        .pipe(
          Stream.runForEach((part) => {
            parts.push(part)
            return part.type === "text-delta" ? emit(TurnEvent.TextDelta({ text: part.delta })) : Effect.void
          })
        )
      const finish = parts.find((part) => part.type === "finish")
      const calls = parts.filter((part): part is ToolCallPart => part.type === "tool-call" && !part.providerExecuted)
      if (calls.length === 0 || limitReached) {
        // Calls asked for after the limit get an error result, so the conversation stays well-formed.
        const refused = calls.map((call) =>
          resultPart(call, failed(`the limit of ${maxToolCalls} tool calls per turn was reached`))
        )
        return {
          text: textOf(parts),
          prompt: Prompt.merge(prompt, Prompt.fromResponseParts([...parts, ...refused])),
          toolCalls,
          limitReached,
          finishReason: finish?.reason ?? "unknown"
        }
      }
      const allowed = calls.slice(0, Math.max(0, maxToolCalls - toolCalls))
      const over = calls.slice(allowed.length)
      toolCalls += allowed.length
      limitReached = toolCalls >= maxToolCalls
      const asked = allowed.map(
        (part): ToolCall => ({
          callId: part.id,
          name: part.name,
          tool: tools.find((tool) => tool.modelName === part.name),
          arguments: part.params
        })
      )
      const consent = yield* Effect.forEach(asked, (call) =>
        options.approve === undefined ? Effect.succeed(true) : options.approve(call)
      )
      const outcomes = yield* Effect.forEach(
        asked,
        (call, index) =>
          Effect.gen(function* () {
            yield* emit(TurnEvent.ToolCallStarted({ call }))
            const callOptions = {
              ...(options.callTimeout === undefined ? {} : { timeout: options.callTimeout }),
              ...(options.maxResultTokens === undefined ? {} : { maxResultTokens: options.maxResultTokens }),
              onProgress: (progress: McpClient.Progress) =>
                emit(TurnEvent.ToolProgress({ callId: call.callId, progress }))
            }
            // The tool was looked up with this turn's tools; only a name the model invented is looked up again.
            const outcome =
              consent[index] !== true
                ? failed("the user declined this tool call")
                : call.tool === undefined
                  ? yield* toolkit.call(call.name, call.arguments, callOptions)
                  : yield* toolkit.callTool(call.tool, call.arguments, callOptions)
            yield* emit(TurnEvent.ToolResult({ call, output: outcome.output, isError: outcome.isError }))
            return outcome
          }),
        { concurrency: options.concurrency ?? "unbounded" }
      )
      const results = [
        ...allowed.map((call, index) => resultPart(call, outcomes[index] ?? failed("no result"))),
        ...over.map((call) => resultPart(call, failed(`the limit of ${maxToolCalls} tool calls per turn was reached`)))
      ]
      prompt = Prompt.merge(prompt, Prompt.fromResponseParts([...parts, ...results]))
    }
  }).pipe(Effect.withSpan("ToolLoop.turn"))

/**
 * A turn as a stream of events, ending with `Done` (or `Error`, when the model fails).
 *
 * @since 0.1.0
 * @category combinators
 */
export const stream = (
  options: TurnOptions
): Stream.Stream<TurnEvent, never, LanguageModel.LanguageModel | McpToolkit> =>
  Stream.unwrapScoped(
    Effect.gen(function* () {
      const toolkit = yield* McpToolkit
      const events = yield* Mailbox.make<TurnEvent>()
      const emit = (event: TurnEvent) => Effect.asVoid(events.offer(event))
      yield* turn(toolkit, options, emit).pipe(
        Effect.matchEffect({
          onFailure: (error) => emit(TurnEvent.Error({ error })),
          onSuccess: (outcome) => emit(TurnEvent.Done({ outcome }))
        }),
        Effect.ensuring(events.end),
        Effect.forkScoped
      )
      return Mailbox.toStream(events)
    })
  )

/**
 * A turn to its end: the outcome, every event passed to `onEvent` on the way.
 *
 * @since 0.1.0
 * @category combinators
 */
export const run = (
  options: TurnOptions & { readonly onEvent?: (event: TurnEvent) => Effect.Effect<void> }
): Effect.Effect<TurnOutcome, AiError.AiError, LanguageModel.LanguageModel | McpToolkit> =>
  Effect.flatMap(McpToolkit, (toolkit) => turn(toolkit, options, options.onEvent ?? (() => Effect.void)))
