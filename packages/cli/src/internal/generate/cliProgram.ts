/**
 * `effect-mcp generate --cli`: after the module, a standalone `@effect/cli` program for the one
 * server it was generated from. One subcommand per tool; each top-level property of the tool's
 * input is an option of its type (text, a choice for a string enum, integer, float, a flag for a
 * boolean, JSON for anything else), and `--args JSON` gives any arguments as one object; the
 * arguments are decoded with the tool's input Schema before the call. The server is reached as
 * it was: the same command and arguments (with this shell's environment) or the same URL; no
 * environment or header value is written into the program.
 */
import type { ServerEntry } from "@effect-mcp/host"
import { isObject } from "./definitions.js"
import type { Names } from "./names.js"
import { propertyKey } from "./names.js"
import type { Entry, Origin } from "./types.js"

/** The imports the program adds to the module's (the client's transports are named in the module's import). */
export const cliImports = (target: ServerEntry.Target): ReadonlyArray<string> => [
  'import * as Command from "@effect/cli/Command"',
  'import * as Options from "@effect/cli/Options"',
  'import * as ValidationError from "@effect/cli/ValidationError"',
  ...(target._tag === "Http" ? ['import * as FetchHttpClient from "@effect/platform/FetchHttpClient"'] : []),
  'import * as NodeContext from "@effect/platform-node/NodeContext"',
  'import * as NodeRuntime from "@effect/platform-node/NodeRuntime"',
  'import * as Console from "effect/Console"',
  'import * as Layer from "effect/Layer"',
  'import * as Option from "effect/Option"',
  'import * as Predicate from "effect/Predicate"'
]

/** The client package's transport the program uses. */
export const transportImport = (target: ServerEntry.Target): string =>
  target._tag === "Http" ? "HttpTransport" : "StdioTransport"

const HELPERS = `/** All arguments as one JSON object; the options win over it. */
const argsOption = Options.text("args").pipe(
  Options.withDescription("All arguments as one JSON object (the options win over its keys)"),
  Options.optional
)

/** A JSON text as its value; text that is not JSON as itself. */
const parsed = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** The options given: an absent optional one leaves its key out. */
const present = (flags: { readonly [key: string]: unknown }) =>
  Object.fromEntries(
    Object.entries(flags).flatMap(([key, value]) =>
      Option.isOption(value) ? Option.match(value, { onNone: () => [], onSome: (some) => [[key, some]] }) : [[key, value]]
    )
  )

/** A call's result: its text, and any other content as JSON. */
const render = (result: McpClient.CallToolResult): string =>
  result.content.map((block) => (block.type === "text" ? block.text : JSON.stringify(block))).join("\\n")

const runTool = <A, I, B, E>(
  input: Schema.Schema<A, I>,
  args: Option.Option<string>,
  flags: { readonly [key: string]: unknown },
  tool: (input: A) => Effect.Effect<B, E, McpClient.McpClient>,
  show: (result: B) => string
) =>
  Effect.gen(function* () {
    const base = Option.match(args, { onNone: () => ({}), onSome: parsed })
    const value = yield* Schema.decodeUnknown(input)(Predicate.isRecord(base) ? { ...base, ...present(flags) } : base)
    yield* Console.log(show(yield* tool(value)))
  }).pipe(Effect.provide(ServerLive))

/** 1: the tool reported an error; 2: the arguments are wrong; 3: anything else (the connection, the server). */
const exitCodeOf = (error: unknown): number =>
  error instanceof ToolError
    ? 1
    : Predicate.isTagged(error, "ParseError") ||
        Predicate.isTagged(error, "InvalidInput") ||
        (error instanceof SchemaMismatch && error.direction === "input")
      ? 2
      : 3`

// Names @effect/cli keeps for itself, and the program's own.
const TAKEN_OPTIONS = new Set(["args", "help", "h", "version", "wizard", "completions", "log-level"])

/** The option for one property of a tool's input, or `undefined` when it can only be given in `--args`. */
const optionOf = (name: string, schema: unknown, required: boolean): string | undefined => {
  if (!/^[A-Za-z][A-Za-z0-9_-]*$/.test(name) || TAKEN_OPTIONS.has(name)) return undefined
  const property = isObject(schema) ? schema : {}
  const quoted = JSON.stringify(name)
  const choices: ReadonlyArray<unknown> = Array.isArray(property.enum) ? property.enum : []
  const base =
    property.type === "string" && choices.length > 0 && choices.every((value) => typeof value === "string")
      ? `Options.choice(${quoted}, [${choices.map((value) => JSON.stringify(value)).join(", ")}])`
      : property.type === "string"
        ? `Options.text(${quoted})`
        : property.type === "integer"
          ? `Options.integer(${quoted})`
          : property.type === "number"
            ? `Options.float(${quoted})`
            : property.type === "boolean"
              ? `Options.boolean(${quoted})`
              : `Options.text(${quoted}).pipe(Options.map(parsed))`
  const description = typeof property.description === "string" ? property.description : undefined
  const steps = [
    ...(description === undefined ? [] : [`Options.withDescription(${JSON.stringify(description)})`]),
    // Every option may be absent (`--args` may give it; the input Schema says what is missing). An
    // absent flag is false when the property is required, else it leaves the server's default.
    ...(property.type !== "boolean"
      ? ["Options.optional"]
      : required
        ? []
        : ["Options.map((on) => (on ? Option.some(true) : Option.none()))"])
  ]
  return steps.length === 0 ? base : `${base}.pipe(${steps.join(", ")})`
}

const commandName = (name: string) =>
  /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name) ? name : name.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^-+/, "") || "tool"

const toolCommand = (entry: Entry, variable: string, used: Set<string>): string => {
  const schema: { readonly [key: string]: unknown } = isObject(entry.tool.inputSchema) ? entry.tool.inputSchema : {}
  const properties = isObject(schema.properties) ? schema.properties : {}
  const required = new Set(Array.isArray(schema.required) ? schema.required : [])
  const options = Object.entries(properties).flatMap(([name, property]) => {
    const option = optionOf(name, property, required.has(name))
    return option === undefined ? [] : [`    ${propertyKey(name)}: ${option}`]
  })
  let name = commandName(entry.tool.name)
  for (let n = 2; used.has(name); n++) name = `${commandName(entry.tool.name)}-${n}`
  used.add(name)
  const description = [entry.tool.title ?? entry.tool.annotations?.title, entry.tool.description]
    .filter((text) => text !== undefined && text !== "")
    .join(": ")
  const show = entry.outputName === undefined ? "render" : "(value) => JSON.stringify(value, null, 2)"
  return `const ${variable} = Command.make(
  ${JSON.stringify(name)},
  {
${["    args: argsOption", ...options].join(",\n")}
  },
  ({ args, ...flags }) => runTool(${entry.inputName}, args, flags, ${entry.functionName}, ${show})
).pipe(Command.withDescription(${JSON.stringify(description === "" ? entry.tool.name : description)}))`
}

const serverLayer = (origin: Origin): string => {
  const target = origin.target
  const name = JSON.stringify(origin.serverInfo.name)
  if (target._tag === "Http")
    return `const ServerLive = McpClient.layer({ name: ${name} }).pipe(
  Layer.provide(HttpTransport.layer({ url: ${JSON.stringify(target.url)}, transport: ${JSON.stringify(target.transport)} })),
  Layer.provide(FetchHttpClient.layer)
)`
  return `const ServerLive = McpClient.layer({ name: ${name} }).pipe(
  Layer.provide(
    StdioTransport.layer({
      command: ${JSON.stringify(target.command)},
      args: [${target.args.map((arg) => JSON.stringify(arg)).join(", ")}],${target.cwd === undefined ? "" : `\n      cwd: ${JSON.stringify(target.cwd)},`}
      inheritEnv: "all"
    })
  ),
  Layer.provide(NodeContext.layer)
)`
}

/** The program: the server's layer, a command per tool, and the main that runs them and sets the exit code. */
export const cliProgram = (origin: Origin, entries: ReadonlyArray<Entry>, taken: Names): string => {
  const used = new Set<string>()
  const commands = entries.map((entry) => {
    const variable = taken.take(`${entry.functionName}Command`)
    return { variable, source: toolCommand(entry, variable, used) }
  })
  const program = JSON.stringify(commandName(origin.serverInfo.name.split("/").pop() ?? "server"))
  return [
    "// The standalone program.",
    serverLayer(origin),
    HELPERS,
    ...commands.map((command) => command.source),
    `const root = Command.make(${program}).pipe(
  Command.withDescription(${JSON.stringify(`The tools of ${origin.serverInfo.name} as commands.`)}),
  Command.withSubcommands([${commands.map((command) => command.variable).join(", ")}])
)`,
    `Command.run(root, { name: ${program}, version: ${JSON.stringify(origin.serverInfo.version)} })(process.argv).pipe(
  Effect.catchAll((error) =>
    ValidationError.isValidationError(error)
      ? Effect.sync(() => {
          process.exitCode = 2
        })
      : Effect.zipRight(
          Console.error(\`error: \${error instanceof Error ? error.message : String(error)}\`),
          Effect.sync(() => {
            process.exitCode = exitCodeOf(error)
          })
        )
  ),
  Effect.provide(NodeContext.layer),
  NodeRuntime.runMain
)`
  ].join("\n\n")
}
