/**
 * `effect-mcp generate`: a typed Effect module for one server's tools (`internal/generate/`),
 * written to `--out FILE` or stdout; `--cli` writes a standalone program for that server instead
 * (the module, then one command per tool).
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import type * as PlatformError from "@effect/platform/Error"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { UsageError } from "../CliError.js"
import * as CommonOptions from "../CommonOptions.js"
import { withClient } from "../Connect.js"
import { describeTarget, emitModule } from "../internal/generate/module.js"
import { version } from "../internal/version.js"
import { Output } from "../Output.js"
import { display } from "../ServerNames.js"
import { runCommand } from "./shared.js"

/** Why a file cannot be written, in words. */
const whyNot = (error: PlatformError.PlatformError) =>
  error._tag !== "SystemError"
    ? error.message
    : error.reason === "NotFound"
      ? "its directory does not exist"
      : error.reason === "PermissionDenied"
        ? "permission denied"
        : error.reason === "BadResource"
          ? "it is not a file"
          : error.message

/** The packages `source` imports (`@scope/name` or `name`), in the order first imported. */
const importedPackages = (source: string): ReadonlyArray<string> => [
  ...new Set(
    [...source.matchAll(/^import .* from "((?:@[^/"]+\/)?[^/"]+)[^"]*"$/gm)].flatMap((match) =>
      match[1] === undefined ? [] : [match[1]]
    )
  )
]

/** Our packages the generated code needs: the client and what it depends on, none on a registry yet. */
const OURS = ["@effect-mcp/protocol", "@effect-mcp/jsonrpc", "@effect-mcp/client"]

/**
 * What to install to run the generated code: the packages it imports, and how to get
 * `@effect-mcp/client`, which no registry has yet (its tarballs, packed in effect-mcp's checkout).
 */
const installNote = (source: string): ReadonlyArray<string> => {
  const imported = importedPackages(source)
  const others = imported.filter((name) => !name.startsWith("@effect-mcp/"))
  return [
    `it imports ${imported.join(", ")}: install them beside it (npm install ${others.join(" ")}), and run it with tsx`,
    `@effect-mcp/client ${version} is on no registry yet: in effect-mcp's checkout, npm pack ${OURS.map((name) => `-w ${name}`).join(" ")}, then npm install the three tarballs`
  ]
}

/** Writes `source` to `out`, or prints it; with `--json`, what was generated. */
const write = (out: Option.Option<string>, source: string, tools: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const output = yield* Output
    const needs = { imports: importedPackages(source) }
    if (Option.isNone(out)) {
      if (output.json) return yield* output.printJson({ source, tools, ...needs })
      yield* output.text(source)
      for (const line of installNote(source)) yield* output.note(line)
      return
    }
    const fs = yield* FileSystem.FileSystem
    yield* fs
      .writeFileString(out.value, source)
      .pipe(Effect.mapError((error) => new UsageError({ reason: `cannot write ${out.value}: ${whyNot(error)}` })))
    if (output.json) return yield* output.printJson({ out: out.value, tools, ...needs })
    yield* output.note(`wrote ${out.value}: ${tools.length} tool${tools.length === 1 ? "" : "s"}`)
    for (const line of installNote(source)) yield* output.note(line)
  })

/** `effect-mcp generate`. */
export const generate = Command.make(
  "generate",
  {
    ...CommonOptions.connection,
    out: Options.file("out").pipe(
      Options.withDescription("Write the module to this file (default: stdout)"),
      Options.optional
    ),
    name: Options.text("name").pipe(
      Options.withDescription("The server's name in the module and the program (default: the name it reports)"),
      Options.optional
    ),
    cli: Options.boolean("cli").pipe(
      Options.withDescription(
        "Write a standalone @effect/cli program instead: the module, then one command per tool, reaching the same server"
      )
    )
  },
  ({ server, run, out, name, cli }) =>
    runCommand(
      run,
      withClient(
        server,
        run,
        (client, chosen) =>
          Effect.gen(function* () {
            // A server without the tools capability has no tools to generate, like one that lists none.
            const tools = yield* client.tools.pipe(Effect.catchTag("CapabilityNotSupported", () => Effect.succeed([])))
            if (tools.length === 0)
              return yield* new UsageError({
                server: client.name,
                method: "tools/list",
                reason: `${yield* display(client.name)} has no tools: there is nothing to generate`
              })
            // A config entry's command line or URL with variables expanded may hold secrets: never written.
            if (cli && chosen.expanded === true)
              return yield* new UsageError({
                server: client.name,
                reason: `the command line or URL of ${chosen.name} holds values of the config file's variables, which a program would keep: generate --cli from the command line (-- CMD ARGS or --url URL) instead`
              })
            const serverInfo = { ...client.serverInfo, name: Option.getOrElse(name, () => client.serverInfo.name) }
            const where =
              chosen.expanded === true ? `the server ${chosen.name} of a config file` : describeTarget(chosen.target)
            const source = emitModule(
              { serverInfo, protocolVersion: client.protocolVersion, target: chosen.target, where },
              tools,
              cli
            )
            yield* write(
              out,
              source,
              tools.map((tool) => tool.name)
            )
          }),
        { showServerLogs: false }
      )
    )
).pipe(
  Command.withDescription(
    "Generate a typed Effect module for the server's tools: a Schema for each tool's input and structured output, and one function per tool over McpClient. --cli writes a standalone program for the server instead.\n" +
      "Example: effect-mcp generate --out everything.ts -- npx -y @modelcontextprotocol/server-everything\n" +
      "Example: effect-mcp generate --cli --out everything-cli.ts -- npx -y @modelcontextprotocol/server-everything"
  )
)
