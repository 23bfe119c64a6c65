/**
 * The TypeScript module `effect-mcp generate` writes for one server: a header saying where it
 * came from, a Schema for each tool's input (and structured output, when the tool has an output
 * schema), and one function per tool over the client's `McpClient` service. With `cli`, a
 * standalone `@effect/cli` program for that server follows (`cliProgram.ts`).
 */
import type { McpClient } from "@effect-mcp/client"
import type { ServerEntry } from "@effect-mcp/host"
import { hints, titleOf } from "../../commands/toolView.js"
import { cliImports, cliProgram, transportImport } from "./cliProgram.js"
import { isObject } from "./definitions.js"
import { camelCase, jsDoc, names, pascalCase } from "./names.js"
import { emitDocument } from "./schemaSource.js"
import type { Entry, Origin } from "./types.js"

export type { Entry, Origin } from "./types.js"

/** Names the prelude (and the program) declare or import. */
const OWN = [
  "Schema",
  "Effect",
  "Data",
  "McpClient",
  "McpError",
  "ToolError",
  "SchemaMismatch",
  "CallError",
  "call",
  "callStructured",
  "TaskRunOptions",
  "Send",
  "direct",
  "asTask",
  // The standalone program's.
  "Command",
  "Options",
  "Console",
  "Layer",
  "Option",
  "Predicate",
  "ValidationError",
  "NodeContext",
  "NodeRuntime",
  "FetchHttpClient",
  "HttpTransport",
  "StdioTransport",
  "ServerLive",
  "argsOption",
  "present",
  "parsed",
  "runTool",
  "render",
  "exitCodeOf",
  "main",
  "root"
]

const PRELUDE = `/** The tool ran and reported an error (\`isError: true\`); \`result\` is what it returned. */
export class ToolError extends Data.TaggedError("ToolError")<{
  readonly tool: string
  readonly result: McpClient.CallToolResult
}> {
  override get message(): string {
    const text = this.result.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\\n")
    return \`tool \${this.tool} reported an error\${text === "" ? "" : \`: \${text}\`}\`
  }
}

/** A tool's input, or its structured output, does not match the Schema generated for it. */
export class SchemaMismatch extends Data.TaggedError("SchemaMismatch")<{
  readonly tool: string
  readonly direction: "input" | "output"
  readonly issue: string
}> {
  override get message(): string {
    return \`tool \${this.tool}: its \${this.direction} does not match the generated schema: \${this.issue}\`
  }
}

/** What a tool function fails with. */
export type CallError =
  | ToolError
  | SchemaMismatch
  | McpError.RequestError
  | McpError.ToolOutputInvalid
  | McpError.TaskRequired
  | McpError.TaskNotAllowed

/** Options of a tool that runs as a task: its status changes, how often to poll. */
export type TaskRunOptions = NonNullable<Parameters<McpClient.McpClientService["tasks"]["run"]>[2]>

type Send = (
  client: McpClient.McpClientService,
  tool: string,
  args: { readonly [key: string]: unknown }
) => Effect.Effect<McpClient.CallToolResult, CallError>

/** A call, its progress reported to \`options.onProgress\`. */
const direct =
  (options: McpClient.ToolCallOptions | undefined): Send =>
  (client, tool, args) =>
    client.callTool(tool, args, options)

/** A call run as a task to its end (for a tool that requires one); interrupting it cancels the task. */
const asTask =
  (options: TaskRunOptions | undefined): Send =>
  (client, tool, args) =>
    client.tasks.run(tool, args, options)

const call = <A, I extends { readonly [key: string]: unknown }>(
  tool: string,
  input: Schema.Schema<A, I>,
  value: A,
  send: Send
): Effect.Effect<McpClient.CallToolResult, CallError, McpClient.McpClient> =>
  Effect.gen(function* () {
    const client = yield* McpClient.McpClient
    const args = yield* Schema.encode(input)(value).pipe(
      Effect.mapError((error) => new SchemaMismatch({ tool, direction: "input", issue: error.message }))
    )
    const result = yield* send(client, tool, args)
    if (result.isError === true) return yield* new ToolError({ tool, result })
    return result
  })

const callStructured = <A, I extends { readonly [key: string]: unknown }, B, J>(
  tool: string,
  input: Schema.Schema<A, I>,
  output: Schema.Schema<B, J>,
  value: A,
  send: Send
): Effect.Effect<B, CallError, McpClient.McpClient> =>
  Effect.flatMap(call(tool, input, value, send), (result) =>
    Schema.decodeUnknown(output)(result.structuredContent).pipe(
      Effect.mapError((error) => new SchemaMismatch({ tool, direction: "output", issue: error.message }))
    )
  )`

/** Whether `{}` is arguments the input schema accepts as written (then the argument may be left out). */
const acceptsEmpty = (schema: unknown) =>
  isObject(schema) &&
  !["$ref", "anyOf", "oneOf", "allOf", "minProperties"].some((key) => key in schema) &&
  (!Array.isArray(schema.required) || schema.required.length === 0)

/** The command line, or the URL. */
export const describeTarget = (target: ServerEntry.Target): string =>
  target._tag === "Stdio" ? [target.command, ...target.args].join(" ") : target.url

/** Each tool's names in the module: no two alike, none of the module's own. */
export const plan = (tools: ReadonlyArray<McpClient.Tool>): ReadonlyArray<Entry> => {
  const taken = names(OWN)
  return tools.map((tool) => {
    const base = pascalCase(tool.name, "Tool")
    return {
      tool,
      functionName: taken.take(camelCase(tool.name, "tool")),
      inputName: taken.take(`${base}Input`),
      outputName: tool.outputSchema === undefined ? undefined : taken.take(`${base}Output`)
    }
  })
}

const toolSection = (entry: Entry, taken: ReturnType<typeof names>): string => {
  const { tool, functionName, inputName, outputName } = entry
  const title = titleOf(tool)
  const marks = hints(tool)
  const task = tool.execution?.taskSupport === "required"
  const input = emitDocument(inputName, tool.inputSchema, taken, {
    object: true,
    doc: `The arguments of \`${tool.name}\`.`
  })
  const output =
    outputName === undefined
      ? undefined
      : emitDocument(outputName, tool.outputSchema, taken, {
          object: false,
          doc: `The structured result of \`${tool.name}\`.`
        })
  const doc = jsDoc([
    ...(title === undefined || title === tool.name ? [] : [title, ""]),
    ...(tool.description === undefined ? [] : [tool.description]),
    ...(title === undefined && tool.description === undefined ? [] : [""]),
    `${task ? "Runs" : "Calls"} \`${tool.name}\`${marks.length === 0 ? "" : ` (${marks.join(", ")})`}${task ? " as a task" : ""}: ${
      outputName === undefined
        ? "its result, or `ToolError` when it reports an error."
        : "its structured result, decoded; `ToolError` when it reports an error."
    }`
  ])
  const parameter = `input: ${inputName}${acceptsEmpty(tool.inputSchema) ? " = {}" : ""}`
  const send = task ? "asTask(options)" : "direct(options)"
  const body =
    outputName === undefined
      ? `call(${JSON.stringify(tool.name)}, ${inputName}, input, ${send})`
      : `callStructured(${JSON.stringify(tool.name)}, ${inputName}, ${outputName}, input, ${send})`
  return [
    input,
    ...(output === undefined ? [] : [output]),
    `${doc}\nexport const ${functionName} = (${parameter}, options?: ${task ? "TaskRunOptions" : "McpClient.ToolCallOptions"}) =>\n  ${body}`
  ].join("\n\n")
}

/**
 * The module's source for `tools` of the server `origin` describes; with `cli`, followed by a
 * standalone program that connects to that server (run it with `tsx`).
 */
export const emitModule = (origin: Origin, tools: ReadonlyArray<McpClient.Tool>, cli: boolean): string => {
  const entries = plan(tools)
  // Definitions' names are taken after every tool's own, so a tool never yields its name to one.
  const taken = names([
    ...OWN,
    ...entries.flatMap((entry) => [entry.functionName, entry.inputName, entry.outputName ?? ""])
  ])
  const header = jsDoc([
    `Typed tools of the MCP server ${origin.serverInfo.name} ${origin.serverInfo.version}, generated by`,
    `\`effect-mcp generate\` from ${origin.where}`,
    `(protocol revision ${origin.protocolVersion}).`,
    "",
    "Generated code: do not edit; generate it again when the server's tools change.",
    ...(cli ? ["", "A standalone program for this server: run it with `tsx` (`--help` lists its commands)."] : [])
  ])
  const imports = [
    `import { ${[...(cli ? [transportImport(origin.target)] : []), "McpClient", "type McpError"].sort().join(", ")} } from "@effect-mcp/client"`,
    'import * as Data from "effect/Data"',
    'import * as Effect from "effect/Effect"',
    'import * as Schema from "effect/Schema"',
    ...(cli ? cliImports(origin.target) : [])
  ].sort((a, b) => (a.split(" from ")[1] ?? "").localeCompare(b.split(" from ")[1] ?? ""))
  return `${[
    header,
    imports.join("\n"),
    PRELUDE,
    ...entries.map((entry) => toolSection(entry, taken)),
    ...(cli ? [cliProgram(origin, entries, taken)] : [])
  ].join("\n\n")}\n`
}
