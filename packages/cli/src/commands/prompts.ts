/** `prompts list` and `prompts get <name> [key=value …]`. */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { UsageError } from "../CliError.js"
import * as CommonOptions from "../CommonOptions.js"
import { parseStringArguments } from "../internal/words.js"
import { bold, Output } from "../Output.js"
import { withClient } from "../Session.js"
import { contentBlock, promptSignature } from "./render.js"
import { listCommand, runCommand } from "./shared.js"

/** `prompts list`. */
export const list = listCommand(
  "list",
  "List the server's prompts and their arguments.\nExample: effect-mcp prompts list --server everything",
  "prompts",
  (client) => client.prompts,
  (prompt) => [promptSignature(prompt), prompt.description]
)

/** `prompts get <name> [key=value …]`. */
export const get = Command.make(
  "get",
  {
    ...CommonOptions.connection,
    name: Args.text({ name: "prompt" }).pipe(Args.withDescription("The prompt's name")),
    pairs: Args.text({ name: "key=value" }).pipe(Args.withDescription("The prompt's arguments"), Args.repeated)
  },
  ({ server, run, name, pairs }) =>
    runCommand(
      run,
      withClient(server, run, (client) =>
        Effect.gen(function* () {
          const output = yield* Output
          const args = yield* Either.match(parseStringArguments(pairs), {
            onLeft: (reason) => Effect.fail(new UsageError({ reason, server: client.name, method: "prompts/get" })),
            onRight: Effect.succeed
          })
          const result = yield* client.getPrompt(name, args)
          if (output.json) return yield* output.printJson(result)
          if (result.description !== undefined) yield* output.line(result.description)
          for (const message of result.messages) {
            yield* output.line(bold(output.color, `${message.role}:`))
            yield* output.line(contentBlock(message.content))
          }
        })
      )
    )
).pipe(
  Command.withDescription(
    "Get a prompt with its arguments filled in.\nExample: effect-mcp prompts get args-prompt city=Paris --server everything"
  )
)

/** `effect-mcp prompts`. */
export const prompts = Command.make("prompts").pipe(
  Command.withDescription("List and get prompts."),
  Command.withSubcommands([list, get])
)
