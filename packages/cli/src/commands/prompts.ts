/** `prompts list` and `prompts get <name> [key=value …]`. */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import type { McpClient } from "@effect-mcp/client"
import type { McpSchema } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Option from "effect/Option"
import { UsageError } from "../CliError.js"
import * as CommonOptions from "../CommonOptions.js"
import { withClient } from "../Connect.js"
import { closest } from "../internal/closest.js"
import { parseStringArguments } from "../internal/words.js"
import { bold, Output } from "../Output.js"
import { display } from "../ServerNames.js"
import { outOption, printContent } from "./binary.js"
import { promptSignature } from "./render.js"
import { listCommand, runCommand } from "./shared.js"

/** `prompts list`. */
export const list = listCommand(
  "list",
  "List the server's prompts and their arguments.\nExample: effect-mcp prompts list -- npx -y @modelcontextprotocol/server-everything",
  "prompts",
  (client) => client.prompts,
  (prompt) => [promptSignature(prompt), prompt.description]
)

/**
 * What is wrong with asking for prompt `name` with `args`, checked against the listed prompts
 * before anything is sent: an unknown prompt (with the closest names), a missing required
 * argument, an argument the prompt does not take (with the closest). `undefined` when nothing is.
 */
export const promptProblem = (
  prompts: ReadonlyArray<McpSchema.Prompt>,
  name: string,
  args: { readonly [key: string]: string }
): string | undefined => {
  const prompt = prompts.find((candidate) => candidate.name === name)
  if (prompt === undefined) {
    const close = closest(
      name,
      prompts.map((candidate) => candidate.name)
    )
    return `has no prompt named "${name}"${close.length === 0 ? (prompts.length === 0 ? " (it has no prompts)" : " (see effect-mcp prompts list)") : ` (did you mean ${close.join(", ")}?)`}`
  }
  const declared = prompt.arguments ?? []
  const names = declared.map((argument) => argument.name)
  for (const key of Object.keys(args)) {
    if (names.includes(key)) continue
    const close = closest(key, names)
    return `: prompt ${name} takes no argument "${key}"${close.length === 0 ? (names.length === 0 ? " (it takes none)" : ` (it takes ${names.join(", ")})`) : ` (did you mean ${close.join(", ")}?)`}`
  }
  const missing = declared.filter((argument) => argument.required === true && !Object.hasOwn(args, argument.name))
  if (missing.length > 0)
    return `: prompt ${name} needs ${missing.map((argument) => `${argument.name}=…`).join(" ")} (required)`
  return undefined
}

/** Gets a prompt with `key=value` arguments (or bare values, in the prompt's order) and prints its messages. */
export const printPrompt = (
  client: McpClient.McpClientService,
  name: string,
  pairs: ReadonlyArray<string>,
  out: Option.Option<string>
) =>
  Effect.gen(function* () {
    const output = yield* Output
    const listed = yield* client.prompts
    // Bare values fill the prompt's arguments in order, the required first (as a tool's do).
    const declared = listed.find((prompt) => prompt.name === name)?.arguments ?? []
    const order = [
      ...declared.filter((argument) => argument.required === true),
      ...declared.filter((argument) => argument.required !== true)
    ].map((argument) => argument.name)
    const args = yield* Either.match(parseStringArguments(pairs, order), {
      onLeft: (reason) => Effect.fail(new UsageError({ reason, server: client.name, method: "prompts/get" })),
      onRight: Effect.succeed
    })
    const problem = promptProblem(listed, name, args)
    if (problem !== undefined)
      return yield* new UsageError({
        server: client.name,
        method: "prompts/get",
        reason: `${yield* display(client.name)} ${problem}`
      })
    const result = yield* client.getPrompt(name, args)
    if (output.json) return yield* output.printJson(result)
    if (result.description !== undefined) yield* output.line(result.description)
    for (const message of result.messages) {
      yield* output.line(bold(output.color, `${message.role}:`))
      yield* printContent([message.content], out, name)
    }
  })

/** `prompts get <name> [key=value …]`. */
export const get = Command.make(
  "get",
  {
    ...CommonOptions.connection,
    name: Args.text({ name: "prompt" }).pipe(Args.withDescription("The prompt's name")),
    pairs: Args.text({ name: "key=value" }).pipe(
      Args.withDescription("The prompt's arguments: key=value, or bare values in the prompt's order (required first)"),
      Args.repeated
    ),
    out: outOption
  },
  ({ server, run, name, pairs, out }) =>
    runCommand(
      run,
      withClient(server, run, (client) => printPrompt(client, name, pairs, out))
    )
).pipe(
  Command.withDescription(
    "Get a prompt with its arguments filled in.\nExample: effect-mcp prompts get args-prompt city=Paris -- npx -y @modelcontextprotocol/server-everything"
  )
)

/** `effect-mcp prompts`. */
export const prompts = Command.make("prompts").pipe(
  Command.withDescription("List and get prompts."),
  Command.withSubcommands([list, get])
)
