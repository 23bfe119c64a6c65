/**
 * The host's aggregated MCP tools as an `@effect/ai` toolkit. Each tool keeps its server's
 * description and JSON input schema verbatim (the parameters Schema carries it as its JSON
 * Schema), gets a name every provider accepts, and calls the right server. The toolkit is
 * read from the host each time it is used, so it follows `notifications/tools/list_changed`
 * and servers coming and going; {@link McpToolkitService.changes} says when it changed.
 *
 * Calls never fail: a tool's `isError` result, a host error (server gone, timeout, unknown
 * tool) and a refusal all become an error output the model reads (`isFailure` on the tool
 * result part), so the model can recover. Each output is held to a token budget
 * ({@link ResultBudget}): a larger one is cut, with a marker saying how to get the rest.
 *
 * Skills (the servers' skills extension) are offered as loadable instructions: for each server
 * that lists skills, a tool `<server>__load_skill` whose description lists them by name and
 * description; a call loads one (its `SKILL.md` instructions, verified against the listing by
 * the client) or reads one of its files, and the result stays in the conversation. A skill that
 * fails verification is an error output naming the file and what differs; nothing of it is used.
 *
 * @since 0.1.0
 */
import * as Tool from "@effect/ai/Tool"
import type * as Toolkit from "@effect/ai/Toolkit"
import type { McpClient } from "@effect-mcp/client"
import type { Aggregate } from "@effect-mcp/host"
import { McpHost } from "@effect-mcp/host"
import { McpApps } from "@effect-mcp/protocol"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as SkillTool from "./internal/skillTool.js"
import * as ResultBudget from "./ResultBudget.js"
import * as ToolOutput from "./ToolOutput.js"

/**
 * An MCP tool as the model knows it.
 *
 * @since 0.1.0
 * @category models
 */
export interface McpTool {
  /** The name the model calls it by (letters, digits, `_` and `-`, at most 64 characters). */
  readonly modelName: string
  /** Its host-wide name (`<server>__<tool>`). */
  readonly hostName: string
  /** The server that offers it. */
  readonly server: string
  /** The tool as its server lists it (for the skills tool, as the toolkit describes it). */
  readonly tool: McpClient.Tool
  /** The `@effect/ai` tool. */
  readonly aiTool: AiTool
  /**
   * What a call runs: `"tool"`, the server's tool; `"skills"`, the toolkit's `load_skill` tool,
   * which loads the server's skills (see {@link McpToolkitOptions.skills}).
   */
  readonly kind: "tool" | "skills"
}

/**
 * How one call went: the output the model receives (within its budget) and whether it is an error.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolOutcome {
  readonly output: ToolOutput.ToolOutput
  readonly isError: boolean
  /** What the result budget left out, when the result was cut. */
  readonly omitted?: ResultBudget.Omitted
}

/**
 * Per-call options.
 *
 * @since 0.1.0
 * @category options
 */
export interface CallOptions {
  /** How long the call may take; past it the call is cancelled on its server. */
  readonly timeout?: Duration.DurationInput
  /** Receives the server's progress notifications (and a task's status changes). */
  readonly onProgress?: (progress: McpClient.Progress) => Effect.Effect<void>
  /** The result's token budget. Default: the toolkit's. */
  readonly maxResultTokens?: ResultBudget.MaxTokens
}

/**
 * Options of the toolkit.
 *
 * @since 0.1.0
 * @category options
 */
export interface McpToolkitOptions {
  /** Which host tools the model sees. Default: all but those an MCP App keeps to its view (visibility without `model`). */
  readonly include?: (tool: Aggregate.HostTool) => boolean
  /** Whether images, audio and blobs reach the model as base64. Default: `"omit"` (described only). */
  readonly binary?: ToolOutput.BinaryMode
  /** The default timeout of a call. Default: 2 minutes. */
  readonly callTimeout?: Duration.DurationInput
  /**
   * At most this many tokens of each result reach the model; a larger result is cut with a
   * marker ({@link ResultBudget}). Default: {@link ResultBudget.DEFAULT_MAX_TOKENS} (8,000).
   */
  readonly maxResultTokens?: ResultBudget.MaxTokens
  /**
   * Offer the servers' skills: each server that lists skills gets a `<server>__load_skill` tool
   * whose description lists them, and which loads one on request. Default: true.
   */
  readonly skills?: boolean
}

/**
 * The toolkit service.
 *
 * @since 0.1.0
 * @category models
 */
export interface McpToolkitService {
  /** The tools as they are now (the skills tools after the servers' tools). */
  readonly tools: Effect.Effect<ReadonlyArray<McpTool>>
  /** The skills offered to the model (none when the toolkit offers none). */
  readonly skills: Effect.Effect<ReadonlyArray<Aggregate.HostSkill>>
  /** The tools as an `@effect/ai` toolkit, for `LanguageModel.generateText({ toolkit })`; built afresh each time. */
  readonly toolkit: Effect.Effect<AiToolkit>
  /** These tools as an `@effect/ai` toolkit whose handler calls them. */
  readonly withHandler: (tools: ReadonlyArray<McpTool>) => AiToolkit
  /** Calls a tool by its model name. Never fails: errors become an error output. */
  readonly call: (modelName: string, params: unknown, options?: CallOptions) => Effect.Effect<ToolOutcome>
  /** Calls a tool already looked up (from {@link McpToolkitService.tools}). Never fails. */
  readonly callTool: (tool: McpTool, params: unknown, options?: CallOptions) => Effect.Effect<ToolOutcome>
  /** The tools, each time the host's tool lists (or resource lists, which carry skills) or server statuses change. */
  readonly changes: Stream.Stream<ReadonlyArray<McpTool>>
}

/**
 * The toolkit of a host's MCP tools.
 *
 * @since 0.1.0
 * @category services
 */
export class McpToolkit extends Context.Tag("@effect-mcp/ai/McpToolkit")<McpToolkit, McpToolkitService>() {}

/** What every MCP tool takes: a JSON object, described to the model by the tool's own JSON Schema. */
const parametersFor = (tool: McpClient.Tool) =>
  Schema.Struct({}, Schema.Record({ key: Schema.String, value: Schema.Unknown })).annotations({
    jsonSchema: tool.inputSchema
  })

const DEFAULT_TIMEOUT = Duration.minutes(2)
const MAX_NAME = 64

/**
 * A name every provider accepts: `[A-Za-z0-9_-]{1,64}`, unique among `taken`.
 *
 * @since 0.1.0
 * @category naming
 */
export const modelNameFor = (hostName: string, taken: ReadonlySet<string>): string => {
  const base = hostName.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, MAX_NAME) || "tool"
  if (!taken.has(base)) return base
  for (let n = 2; ; n++) {
    const suffix = `_${n}`
    const candidate = `${base.slice(0, MAX_NAME - suffix.length)}${suffix}`
    if (!taken.has(candidate)) return candidate
  }
}

/**
 * The `@effect/ai` tool for an MCP tool: its description, its input schema verbatim, its annotations, outputs and errors as {@link ToolOutput.ToolOutput}.
 *
 * @since 0.1.0
 * @category constructors
 */
export const aiToolFor = (modelName: string, tool: McpClient.Tool) => {
  let made = Tool.make(modelName, {
    description: tool.description ?? tool.title ?? tool.annotations?.title,
    success: ToolOutput.ToolOutput,
    failure: ToolOutput.ToolOutput,
    failureMode: "return"
  }).setParameters(parametersFor(tool))
  const hints = tool.annotations
  if (hints?.title !== undefined) made = made.annotate(Tool.Title, hints.title)
  if (hints?.readOnlyHint !== undefined) made = made.annotate(Tool.Readonly, hints.readOnlyHint)
  if (hints?.destructiveHint !== undefined) made = made.annotate(Tool.Destructive, hints.destructiveHint)
  if (hints?.idempotentHint !== undefined) made = made.annotate(Tool.Idempotent, hints.idempotentHint)
  if (hints?.openWorldHint !== undefined) made = made.annotate(Tool.OpenWorld, hints.openWorldHint)
  return made
}

/**
 * An MCP tool as an `@effect/ai` tool.
 *
 * @since 0.1.0
 * @category models
 */
export type AiTool = ReturnType<typeof aiToolFor>

/**
 * A toolkit of MCP tools, with the handler that calls them.
 *
 * @since 0.1.0
 * @category models
 */
export type AiToolkit = Toolkit.WithHandler<Record<string, AiTool>>

/**
 * Whether a tool says it may destroy something (MCP's `destructiveHint`, which defaults to true for tools that are not read-only).
 *
 * @since 0.1.0
 * @category guards
 */
export const isDestructive = (tool: McpClient.Tool): boolean =>
  tool.annotations?.readOnlyHint !== true && tool.annotations?.destructiveHint !== false

/**
 * Builds the toolkit over a host.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (host: McpHost.McpHostService, options: McpToolkitOptions = {}): McpToolkitService => {
  const binary = options.binary ?? "omit"
  const defaultTimeout = options.callTimeout ?? DEFAULT_TIMEOUT
  const defaultBudget = options.maxResultTokens ?? ResultBudget.DEFAULT_MAX_TOKENS
  // A tool object is replaced whenever its server's list is refreshed, so this cache never serves a stale tool.
  const built = new WeakMap<McpClient.Tool, Map<string, AiTool>>()
  const aiTool = (modelName: string, tool: McpClient.Tool): AiTool => {
    const byName = built.get(tool) ?? new Map<string, AiTool>()
    built.set(tool, byName)
    const made = byName.get(modelName) ?? aiToolFor(modelName, tool)
    byName.set(modelName, made)
    return made
  }

  const offersSkills = options.skills ?? true
  const skills: Effect.Effect<ReadonlyArray<Aggregate.HostSkill>> = offersSkills ? host.skills : Effect.succeed([])
  // The skills tool of a server is described afresh only when its skills change, so its aiTool is reused.
  const skillTools = new Map<string, { readonly key: string; readonly tool: McpClient.Tool }>()
  const skillToolOf = (server: string, listed: ReadonlyArray<SkillTool.Labelled>): McpClient.Tool => {
    const tool = SkillTool.definition(server, listed)
    const key = JSON.stringify(tool)
    const previous = skillTools.get(server)
    if (previous !== undefined && previous.key === key) return previous.tool
    skillTools.set(server, { key, tool })
    return tool
  }

  const tools: Effect.Effect<ReadonlyArray<McpTool>> = Effect.map(
    Effect.all([host.tools, skills], { concurrency: "unbounded" }),
    ([hostTools, hostSkills]) => {
      const taken = new Set<string>()
      const out: Array<McpTool> = []
      const add = (hostName: string, server: string, tool: McpClient.Tool, kind: McpTool["kind"]) => {
        const modelName = modelNameFor(hostName, taken)
        taken.add(modelName)
        out.push({ modelName, hostName, server, tool, aiTool: aiTool(modelName, tool), kind })
      }
      for (const hostTool of hostTools) {
        // MCP Apps: a tool whose visibility lacks `model` is for its server's view alone.
        if (!McpApps.visibleToModel(hostTool.tool.ui)) continue
        if (options.include !== undefined && !options.include(hostTool)) continue
        add(hostTool.name, hostTool.server, hostTool.tool, "tool")
      }
      // After the servers' own tools, so that a server's tool named load_skill keeps its name.
      for (const { server, skills: listed } of SkillTool.byServer(hostSkills)) {
        add(`${server}__${SkillTool.TOOL_NAME}`, server, skillToolOf(server, listed), "skills")
      }
      return out
    }
  )

  const run = (
    entry: McpTool,
    args: { readonly [key: string]: unknown },
    call: CallOptions
  ): Effect.Effect<McpClient.CallToolResult, { readonly message: string }> =>
    entry.tool.execution?.taskSupport === "required"
      ? Effect.flatMap(host.client(entry.server), (client) =>
          client.tasks.run(entry.tool.name, args, {
            onStatus: (task) =>
              call.onProgress === undefined
                ? Effect.void
                : call.onProgress({ progress: 0, message: task.statusMessage ?? task.status }),
            ...(call.onProgress === undefined ? {} : { onProgress: call.onProgress })
          })
        )
      : host.callTool(entry.hostName, args, call.onProgress === undefined ? {} : { onProgress: call.onProgress })

  /** The outcome within the call's budget. */
  const withinBudget = (entry: McpTool, outcome: ToolOutcome, maxTokens: ResultBudget.MaxTokens) =>
    maxTokens === "unlimited"
      ? Effect.succeed(outcome)
      : Effect.map(
          ResultBudget.budget(outcome.output, {
            maxTokens,
            hint:
              entry.kind === "skills"
                ? SkillTool.hint(entry.modelName)
                : ResultBudget.hintFor(entry.tool, entry.modelName, outcome.output)
          }),
          ({ output, omitted }): ToolOutcome =>
            omitted === undefined ? outcome : { output, isError: outcome.isError, omitted }
        )

  /** The call's outcome before its budget: the server's tool result, or the skill loaded. */
  const outcomeOf = (
    entry: McpTool,
    params: unknown,
    call: CallOptions,
    timeout: Duration.Duration
  ): Effect.Effect<ToolOutcome, { readonly message: string }> =>
    entry.kind === "skills"
      ? SkillTool.call(host, entry.server, entry.modelName, params, { timeout, binary })
      : Effect.map(run(entry, Predicate.isRecord(params) ? params : {}, call), (result) =>
          ToolOutput.fromResult(result, binary)
        )

  const callTool = (entry: McpTool, params: unknown, call: CallOptions = {}): Effect.Effect<ToolOutcome> => {
    const timeout = Duration.decode(call.timeout ?? defaultTimeout)
    return outcomeOf(entry, params, call, timeout).pipe(
      Effect.timeoutFail({
        duration: timeout,
        onTimeout: () => ({ message: `the call did not finish within ${Duration.format(timeout)} and was cancelled` })
      }),
      Effect.catchAll((error) => Effect.succeed({ output: ToolOutput.text(error.message), isError: true })),
      Effect.flatMap((outcome) => withinBudget(entry, outcome, call.maxResultTokens ?? defaultBudget)),
      Effect.withSpan("McpToolkit.call", { attributes: { "mcp.tool": entry.hostName, "mcp.server": entry.server } })
    )
  }

  const call = (modelName: string, params: unknown, options: CallOptions = {}): Effect.Effect<ToolOutcome> =>
    Effect.flatMap(tools, (current) => {
      const entry = current.find((tool) => tool.modelName === modelName)
      return entry === undefined
        ? Effect.succeed({ output: ToolOutput.text(`unknown tool "${modelName}"`), isError: true })
        : callTool(entry, params, options)
    })

  const withHandler = (current: ReadonlyArray<McpTool>): AiToolkit => ({
    tools: Object.fromEntries(current.map((entry) => [entry.modelName, entry.aiTool])),
    handle: (name, params) =>
      Effect.map(call(String(name), params), ({ output, isError }) => ({
        result: output,
        encodedResult: output,
        isFailure: isError
      }))
  })

  const changes = host.changes.pipe(
    Stream.filter(
      (change) => change._tag === "Status" || change.list === "tools" || (offersSkills && change.list === "resources")
    ),
    Stream.mapEffect(() => tools)
  )

  return { tools, skills, toolkit: Effect.map(tools, withHandler), withHandler, call, callTool, changes }
}

/**
 * The toolkit over the context's host.
 *
 * @example
 * ```ts
 * import { McpToolkit, ToolLoop } from "@effect-mcp/ai"
 * import { Transports } from "@effect-mcp/client"
 * import { McpHost } from "@effect-mcp/host"
 * import { LanguageModel } from "@effect/ai"
 * import { NodeContext, NodeHttpClient } from "@effect/platform-node"
 * import { Effect, Layer } from "effect"
 *
 * const HostLive = McpHost.layer({
 *   servers: [
 *     {
 *       name: "everything",
 *       target: {
 *         _tag: "Stdio",
 *         command: "npx",
 *         args: ["-y", "@modelcontextprotocol/server-everything"],
 *         env: {}
 *       }
 *     }
 *   ]
 * }).pipe(
 *   Layer.provide(Transports.layer),
 *   Layer.provide(Layer.merge(NodeContext.layer, NodeHttpClient.layer))
 * )
 *
 * const ToolkitLive = McpToolkit.layer({ maxResultTokens: 4_000, callTimeout: "1 minute" }).pipe(
 *   Layer.provide(HostLive)
 * )
 *
 * // A turn with the host's tools, on any `LanguageModel` layer: the model calls them, then answers
 * const turn = ToolLoop.run({ prompt: "Add 2 and 40 with a tool." }).pipe(
 *   Effect.provide(ToolkitLive)
 * )
 *
 * // Or the toolkit as it is now, for `LanguageModel.generateText`
 * const answer = Effect.gen(function* () {
 *   const mcp = yield* McpToolkit.McpToolkit
 *   const toolkit = yield* mcp.toolkit
 *   return yield* LanguageModel.generateText({ prompt: "What tools do you have?", toolkit })
 * }).pipe(Effect.provide(ToolkitLive))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: McpToolkitOptions = {}): Layer.Layer<McpToolkit, never, McpHost.McpHost> =>
  Layer.effect(
    McpToolkit,
    Effect.map(McpHost.McpHost, (host) => make(host, options))
  )
