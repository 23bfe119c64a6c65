/**
 * `complete` (argument completion for a prompt or a resource template), `logs` (the server's
 * log messages until interrupted) and `servers` (the configured servers and their transport).
 */

import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import type { McpClient } from "@effect-mcp/client"
import { ConfigLoader } from "@effect-mcp/host"
import { McpSchema } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { UsageError } from "../CliError.js"
import * as CommonOptions from "../CommonOptions.js"
import { withClient } from "../Connect.js"
import { closest } from "../internal/closest.js"
import { parseStringArguments } from "../internal/words.js"
import { dim, Output } from "../Output.js"
import { display } from "../ServerNames.js"
import { printRows, problemJson, serverJson, serverRow } from "./configTable.js"
import { runCommand } from "./shared.js"

/** `complete`. */
export const complete = Command.make(
  "complete",
  {
    ...CommonOptions.connection,
    prompt: Options.text("prompt").pipe(
      Options.withDescription("Complete an argument of this prompt"),
      Options.optional
    ),
    template: Options.text("template").pipe(
      Options.withDescription("Complete a variable of this resource template (its URI template)"),
      Options.optional
    ),
    argument: Options.text("argument").pipe(Options.withDescription("The argument or variable to complete")),
    value: Options.text("value").pipe(Options.withDescription("What has been typed so far"), Options.withDefault("")),
    context: Options.text("context").pipe(
      Options.withDescription("An already-resolved argument key=value (repeatable)"),
      Options.repeated
    )
  },
  ({ server, run, prompt, template, argument, value, context }) =>
    runCommand(
      run,
      Effect.gen(function* () {
        if (Option.isSome(prompt) === Option.isSome(template))
          return yield* new UsageError({ reason: "give exactly one of --prompt <name> or --template <uri-template>" })
        const known = yield* Either.match(parseStringArguments(context), {
          onLeft: (reason) => Effect.fail(new UsageError({ reason: `--context: ${reason}` })),
          onRight: Effect.succeed
        })
        const ref = Option.isSome(prompt)
          ? ({ type: "ref/prompt", name: prompt.value } as const)
          : ({ type: "ref/resource", uri: Option.getOrThrow(template) } as const)
        yield* withClient(server, run, (client) => printCompletion(client, ref, argument, value, known))
      })
    )
).pipe(
  Command.withDescription(
    "Ask the server to complete a prompt's argument or a resource template's variable.\n" +
      "Example: effect-mcp complete --prompt completable-prompt --argument department --value E -- npx -y @modelcontextprotocol/server-everything"
  )
)

/** The variables of a URI template (RFC 6570): `{a}`, `{+a}`, `{?a,b}`, `{a*}`, `{a:3}`. */
const templateVariables = (template: string): ReadonlyArray<string> =>
  [...template.matchAll(/\{[+#./;?&]?([^}]*)\}/g)].flatMap(([, list]) =>
    (list ?? "").split(",").map((name) => name.replace(/(\*|:\d+)$/, "").trim())
  )

/**
 * The arguments of the prompt or the variables of the template `ref` names; `undefined` when it
 * is not listed (the server may still complete it) or the list cannot be read.
 */
const argumentNames = (
  client: McpClient.McpClientService,
  ref: { readonly type: "ref/prompt"; readonly name: string } | { readonly type: "ref/resource"; readonly uri: string }
): Effect.Effect<ReadonlyArray<string> | undefined> =>
  ref.type === "ref/prompt"
    ? client.prompts.pipe(
        Effect.map((prompts) =>
          prompts.find((prompt) => prompt.name === ref.name)?.arguments?.map((argument) => argument.name)
        ),
        Effect.orElseSucceed(() => undefined)
      )
    : client.resourceTemplates.pipe(
        Effect.map((templates) => {
          const found = templates.find((template) => template.uriTemplate === ref.uri)
          return found === undefined ? undefined : templateVariables(found.uriTemplate)
        }),
        Effect.orElseSucceed(() => undefined)
      )

/**
 * Asks the server to complete `argument` of a prompt or resource template and prints the
 * candidates, one a line (`context`: arguments already resolved).
 */
export const printCompletion = (
  client: McpClient.McpClientService,
  ref: { readonly type: "ref/prompt"; readonly name: string } | { readonly type: "ref/resource"; readonly uri: string },
  argument: string,
  value: string,
  context: { readonly [key: string]: string } = {}
) =>
  Effect.gen(function* () {
    const output = yield* Output
    // An argument the prompt or template does not have is named with the ones it has (the
    // server would answer no completions, which reads as if the value had none).
    const names = yield* argumentNames(client, ref)
    if (names !== undefined && !names.includes(argument)) {
      const close = closest(argument, names)
      const what = ref.type === "ref/prompt" ? `prompt ${ref.name}` : `template ${ref.uri}`
      return yield* new UsageError({
        server: client.name,
        method: "completion/complete",
        reason: `${what} has no argument "${argument}" (${close.length > 0 ? `did you mean ${close.join(", ")}?` : names.length === 0 ? "it has none" : `it has ${names.join(", ")}`})`
      })
    }
    const completion = yield* client.complete({
      ref,
      argument: { name: argument, value },
      ...(Object.keys(context).length === 0 ? {} : { context: { arguments: context } })
    })
    if (output.json) return yield* output.printJson({ completion })
    // On stderr, so that stdout stays one candidate a line.
    if (completion.values.length === 0) return yield* output.note(dim(output.color, "no completions"))
    for (const candidate of completion.values) yield* output.line(candidate)
    if (completion.hasMore === true || (completion.total ?? 0) > completion.values.length)
      yield* output.note(dim(output.color, `(${completion.total ?? "more"} in all)`))
  })

/** `logs`. */
export const logs = Command.make(
  "logs",
  {
    ...CommonOptions.connection,
    level: Options.choice("level", McpSchema.LoggingLevel.literals).pipe(
      Options.withDescription("The lowest level to receive"),
      Options.withDefault("debug" as const)
    )
  },
  ({ server, run, level }) =>
    runCommand(
      run,
      withClient(
        server,
        run,
        (client) =>
          Effect.gen(function* () {
            const output = yield* Output
            const printing = yield* client.logMessages.pipe(
              Stream.runForEach((log) =>
                output.json
                  ? output.printJson(log)
                  : output.line(
                      `${log.level.padEnd(9)} ${log.logger === undefined ? "" : `${log.logger}: `}${typeof log.data === "string" ? log.data : JSON.stringify(log.data)}`
                    )
              ),
              Effect.forkScoped
            )
            yield* client.setLoggingLevel(level)
            yield* output.note(
              `streaming ${yield* display(client.name)}'s log messages at ${level} and above; Ctrl-C to stop`
            )
            yield* printing.await
          }).pipe(Effect.scoped),
        { showServerLogs: false }
      )
    )
).pipe(
  Command.withDescription(
    "Stream the server's log messages until interrupted.\nExample: effect-mcp logs --level info -- npx -y @modelcontextprotocol/server-everything"
  )
)

/** `servers`. */
export const servers = Command.make(
  "servers",
  { config: CommonOptions.server.pipe(Options.map((options) => options.config)), run: CommonOptions.run },
  ({ config, run }) =>
    runCommand(
      run,
      Effect.gen(function* () {
        const output = yield* Output
        const loaded = yield* ConfigLoader.load(yield* ConfigLoader.here(Option.getOrUndefined(config)))
        for (const warning of loaded.warnings) yield* output.note(`warning: ${warning}`)
        for (const problem of loaded.problems) yield* output.note(`warning: ${problem.message} (server left out)`)
        if (output.json)
          return yield* output.printJson({
            files: loaded.files,
            servers: loaded.entries.map(serverJson),
            problems: loaded.problems.map(problemJson)
          })
        if (loaded.files.length === 0)
          return yield* output.note(
            "no config file found (looked in the project's ./.mcp.json, ./mcp.json, ./.vscode/mcp.json, ./.cursor/mcp.json and the user's files: see effect-mcp config list)"
          )
        yield* printRows(loaded.entries.map((entry) => serverRow(entry)))
        for (const entry of loaded.shadowed)
          yield* output.note(`note: "${entry.name}" in ${entry.file} is hidden by an earlier file`)
      })
    )
).pipe(
  Command.withDescription(
    "List the configured servers with their transport and file.\nExample: effect-mcp servers --config ./mcp.json"
  )
)
