/**
 * What every command does around its work: print to the right streams, log to stderr, and
 * turn a failure into one readable report (or one JSON object with `--json`) and an exit code.
 */

import * as Command from "@effect/cli/Command"
import type * as Terminal from "@effect/platform/Terminal"
import type { McpClient } from "@effect-mcp/client"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { type CliFailure, describe, Exit, exitCodeOf, serverOf, toJson } from "../CliError.js"
import * as CommonOptions from "../CommonOptions.js"
import { withClient } from "../Connect.js"
import * as Logging from "../Logging.js"
import { jsonText, Output, table } from "../Output.js"
import * as PausingTerminal from "../PausingTerminal.js"
import { ServerNames } from "../ServerNames.js"

/** Prints a failure on stderr and ends with its exit code. */
export const report = (failure: CliFailure) =>
  Effect.gen(function* () {
    const output = yield* Output
    const names = yield* ServerNames
    const given = serverOf(failure)
    const server = given === undefined ? undefined : yield* names.display(given)
    yield* output.status(undefined)
    yield* output.note(
      output.json ? jsonText({ error: toJson(failure, server) }) : describe(failure, output.verbose, server)
    )
    return yield* new Exit({ code: exitCodeOf(failure) })
  })

/** Runs a command's body with the run's printer, server names and logger; failures are reported. */
export const runCommand = <R>(
  run: Pick<CommonOptions.RunOptions, "json" | "verbose"> & Partial<Pick<CommonOptions.RunOptions, "maxTime">>,
  body: Effect.Effect<void, CliFailure | Exit, R>
): Effect.Effect<void, Exit, Exclude<R, Output | ServerNames> | Terminal.Terminal> =>
  body.pipe(
    // An Exit has been reported already (a piped shell's failed lines): only its code is left.
    Effect.catchAll((failure) => (failure._tag === "Exit" ? Effect.fail(failure) : report(failure))),
    Effect.provideService(CommonOptions.MaxCallTime, Option.map(run.maxTime ?? Option.none(), Duration.seconds)),
    // Every prompt inside pauses the live line.
    Effect.provide(PausingTerminal.layer),
    Effect.provide(Layer.merge(Output.layer({ json: run.json, verbose: run.verbose }), ServerNames.layer)),
    Effect.provide(Logging.layer(run.verbose))
  )

/** Prints a list: a table for people, `{ [key]: items }` with `--json`. */
export const printList = <A>(
  key: string,
  items: ReadonlyArray<A>,
  row: (item: A) => readonly [string, string | undefined]
) =>
  Effect.gen(function* () {
    const output = yield* Output
    if (output.json) return yield* output.printJson({ [key]: items })
    for (const line of table(items.map(row), output.width, "")) yield* output.line(line)
  })

/** A command that lists something of the server: a table for people, `{ [key]: items }` with `--json`. */
export const listCommand = <A>(
  name: string,
  description: string,
  key: string,
  list: (client: McpClient.McpClientService) => Effect.Effect<ReadonlyArray<A>, CliFailure>,
  row: (item: A) => readonly [string, string | undefined]
) =>
  Command.make(name, CommonOptions.connection, ({ server, run }) =>
    runCommand(
      run,
      withClient(server, run, (client) => Effect.flatMap(list(client), (items) => printList(key, items, row)))
    )
  ).pipe(Command.withDescription(description))
