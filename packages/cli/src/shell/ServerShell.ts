/**
 * The commands of `effect-mcp shell` on one server, with the one-shot commands' syntax
 * (without the server options): `tools list|show|call`, `resources list|templates|read|
 * subscribe|unsubscribe`, `prompts list|get`, `logs on [level]|off`, `info`, `inspect`,
 * `ping`, `help`, `exit`.
 */
import type * as Prompt from "@effect/cli/Prompt"
import type { McpClient, SessionState } from "@effect-mcp/client"
import { McpSchema } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { type CliFailure, UsageError } from "../CliError.js"
import { printCompletion } from "../commands/misc.js"
import { printPrompt } from "../commands/prompts.js"
import { logLine } from "../commands/render.js"
import { printRead } from "../commands/resources.js"
import { printInfo, printInspect } from "../commands/server.js"
import { printList } from "../commands/shared.js"
import { callAndPrint, callArguments, findTool, showTool } from "../commands/tools.js"
import { signature, summary } from "../commands/toolView.js"
import { closest } from "../internal/closest.js"
import { Output, table } from "../Output.js"
import type { ServerNames } from "../ServerNames.js"
import { type Ask, promptArguments, schemaArguments, type Vocabulary } from "./Completion.js"
import type { Target } from "./Repl.js"

/** Why a session in `state` can take no more commands, if it cannot (the first line: the stderr tail was printed with the error). */
const whyEnded = (state: SessionState.SessionState): Option.Option<string> =>
  state._tag === "Failed"
    ? Option.some(state.cause.message.split("\n")[0] ?? state.cause.message)
    : state._tag === "Closed"
      ? Option.some("the connection is closed")
      : Option.none()

/** The commands and subcommands, for completion and help. */
export const COMMANDS: { readonly [command: string]: ReadonlyArray<string> } = {
  tools: ["list", "show", "call"],
  resources: ["list", "templates", "read", "subscribe", "unsubscribe"],
  prompts: ["list", "get"],
  logs: ["on", "off"],
  complete: ["prompt", "template"],
  subscribe: [],
  unsubscribe: [],
  info: [],
  inspect: [],
  ping: [],
  reconnect: [],
  help: [],
  exit: []
}

const HELP: ReadonlyArray<readonly [string, string]> = [
  ["tools list", "the tools, with their arguments"],
  ["tools show NAME", "one tool in full"],
  ["tools call NAME k=v k:=json [--task] [--out DIR] [--args JSON]", "call a tool (Ctrl-C cancels it)"],
  ["resources list | templates", "the resources, the templates"],
  ["resources read URI [--out DIR]", "read a resource"],
  ["resources subscribe | unsubscribe URI", "follow a resource's updates (printed as they come); also subscribe URI"],
  ["prompts list", "the prompts"],
  ["prompts get NAME k=v [--out DIR]", "get a prompt"],
  ["logs on [LEVEL] | off", "show the server's log messages (from LEVEL up) or hide them"],
  ["complete prompt NAME ARG [TYPED] | template URI ARG [TYPED]", "ask the server to complete an argument"],
  ["info | inspect | ping", "what the server is, everything it offers, whether it answers"],
  ["reconnect", "close the connection and connect again (a server that died or was restarted)"],
  ["exit (or Ctrl-D)", "close the session"]
]

/** Flags in a command line: `--name value` and `--name`; the other words in order. */
export const takeFlags = (
  words: ReadonlyArray<string>,
  valued: ReadonlyArray<string>,
  bare: ReadonlyArray<string>
): Effect.Effect<
  {
    readonly rest: ReadonlyArray<string>
    readonly values: ReadonlyMap<string, string>
    readonly set: ReadonlySet<string>
  },
  UsageError
> =>
  Effect.suspend(() => {
    const rest: Array<string> = []
    const values = new Map<string, string>()
    const set = new Set<string>()
    for (let index = 0; index < words.length; index++) {
      const word = words[index] ?? ""
      const name = word.startsWith("--") ? word.slice(2) : undefined
      if (name !== undefined && valued.includes(name)) {
        const value = words[index + 1]
        if (value === undefined) return Effect.fail(new UsageError({ reason: `--${name} needs a value` }))
        values.set(name, value)
        index += 1
      } else if (name !== undefined && bare.includes(name)) set.add(name)
      else if (name !== undefined && name !== "")
        return Effect.fail(new UsageError({ reason: `unknown option ${word}` }))
      else rest.push(word)
    }
    return Effect.succeed({ rest, values, set })
  })

/** What the server offers, for tab completion (what it does not offer is left out). */
export const vocabularyOf = (client: McpClient.McpClientService): Effect.Effect<Vocabulary> =>
  Effect.gen(function* () {
    const caps = client.serverCapabilities
    const tools = caps.tools === undefined ? [] : yield* client.tools
    const resources = caps.resources === undefined ? [] : yield* client.resources
    const templates = caps.resources === undefined ? [] : yield* client.resourceTemplates
    const prompts = caps.prompts === undefined ? [] : yield* client.prompts
    return {
      commands: COMMANDS,
      tools: tools.map((tool) => ({ name: tool.name, args: schemaArguments(tool.inputSchema) })),
      resources: resources.map((resource) => resource.uri),
      templates: templates.map((template) => template.uriTemplate),
      prompts: prompts.map((prompt) => ({ name: prompt.name, args: promptArguments(prompt.arguments) }))
    }
  }).pipe(
    Effect.orElseSucceed(
      () => ({ commands: COMMANDS, tools: [], resources: [], templates: [], prompts: [] }) satisfies Vocabulary
    )
  )

/** The values the server offers for a prompt's argument or a template's variable (none when it cannot say). */
const suggest =
  (client: McpClient.McpClientService) =>
  (ask: Ask): Effect.Effect<ReadonlyArray<string>> =>
    client.serverCapabilities.completions === undefined
      ? Effect.succeed([])
      : client
          .complete({
            ref: ask.ref,
            argument: { name: ask.argument, value: ask.typed },
            ...(Object.keys(ask.context).length === 0 ? {} : { context: { arguments: ask.context } })
          })
          .pipe(
            Effect.map((completion) => completion.values),
            Effect.orElseSucceed(() => [])
          )

const decodeLevel = Schema.decodeUnknownOption(McpSchema.LoggingLevel)

/** The level of `logs on [LEVEL]` (default debug). */
export const levelOf = (word: string | undefined): Effect.Effect<McpSchema.LoggingLevel, UsageError> =>
  Option.match(decodeLevel(word ?? "debug"), {
    onNone: () =>
      Effect.fail(
        new UsageError({ reason: `logs on: the level is one of ${McpSchema.LoggingLevel.literals.join(", ")}` })
      ),
    onSome: Effect.succeed
  })

const usage = (reason: string) => Effect.fail(new UsageError({ reason }))

const unknown = (word: string, known: ReadonlyArray<string>, where: string) => {
  const close = closest(word, known)
  return usage(
    `${where}"${word}" is not a command${close.length === 0 ? "" : `; did you mean ${close.join(" or ")}?`} (help lists them)`
  )
}

/** A session target on one connected server. */
export const target = (
  client: McpClient.McpClientService
): Effect.Effect<Target<Output | ServerNames | Prompt.Prompt.Environment>, never, Output> =>
  Effect.gen(function* () {
    const output = yield* Output
    const showLogs = yield* Ref.make(true)
    const logs = client.logMessages.pipe(
      Stream.filterEffect(() => Ref.get(showLogs)),
      Stream.map(logLine)
    )
    const changes = client.listChanged.pipe(Stream.map((kind) => `the server's ${kind} changed`))
    const updates = client.resourceUpdates.pipe(Stream.map((update) => `updated: ${update.uri}`))

    const run = (
      words: ReadonlyArray<string>
    ): Effect.Effect<void, CliFailure, Output | ServerNames | Prompt.Prompt.Environment> =>
      Effect.gen(function* () {
        const [command = "", sub, ...rest] = words
        switch (command) {
          case "help":
            for (const line of table(HELP, output.width)) yield* output.line(line)
            return
          case "info":
            return yield* printInfo(client)
          case "inspect":
            return yield* printInspect(client)
          case "ping": {
            const started = performance.now()
            yield* client.ping()
            return yield* output.line(`pong in ${Math.round((performance.now() - started) * 10) / 10} ms`)
          }
          case "tools": {
            if (sub === "list")
              return yield* printList("tools", yield* client.tools, (tool) => [signature(tool), summary(tool)])
            if (sub === "show" && rest[0] !== undefined) return yield* showTool(client, rest[0])
            if (sub === "call" && rest[0] !== undefined) {
              const [name, ...more] = rest
              const flags = yield* takeFlags(more, ["out", "args"], ["task"])
              const input = yield* callArguments(
                Option.fromNullable(flags.values.get("args")),
                flags.rest,
                yield* findTool(client, name)
              )
              return yield* callAndPrint(
                client,
                name,
                input,
                flags.set.has("task"),
                Option.fromNullable(flags.values.get("out"))
              )
            }
            return yield* sub === undefined || COMMANDS.tools?.includes(sub)
              ? usage("tools list | tools show NAME | tools call NAME k=v …")
              : unknown(sub, COMMANDS.tools ?? [], "tools: ")
          }
          case "resources": {
            if (sub === "list")
              return yield* printList("resources", yield* client.resources, (resource) => [resource.uri, resource.name])
            if (sub === "templates")
              return yield* printList("resourceTemplates", yield* client.resourceTemplates, (template) => [
                template.uriTemplate,
                template.description ?? template.name
              ])
            const uri = rest[0]
            if (sub === "read" && uri !== undefined) {
              const flags = yield* takeFlags(rest.slice(1), ["out"], [])
              return yield* printRead(client, uri, Option.fromNullable(flags.values.get("out")))
            }
            if (sub === "subscribe" && uri !== undefined) {
              yield* client.subscribe(uri)
              return yield* output.note(`subscribed to ${uri}; its updates are shown as they come`)
            }
            if (sub === "unsubscribe" && uri !== undefined) {
              yield* client.unsubscribe(uri)
              return yield* output.note(`unsubscribed from ${uri}`)
            }
            return yield* sub === undefined || COMMANDS.resources?.includes(sub)
              ? usage("resources list | templates | read URI | subscribe URI | unsubscribe URI")
              : unknown(sub, COMMANDS.resources ?? [], "resources: ")
          }
          case "prompts": {
            if (sub === "list")
              return yield* printList("prompts", yield* client.prompts, (prompt) => [prompt.name, prompt.description])
            if (sub === "get" && rest[0] !== undefined) {
              const [name, ...more] = rest
              const flags = yield* takeFlags(more, ["out"], [])
              return yield* printPrompt(client, name, flags.rest, Option.fromNullable(flags.values.get("out")))
            }
            return yield* usage("prompts list | prompts get NAME k=v …")
          }
          case "subscribe":
          case "unsubscribe":
            // Short for `resources subscribe URI` and `resources unsubscribe URI`.
            return yield* run(["resources", command, ...words.slice(1)])
          case "complete": {
            const [target, argument, typed = ""] = rest
            if ((sub !== "prompt" && sub !== "template") || target === undefined || argument === undefined)
              return yield* usage("complete prompt NAME ARG [TYPED] | complete template URI-TEMPLATE ARG [TYPED]")
            const ref =
              sub === "prompt"
                ? ({ type: "ref/prompt", name: target } as const)
                : ({ type: "ref/resource", uri: target } as const)
            return yield* printCompletion(client, ref, argument, typed)
          }
          case "logs": {
            if (sub === "off") {
              yield* Ref.set(showLogs, false)
              return yield* output.note("log messages hidden")
            }
            if (sub === "on") {
              const level = yield* levelOf(rest[0])
              yield* Ref.set(showLogs, true)
              yield* client.setLoggingLevel(level)
              return yield* output.note(`showing log messages at ${level} and above`)
            }
            return yield* usage("logs on [LEVEL] | logs off")
          }
          default:
            return yield* unknown(command, Object.keys(COMMANDS), "")
        }
      })

    return {
      name: client.name,
      vocabulary: vocabularyOf(client),
      suggest: suggest(client),
      changes: client.listChanged,
      notifications: Stream.mergeAll([logs, changes, updates], { concurrency: "unbounded" }),
      warnings: Effect.succeed([]),
      ended: {
        now: Effect.map(client.state, whyEnded),
        changes: client.stateChanges.pipe(Stream.filterMap(whyEnded))
      },
      run
    }
  })
