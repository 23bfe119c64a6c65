/**
 * `effect-mcp chat`: a terminal conversation with a language model that uses the tools of
 * every configured server. The model's answer streams as it comes; each tool call shows with
 * its server and arguments, then its result; tools that may destroy something are asked
 * about first (unless `--yes`); `/save FILE` (or `--save FILE`, after every turn) writes the
 * conversation as JSON. Each tool result is held to `--max-result-tokens` (8,000 by default);
 * `--tools lexical` offers only the tools that match the conversation. The servers' skills are
 * offered as loadable instructions (a `<server>__load_skill` tool; `/skills` lists them) unless
 * `--no-skills`. The provider is chosen by `--provider` and its key comes from the environment;
 * without one the command says what to set and exits 2.
 */
import { createInterface } from "node:readline"
import * as Prompt from "@effect/ai/Prompt"
import * as Command from "@effect/cli/Command"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Options from "@effect/cli/Options"
import * as ValidationError from "@effect/cli/ValidationError"
import * as FileSystem from "@effect/platform/FileSystem"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { McpToolkit, type ResultBudget, SamplingModel, ToolLoop, ToolOutput, ToolSelection } from "@effect-mcp/ai"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Mailbox from "effect/Mailbox"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as CommonOptions from "../CommonOptions.js"
import { bold, cyan, dim, Output, type Printable, red, styled } from "../Output.js"
import * as Provider from "../Provider.js"
import { config, withHost } from "./host.js"
import { runCommand } from "./shared.js"

/** Where the conversation reads the user's lines (one reader at a time). */
export class ChatInput extends Context.Tag("@effect-mcp/cli/ChatInput")<
  ChatInput,
  {
    /** Shows `prompt` and reads a line; `None` at the end of input. */
    readonly read: (prompt: Printable) => Effect.Effect<Option.Option<string>>
  }
>() {
  /** Lines from stdin; stdin is paused between reads, so that a server's own prompts can use the terminal. */
  static readonly stdin: Layer.Layer<ChatInput, never, Output> = Layer.scoped(
    ChatInput,
    Effect.gen(function* () {
      const output = yield* Output
      const lines = yield* Mailbox.make<string>()
      const reader = yield* Effect.acquireRelease(
        Effect.sync(() => {
          const reader = createInterface({ input: process.stdin, terminal: false })
          reader.on("line", (line) => lines.unsafeOffer(line))
          reader.on("close", () => lines.unsafeDone(Exit.void))
          reader.pause()
          return reader
        }),
        (reader) => Effect.sync(() => reader.close())
      )
      return ChatInput.of(
        serialized(yield* Effect.makeSemaphore(1), (prompt) =>
          // Paused: no live line is drawn over the question while the user types.
          output.paused(
            output
              .text(prompt)
              .pipe(
                Effect.zipRight(Effect.sync(() => reader.resume())),
                Effect.zipRight(Effect.option(lines.take)),
                Effect.ensuring(Effect.sync(() => reader.pause()))
              )
          )
        )
      )
    })
  )

  /** These lines, then the end of input (for tests and scripts). */
  static readonly lines = (lines: ReadonlyArray<string>): Layer.Layer<ChatInput, never, Output> =>
    Layer.effect(
      ChatInput,
      Effect.gen(function* () {
        const output = yield* Output
        let next = 0
        return ChatInput.of(
          serialized(yield* Effect.makeSemaphore(1), (prompt) =>
            Effect.suspend(() => {
              const line = Option.fromNullable(lines[next++])
              return output
                .text(prompt)
                .pipe(Effect.zipRight(output.line(Option.getOrElse(line, () => ""))), Effect.as(line))
            })
          )
        )
      })
    )
}

const serialized = (permit: Effect.Semaphore, read: (prompt: Printable) => Effect.Effect<Option.Option<string>>) => ({
  read: (prompt: Printable) => permit.withPermits(1)(read(prompt))
})

/** How the conversation runs. */
export interface ChatSettings {
  readonly system: Option.Option<string>
  readonly maxToolCalls: number
  readonly callTimeout: Option.Option<Duration.Duration>
  /** Write the conversation here after every turn. */
  readonly save: Option.Option<string>
  /** Run every tool without asking. */
  readonly yes: boolean
  /** The token budget of each tool result (none: the toolkit's, 8,000). */
  readonly maxResultTokens: Option.Option<ResultBudget.MaxTokens>
  /** Which tools the model is offered at each step. */
  readonly tools: ToolSelection.Selection
  /** The first line shown (the model in use). */
  readonly banner: string
}

const HELP = "commands: /tools, /skills, /save FILE, /clear, /exit (or end of input)"

const yes = (answer: Option.Option<string>) => Option.exists(answer, (text) => /^\s*y(es)?\s*$/i.test(text))

const brief = (text: string, width: number) => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length > width ? `${flat.slice(0, width - 1)}…` : flat
}

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`

const labelOf = (call: ToolLoop.ToolCall) =>
  call.tool === undefined ? call.name : `${call.tool.server} › ${call.tool.tool.name}`

/** The conversation: reads lines until `/exit` or the end of input; each line is one turn of {@link ToolLoop}. */
export const converse = (settings: ChatSettings) =>
  Effect.gen(function* () {
    const output = yield* Output
    const input = yield* ChatInput
    const toolkit = yield* McpToolkit.McpToolkit
    const fs = yield* FileSystem.FileSystem
    const encode = Schema.encode(Prompt.FromJson)
    let history = Prompt.empty

    const save = (path: string) =>
      encode(history).pipe(
        Effect.flatMap((json) => fs.writeFileString(path, `${json}\n`)),
        Effect.matchEffect({
          onFailure: (error) => output.note(red(output.color, `could not save to ${path}: ${error.message}`)),
          onSuccess: () => output.note(dim(output.color, `saved the conversation to ${path}`))
        })
      )

    const approve = settings.yes
      ? undefined
      : ToolLoop.approveDestructive((call) =>
          Effect.map(
            input.read(
              styled`${bold(output.color, "allow")} ${labelOf(call)} ${JSON.stringify(call.arguments)}? [y/N] `
            ),
            yes
          )
        )

    // The answer streams on one line; tool activity starts on a fresh one.
    let midLine = false
    const freshLine = Effect.suspend(() => {
      if (!midLine) return Effect.void
      midLine = false
      return output.text("\n")
    })
    const render = (event: ToolLoop.TurnEvent): Effect.Effect<void> =>
      ToolLoop.TurnEvent.$match(event, {
        TextDelta: ({ text }) =>
          Effect.suspend(() => {
            midLine = !text.endsWith("\n")
            return output.text(text)
          }),
        ToolCallStarted: ({ call }) =>
          Effect.zipRight(
            freshLine,
            output.line(cyan(output.color, `⚙ ${labelOf(call)} ${brief(JSON.stringify(call.arguments), 200)}`))
          ),
        ToolProgress: ({ progress }) =>
          output.status(
            `… ${progress.progress}${progress.total === undefined ? "" : `/${progress.total}`} ${progress.message ?? ""}`
          ),
        ToolResult: ({ call, output: result, isError }) =>
          Effect.zipRight(
            output.status(undefined),
            output.line(
              isError
                ? red(output.color, `  ✗ ${labelOf(call)}: ${brief(ToolOutput.plainText(result), output.width - 8)}`)
                : dim(output.color, `  ✓ ${brief(ToolOutput.plainText(result), output.width - 4)}`)
            )
          ),
        Error: ({ error }) =>
          Effect.zipRight(freshLine, output.note(red(output.color, `the model failed: ${error.message}`))),
        Done: ({ outcome }) =>
          Effect.gen(function* () {
            yield* freshLine
            history = outcome.prompt
            if (outcome.limitReached)
              yield* output.note(dim(output.color, `(stopped at the limit of ${settings.maxToolCalls} tool calls)`))
            if (Option.isSome(settings.save)) yield* save(settings.save.value)
          })
      })

    const tools = (yield* toolkit.tools).filter((tool) => tool.kind === "tool")
    const skills = yield* toolkit.skills
    const offered = `${count(tools.length, "tool")}${skills.length === 0 ? "" : ` and ${count(skills.length, "skill")}`}`
    yield* output.note(dim(output.color, `${settings.banner}; ${offered} from the servers. ${HELP}`))
    while (true) {
      const line = yield* input.read(bold(output.color, "you› "))
      if (Option.isNone(line)) break
      const text = line.value.trim()
      if (text === "") continue
      if (text === "/exit" || text === "/quit") break
      if (text === "/help") {
        yield* output.note(HELP)
        continue
      }
      if (text === "/clear") {
        history = Prompt.empty
        yield* output.note(dim(output.color, "the conversation is cleared"))
        continue
      }
      if (text === "/tools") {
        for (const tool of yield* toolkit.tools)
          if (tool.kind === "tool")
            yield* output.line(styled`${tool.modelName}  ${dim(output.color, brief(tool.tool.description ?? "", 80))}`)
        continue
      }
      if (text === "/skills") {
        const listed = yield* toolkit.skills
        if (listed.length === 0) yield* output.note("no server offers skills")
        for (const { server, skill } of listed)
          yield* output.line(styled`${server} › ${skill.name}  ${dim(output.color, brief(skill.description, 80))}`)
        continue
      }
      if (text.startsWith("/save")) {
        const path = text.slice("/save".length).trim() || Option.getOrUndefined(settings.save)
        yield* path === undefined ? output.note("say where: /save FILE") : save(path)
        continue
      }
      if (text.startsWith("/")) {
        yield* output.note(`unknown command ${text.split(/\s/)[0]}; ${HELP}`)
        continue
      }
      yield* ToolLoop.stream({
        prompt: Prompt.merge(history, Prompt.make([{ role: "user", content: text }])),
        maxToolCalls: settings.maxToolCalls,
        tools: settings.tools,
        ...Option.match(settings.maxResultTokens, {
          onNone: () => ({}),
          onSome: (maxResultTokens) => ({ maxResultTokens })
        }),
        ...Option.match(settings.system, { onNone: () => ({}), onSome: (system) => ({ system }) }),
        ...Option.match(settings.callTimeout, { onNone: () => ({}), onSome: (callTimeout) => ({ callTimeout }) }),
        ...(approve === undefined ? {} : { approve })
      }).pipe(Stream.runForEach(render))
    }
  })

/** `--max-result-tokens`: a positive number of tokens, or `unlimited`. */
const parseMaxTokens = (value: string): Effect.Effect<ResultBudget.MaxTokens, ValidationError.ValidationError> =>
  value === "unlimited"
    ? Effect.succeed("unlimited")
    : /^[1-9][0-9]*$/.test(value)
      ? Effect.succeed(Number(value))
      : Effect.fail(
          ValidationError.invalidValue(
            HelpDoc.p(`--max-result-tokens takes a number of tokens or "unlimited", not "${value}"`)
          )
        )

const selections = { all: ToolSelection.all, lexical: ToolSelection.lexical() } as const

const chatOptions = {
  config,
  run: CommonOptions.run,
  provider: Options.choice("provider", Provider.providers).pipe(
    Options.withDescription("The model's provider (default: the one whose key is set, Anthropic first)"),
    Options.optional
  ),
  model: Options.text("model").pipe(
    Options.withDescription("The model (default: claude-sonnet-4-5 or gpt-4.1)"),
    Options.optional
  ),
  apiUrl: Options.text("api-url").pipe(
    Options.withDescription("Another endpoint speaking the provider's API (a proxy or gateway)"),
    Options.optional
  ),
  system: Options.text("system").pipe(Options.withDescription("A system prompt"), Options.optional),
  maxToolCalls: Options.integer("max-tool-calls").pipe(
    Options.withDescription("At most this many tool calls per answer"),
    Options.withDefault(16)
  ),
  save: Options.file("save").pipe(
    Options.withDescription("Write the conversation (JSON) to this file after every answer"),
    Options.optional
  ),
  yes: Options.boolean("yes").pipe(Options.withDescription("Run tools that may destroy something without asking")),
  maxResultTokens: Options.text("max-result-tokens").pipe(
    Options.withPseudoName("N|unlimited"),
    Options.withDescription(
      "At most this many tokens of each tool result reach the model; more is cut (default: 8000)"
    ),
    Options.mapEffect(parseMaxTokens),
    Options.optional
  ),
  tools: Options.choice("tools", ["all", "lexical"]).pipe(
    Options.withDescription(
      "Offer the model every tool, or only those whose words match the conversation (default: all)"
    ),
    Options.withDefault("all")
  ),
  noSkills: Options.boolean("no-skills").pipe(
    Options.withDescription("Do not offer the servers' skills to the model (offered by default: /skills lists them)")
  ),
  modelSampling: Options.boolean("model-sampling").pipe(
    Options.withDescription("Serve the servers' sampling requests with the chat's model (asking first unless --yes)")
  )
}

/** The chosen model's layer over Node's HTTP client (connections kept alive). */
export const overNode = (chosen: Provider.ChosenModel) =>
  chosen.layer.pipe(
    Layer.provide(NodeHttpClient.layerWithoutAgent),
    Layer.provide(NodeHttpClient.makeAgentLayer({ keepAlive: true }))
  )

/** `effect-mcp chat`. */
export const chat = Command.make("chat", chatOptions, (options) =>
  runCommand(
    options.run,
    Effect.gen(function* () {
      const chosen = yield* Provider.choose(options)
      const model = overNode(chosen)
      const input = yield* ChatInput
      const output = yield* Output
      const sampling = options.modelSampling
        ? SamplingModel.layer({
            modelName: chosen.model,
            consent: (params, context) =>
              options.yes
                ? Effect.succeed(true)
                : Effect.map(
                    input.read(
                      styled`${bold(output.color, "allow")} ${context.server} to ask the model (${params.messages.length} messages)? [y/N] `
                    ),
                    yes
                  )
          }).pipe(Layer.provide(model))
        : Layer.empty
      yield* withHost(
        options.config,
        options.run,
        (host) =>
          converse({
            system: options.system,
            maxToolCalls: options.maxToolCalls,
            callTimeout: Option.map(options.run.timeout, Duration.seconds),
            save: options.save,
            yes: options.yes,
            maxResultTokens: options.maxResultTokens,
            tools: selections[options.tools],
            banner: `${chosen.provider} ${chosen.model}`
          }).pipe(
            Effect.provideService(McpToolkit.McpToolkit, McpToolkit.make(host, { skills: !options.noSkills })),
            Effect.provide(model)
          ),
        { handlers: sampling }
      )
    }).pipe(Effect.provide(ChatInput.stdin))
  )
).pipe(
  Command.withDescription(
    "Chat with a language model that uses the tools and skills of every configured server (key from ANTHROPIC_API_KEY or OPENAI_API_KEY).\n" +
      "Example: ANTHROPIC_API_KEY=… effect-mcp chat --config .mcp.json"
  )
)
