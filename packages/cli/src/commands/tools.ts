/**
 * `tools list` and `tools call <name> [key=value | key:=json …] [--args json]`: arguments
 * are checked against the tool's input schema before sending; progress is shown while the
 * call runs; a result with `isError` exits 1.
 */

import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { JsonSchema, type McpClient, type McpError } from "@effect-mcp/client"
import type { McpSchema } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import { ToolReportedError, UsageError } from "../CliError.js"
import * as CommonOptions from "../CommonOptions.js"
import { parseArguments } from "../internal/words.js"
import { bold, Output, red } from "../Output.js"
import { display } from "../ServerNames.js"
import { withClient } from "../Session.js"
import { contentBlock } from "./render.js"
import { listCommand, runCommand } from "./shared.js"

/** `tools list`. */
export const list = listCommand(
  "list",
  'List the server\'s tools.\nExample: effect-mcp tools list --stdio "node server.js"',
  "tools",
  (client) => client.tools,
  (tool) => [tool.name, tool.description]
)

const SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"

/** The arguments of a call from `--args` and the words after the tool's name. */
export const callArguments = (json: Option.Option<string>, words: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const base = Option.isNone(json)
      ? {}
      : yield* Either.match(
          Either.try({ try: () => JSON.parse(json.value) as unknown, catch: (cause) => String(cause) }),
          {
            onLeft: (reason) => Effect.fail(new UsageError({ reason: `--args is not JSON: ${reason}` })),
            onRight: (value) =>
              typeof value === "object" && value !== null && !Array.isArray(value)
                ? Effect.succeed(value as { readonly [key: string]: unknown })
                : Effect.fail(new UsageError({ reason: "--args must be a JSON object" }))
          }
        )
    const pairs = yield* Either.match(parseArguments(words), {
      onLeft: (reason) => Effect.fail(new UsageError({ reason })),
      onRight: Effect.succeed
    })
    return { ...base, ...pairs }
  })

/** Calls a tool with progress on stderr; prints the result; `isError` fails with {@link ToolReportedError}. */
export const callAndPrint = (
  client: McpClient.McpClientService,
  name: string,
  args: { readonly [key: string]: unknown },
  asTask = false
) =>
  Effect.gen(function* () {
    const output = yield* Output
    const tools = yield* client.tools
    const tool = tools.find((candidate) => candidate.name === name)
    if (tool === undefined)
      return yield* new UsageError({
        server: client.name,
        method: "tools/call",
        reason: `${yield* display(client.name)} has no tool named "${name}" (tools: ${tools.map((candidate) => candidate.name).join(", ") || "none"})`
      })
    const problem = JsonSchema.validate(tool.inputSchema, args)
    if (problem !== undefined)
      return yield* new UsageError({
        server: client.name,
        method: "tools/call",
        reason: `the arguments do not match the input schema of ${name}: ${problem}`
      })
    let frame = 0
    let text = `calling ${name}`
    // Suspended: each frame draws the next glyph and the latest text.
    const draw = Effect.suspend(() => output.status(`${SPINNER[frame++ % SPINNER.length]} ${text}`))
    const spinner = output.interactive
      ? Effect.forkScoped(Effect.repeat(draw, Schedule.spaced("100 millis")))
      : Effect.void
    const show = (line: string) => {
      text = line
      return output.interactive ? draw : output.status(line)
    }
    const call: Effect.Effect<
      McpSchema.CallToolResult,
      McpError.RequestError | McpError.ToolOutputInvalid | McpError.TaskRequired | McpError.TaskNotAllowed
    > = asTask
      ? client.runToolAsTask(name, args, {
          onStatus: (task) =>
            show(
              `task ${task.taskId}: ${task.status}${task.statusMessage === undefined ? "" : ` ${task.statusMessage}`}`
            )
        })
      : client.callTool(name, args, {
          onProgress: (progress) =>
            show(
              `progress ${name}: ${progress.progress}${progress.total === undefined ? "" : `/${progress.total}`}${progress.message === undefined ? "" : ` ${progress.message}`}`
            )
        })
    const result = yield* Effect.scoped(Effect.zipRight(spinner, call)).pipe(Effect.ensuring(output.status(undefined)))
    if (output.json) yield* output.printJson(result)
    else {
      if (result.isError === true)
        yield* output.line(red(output.color, bold(output.color, "the tool reported an error:")))
      for (const block of result.content) yield* output.line(contentBlock(block))
      if (result.structuredContent !== undefined) {
        yield* output.line(bold(output.color, "structured content:"))
        yield* output.line(JSON.stringify(result.structuredContent, null, 2))
      }
    }
    if (result.isError === true) return yield* new ToolReportedError({ server: client.name, tool: name })
  })

/** A call's arguments: `--args '<json>'` and `key=value` / `key:=json` words. */
export const argumentOptions = {
  args: Options.text("args").pipe(Options.withDescription("The arguments as one JSON object"), Options.optional),
  pairs: Args.text({ name: "key=value | key:=json" }).pipe(
    Args.withDescription("Arguments: key=value (JSON when it parses, else a string) or key:=json (always JSON)"),
    Args.repeated
  )
}

/** `tools call <name>`. */
export const call = Command.make(
  "call",
  {
    ...CommonOptions.connection,
    name: Args.text({ name: "tool" }).pipe(Args.withDescription("The tool's name")),
    task: Options.boolean("task").pipe(
      Options.withDescription("Run the tool as a task (2025-11-25): show its status changes, wait for its result")
    ),
    ...argumentOptions
  },
  ({ server, run, args, name, pairs, task }) =>
    runCommand(
      run,
      withClient(server, run, (client) =>
        Effect.flatMap(callArguments(args, pairs), (input) => callAndPrint(client, name, input, task))
      )
    )
).pipe(
  Command.withDescription(
    "Call a tool; its arguments are checked against the tool's input schema first. Exits 1 when the tool reports an error.\n" +
      'Example: effect-mcp tools call get-sum a=2 b:=3 --stdio "npx -y @modelcontextprotocol/server-everything"'
  )
)

/** `effect-mcp tools`. */
export const tools = Command.make("tools").pipe(
  Command.withDescription("List and call tools."),
  Command.withSubcommands([list, call])
)
