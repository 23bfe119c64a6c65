/**
 * `tools list` and `tools call <name> [key=value | key:=json …] [--args json]`: arguments
 * are checked against the tool's input schema before sending; progress is shown while the
 * call runs; a result with `isError` exits 1.
 */

import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { JsonSchema, type McpClient, type McpError } from "@effect-mcp/client"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { ToolReportedError, UsageError } from "../CliError.js"
import * as CommonOptions from "../CommonOptions.js"
import { isInteractive, withClient } from "../Connect.js"
import { functionCall, withFileValues } from "../internal/callSyntax.js"
import { closest } from "../internal/closest.js"
import { sanitize } from "../internal/controls.js"
import { parseArguments } from "../internal/words.js"
import { bold, Output, styled, wrap } from "../Output.js"
import * as ProgressLine from "../ProgressLine.js"
import { display } from "../ServerNames.js"
import * as UrlRequired from "../UrlRequired.js"
import { outOption, printContent } from "./binary.js"
import { listCommand, runCommand } from "./shared.js"
import { hints, resourceMetaOf, schemaTree, signature, summary, titleOf, viewDeclaration } from "./toolView.js"

/** `tools list`. */
export const list = listCommand(
  "list",
  'List the server\'s tools.\nExample: effect-mcp tools list --stdio "npx -y @modelcontextprotocol/server-everything"',
  "tools",
  (client) => client.tools,
  (tool) => [signature(tool), summary(tool)]
)

/** Prints one tool in full: description, arguments and output as trees, hints, task support. */
export const showTool = (client: McpClient.McpClientService, name: string) =>
  Effect.gen(function* () {
    const output = yield* Output
    const tool = yield* findTool(client, name)
    const view = tool.ui?.resourceUri === undefined ? undefined : yield* viewOf(client, tool.ui.resourceUri)
    if (output.json) return yield* output.printJson(view === undefined ? { tool } : { tool, view })
    const title = titleOf(tool)
    yield* output.line(
      styled`${bold(output.color, tool.name)}${title === undefined || title === tool.name ? "" : ` — ${title}`}`
    )
    for (const line of wrap(tool.description ?? "", output.width - 2)) yield* output.line(`  ${line}`)
    yield* output.line("")
    yield* output.line(`${bold(output.color, "usage")}  ${signature(tool)}`)
    yield* output.line(bold(output.color, "input"))
    const input = schemaTree(tool.inputSchema, "  ")
    for (const line of input.length === 0 ? ["  (no arguments)"] : input) yield* output.line(line)
    if (tool.outputSchema !== undefined) {
      yield* output.line(bold(output.color, "output"))
      for (const line of schemaTree(tool.outputSchema, "  ")) yield* output.line(line)
    }
    const marks = hints(tool)
    if (marks.length > 0) yield* output.line(`${bold(output.color, "hints")}  ${marks.join(", ")}`)
    yield* output.line(`${bold(output.color, "tasks")}  ${tool.execution?.taskSupport ?? "forbidden"}`)
    if (tool.ui !== undefined) {
      yield* output.line(`${bold(output.color, "visibility")}  ${tool.ui.visibility.join(", ")}`)
      if (view !== undefined) {
        yield* output.line(`${bold(output.color, "view")}  ${sanitize(view.uri)}`)
        if (view.unreadable !== undefined) yield* output.line(`  cannot read it: ${sanitize(view.unreadable)}`)
        else for (const line of viewDeclaration(view.declared)) yield* output.line(`  ${line}`)
      }
    }
  })

/**
 * A tool's view: its address and what its resource declares (the `_meta.ui` of the contents read,
 * else of its `resources/list` entry). A view that cannot be read is said so, not a failure.
 */
const viewOf = (client: McpClient.McpClientService, uri: string) =>
  client.readResource(uri).pipe(
    Effect.flatMap((read) => {
      const fromRead = read.contents
        .map((contents) => resourceMetaOf(contents._meta))
        .find((meta) => meta !== undefined)
      if (fromRead !== undefined) return Effect.succeed(fromRead)
      return Effect.map(
        Effect.orElseSucceed(client.resources, () => []),
        (listed) => resourceMetaOf(listed.find((resource) => resource.uri === uri)?._meta)
      )
    }),
    Effect.match({
      onFailure: (error) => ({ uri, declared: undefined, unreadable: error.message }),
      onSuccess: (declared) => ({ uri, declared, unreadable: undefined })
    })
  )

/** `tools show NAME`: one tool in full. */
export const show = Command.make(
  "show",
  { ...CommonOptions.connection, name: Args.text({ name: "tool" }).pipe(Args.withDescription("The tool's name")) },
  ({ server, run, name }) =>
    runCommand(
      run,
      withClient(server, run, (client) => showTool(client, name))
    )
).pipe(
  Command.withDescription(
    "Show one tool: description, arguments and output as a tree, behaviour hints and task support.\n" +
      "Example: effect-mcp tools show get-sum -- npx -y @modelcontextprotocol/server-everything"
  )
)

/** The tool named `name`, or a usage error listing the closest names. */
export const findTool = (client: McpClient.McpClientService, name: string) =>
  Effect.gen(function* () {
    const tools = yield* client.tools
    const tool = tools.find((candidate) => candidate.name === name)
    if (tool !== undefined) return tool
    const close = closest(
      name,
      tools.map((candidate) => candidate.name)
    )
    return yield* new UsageError({
      server: client.name,
      method: "tools/call",
      reason: `${yield* display(client.name)} has no tool named "${name}"${close.length === 0 ? (tools.length === 0 ? " (it has no tools)" : " (see effect-mcp tools list)") : ` (did you mean ${close.join(", ")}?)`}`
    })
  })

/**
 * The arguments of a call from `--args` and the words after the tool's name; `key=value` words are
 * read by the types of `tool`'s input schema, positional values fill its properties in order, and
 * `key=@path` reads a value from a file.
 */
export const callArguments = (json: Option.Option<string>, words: ReadonlyArray<string>, tool?: McpClient.Tool) =>
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
    const read = yield* withFileValues(words)
    const pairs = yield* Either.match(parseArguments(read, tool?.inputSchema), {
      onLeft: (reason) => Effect.fail(new UsageError({ reason })),
      onRight: Effect.succeed
    })
    return { ...base, ...pairs }
  })

/**
 * The arguments `tool`'s input schema does not name, each said with the names closest to it:
 * none when the schema allows others by a schema of their own (`additionalProperties` or
 * `patternProperties`).
 */
const strangeArguments = (tool: McpClient.Tool, args: { readonly [key: string]: unknown }): ReadonlyArray<string> => {
  const schema = tool.inputSchema
  const additional = schema.additionalProperties
  if (schema.patternProperties !== undefined || (typeof additional === "object" && additional !== null)) return []
  const known = Object.keys(schema.properties ?? {})
  return Object.keys(args)
    .filter((key) => !known.includes(key))
    .map((key) => {
      const close = closest(key, known)
      return `${tool.name} has no argument "${sanitize(key)}" (${close.length > 0 ? `did you mean ${close.join(", ")}?` : known.length === 0 ? "it takes none" : `it takes ${known.join(", ")}`})`
    })
}

/** Calls a tool with progress on stderr; prints the result; `isError` fails with {@link ToolReportedError}. */
export const callAndPrint = (
  client: McpClient.McpClientService,
  name: string,
  args: { readonly [key: string]: unknown },
  asTask = false,
  /** `--out DIR`: where binary content is saved. */
  out: Option.Option<string> = Option.none()
) =>
  Effect.gen(function* () {
    const output = yield* Output
    const tool = yield* findTool(client, name)
    // A name the schema does not have is said before sending: refused where the schema forbids
    // other properties, else a warning (a misspelled optional argument would be dropped silently).
    const strange = strangeArguments(tool, args)
    if (strange.length > 0) {
      if (tool.inputSchema.additionalProperties === false)
        return yield* new UsageError({ server: client.name, method: "tools/call", reason: strange.join("; ") })
      for (const word of strange) yield* output.note(`warning: ${word}; sent as given`)
    }
    const problem = yield* JsonSchema.validate(tool.inputSchema, args)
    if (problem !== undefined)
      return yield* new UsageError({
        server: client.name,
        method: "tools/call",
        reason: `the arguments do not match the input schema of ${name}: ${problem} (key=value is read as the schema's type; key:=<json> gives any JSON value)`
      })
    // Progress keeps the call alive (the timeout is the wait between reports), up to --max-time.
    const limit = Option.match(yield* CommonOptions.MaxCallTime, {
      onNone: () => ({}),
      onSome: (maxTotalTimeout) => ({ maxTotalTimeout })
    })
    const runAsTask = (line: ProgressLine.ProgressLine) =>
      client.tasks.run(name, args, {
        onStatus: (task) =>
          line.update({
            message: `task ${task.taskId}: ${task.status}${task.statusMessage === undefined ? "" : ` ${task.statusMessage}`}`
          }),
        onProgress: line.update
      })
    // A tool that requires a task is run as one (as the generated module does): the client
    // refuses the plain call before sending anything.
    const call = (
      line: ProgressLine.ProgressLine
    ): Effect.Effect<
      McpClient.CallToolResult,
      McpError.RequestError | McpError.ToolOutputInvalid | McpError.TaskRequired | McpError.TaskNotAllowed
    > =>
      asTask
        ? runAsTask(line)
        : client
            .callTool(name, args, { onProgress: line.update, ...limit })
            .pipe(Effect.catchTag("TaskRequired", () => runAsTask(line)))
    const result = yield* Effect.scoped(
      Effect.flatMap(ProgressLine.start(`calling ${name}`, asTask ? "" : `progress ${name}`), call)
    ).pipe(
      Effect.catchTag("RpcError", (error) =>
        UrlRequired.urlsOf(error).length > 0 ? UrlRequired.explain(error, isInteractive()) : Effect.fail(error)
      )
    )
    // A tool's error is said once, as the failure (its text), on stderr; the rest is the result.
    const failed = result.isError === true
    const words = failed ? result.content.filter((block) => block.type === "text") : []
    if (output.json) yield* output.printJson(result)
    else {
      yield* printContent(failed ? result.content.filter((block) => block.type !== "text") : result.content, out, name)
      // The result is printed once: its text (which for structured content is, by the spec, that
      // JSON), and structured content only when no text says it; --json gives both.
      if (result.structuredContent !== undefined && !result.content.some((block) => block.type === "text"))
        yield* output.line(JSON.stringify(result.structuredContent, null, 2))
    }
    if (failed)
      return yield* new ToolReportedError({
        server: client.name,
        tool: name,
        detail: words
          .map((block) => block.text)
          .join("\n")
          .trim()
      })
  })

/** A call's arguments: `--args '<json>'` and `key=value` / `key:=json` words. */
export const argumentOptions = {
  args: Options.text("args").pipe(Options.withDescription("The arguments as one JSON object"), Options.optional),
  pairs: Args.text({ name: "key=value | key:=json" }).pipe(
    Args.withDescription(
      "Arguments: key=value (read as the input schema's type: a string stays as typed, a number is read as one), key:=json (always JSON), key=@file (the file's text; @@ for a literal @), or bare values for the properties in the schema's order (required first)"
    ),
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
    out: outOption,
    ...argumentOptions
  },
  ({ server, run, args, name: written, pairs, task, out }) =>
    runCommand(
      run,
      Effect.flatMap(
        Either.match(functionCall(written) ?? Either.right({ name: written, words: [] }), {
          onLeft: (reason) => Effect.fail(new UsageError({ reason })),
          onRight: Effect.succeed
        }),
        ({ name, words }) =>
          withClient(server, run, (client) =>
            Effect.gen(function* () {
              const input = yield* callArguments(args, [...words, ...pairs], yield* findTool(client, name))
              return yield* callAndPrint(client, name, input, task, out)
            })
          )
      )
    )
).pipe(
  Command.withDescription(
    "Call a tool; its arguments are checked against the tool's input schema first. Exits 1 when the tool reports an error.\n" +
      "The tool may be written as a function call: name(key: value, …).\n" +
      'Example: effect-mcp tools call get-sum a=2 b:=3 --stdio "npx -y @modelcontextprotocol/server-everything"\n' +
      "Example: effect-mcp tools call 'get-sum(a: 2, b: 3)' -- npx -y @modelcontextprotocol/server-everything"
  )
)

/** `effect-mcp tools`. */
export const tools = Command.make("tools").pipe(
  Command.withDescription("List, show and call tools."),
  Command.withSubcommands([list, show, call])
)
