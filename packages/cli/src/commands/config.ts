/**
 * `config list | add | remove | import`: the servers of every config file found, and editing
 * effect-mcp's own file: the project's `./.mcp.json` (Claude Code reads it too), or with
 * `--scope user` the user's `$XDG_CONFIG_HOME/effect-mcp/mcp.json` (`~/.config/effect-mcp/mcp.json`);
 * `--config FILE` edits that file instead. Edits keep the rest of the file (comments too).
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Path from "@effect/platform/Path"
import { ConfigLoader, ConfigSources, ConfigWriter } from "@effect-mcp/host"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { UsageError } from "../CliError.js"
import * as CommonOptions from "../CommonOptions.js"
import { choose } from "../Connect.js"
import { changeFor, checkName, clash, fileFor, modeFor, noteLiterals } from "../internal/saving.js"
import { Output } from "../Output.js"
import { importServers } from "./configImport.js"
import { printRows, problemJson, serverJson, serverRow } from "./configTable.js"
import { runCommand } from "./shared.js"

/** `--scope project|user`: which of effect-mcp's files. */
export const scope = Options.choice("scope", ["project", "user"]).pipe(
  Options.withDescription(
    "Which file of ours: project (./.mcp.json) or user ($XDG_CONFIG_HOME/effect-mcp/mcp.json, else ~/.config/effect-mcp/mcp.json)"
  ),
  Options.withDefault("project" as const)
)

/** `--config FILE`, alone (the file to read or write). */
export const configFile = CommonOptions.server.pipe(Options.map((options) => options.config))

const nameArg = Args.text({ name: "name" }).pipe(Args.withDescription("The server's name"))

/** `config list`. */
const list = Command.make("list", { config: configFile, run: CommonOptions.run }, ({ config, run }) =>
  runCommand(
    run,
    Effect.gen(function* () {
      const output = yield* Output
      const path = yield* Path.Path
      const location = yield* ConfigLoader.here(Option.getOrUndefined(config))
      const loaded = yield* ConfigLoader.load(location)
      const ours = {
        project: ConfigSources.ours(location, path, "project"),
        user: ConfigSources.ours(location, path, "user")
      }
      // Every entry of every file, in the order searched: the first of a name is the one used.
      const all = [...loaded.entries, ...loaded.shadowed].sort(
        (a, b) => loaded.files.indexOf(a.file) - loaded.files.indexOf(b.file)
      )
      const usedFrom = (name: string) => loaded.entries.find((entry) => entry.name === name)?.file
      for (const warning of loaded.warnings) yield* output.note(`warning: ${warning}`)
      for (const problem of loaded.problems) yield* output.note(`warning: ${problem.message} (server left out)`)
      if (output.json)
        return yield* output.printJson({
          files: loaded.files,
          ours,
          servers: all.map((entry) => ({
            ...serverJson(entry),
            used: usedFrom(entry.name) === entry.file,
            ...(usedFrom(entry.name) === entry.file ? {} : { hiddenBy: usedFrom(entry.name) })
          })),
          problems: loaded.problems.map(problemJson)
        })
      if (loaded.files.length === 0)
        yield* output.note(
          `no config file found; looked in:\n${ConfigSources.sources(location, path)
            .map((source) => `  ${source.file}`)
            .join("\n")}`
        )
      yield* printRows(
        all.map((entry) =>
          serverRow(
            entry,
            `${entry.file} (${entry.format})${usedFrom(entry.name) === entry.file ? "" : `, hidden by ${usedFrom(entry.name)}`}`
          )
        )
      )
      if (Option.isNone(config))
        yield* output.note(`effect-mcp's files: ${ours.project} (config add), ${ours.user} (config add --scope user)`)
    })
  )
).pipe(
  Command.withDescription(
    "List every server of every config file found, with its file and format; a name defined twice is used from the first file (project files before user files), the others are shown hidden.\n" +
      "Example: effect-mcp config list --json"
  )
)

/** `config add NAME`. */
const add = Command.make(
  "add",
  {
    name: nameArg,
    server: CommonOptions.server,
    scope,
    force: Options.boolean("force").pipe(Options.withDescription("Replace a different server of that name")),
    run: CommonOptions.run
  },
  ({ name, server, scope, force, run }) =>
    runCommand(
      run,
      Effect.gen(function* () {
        const output = yield* Output
        yield* checkName(name, "config add")
        if (Option.isSome(server.name) || Option.isSome(server.persist))
          return yield* new UsageError({
            reason: 'config add takes the server inline: -- CMD ARGS, --stdio "CMD ARGS" or --url URL'
          })
        if (server.inheritEnv || server.protocolVersion !== "auto")
          return yield* new UsageError({
            reason: "--inherit-env and --protocol-version cannot be saved in a config file"
          })
        const chosen = yield* choose(server, false)
        const file = yield* fileFor(server.config, scope)
        const change = yield* changeFor(file, name, chosen.target)
        const [result] = yield* ConfigWriter.write(file, [change], { force, mode: modeFor(server.config, scope) })
        if (result?.outcome === "clash") return yield* clash(file, name, "--force replaces it")
        if (output.json) yield* output.printJson({ file, server: name, outcome: result?.outcome })
        else yield* output.line(`${result?.outcome ?? "added"} "${name}" in ${file}`)
        if (result?.outcome !== "unchanged") yield* noteLiterals(name, chosen.target, file)
        // Another file may come first in the search.
        const loaded = yield* ConfigLoader.load(yield* ConfigLoader.here(undefined))
        const used = loaded.entries.find((entry) => entry.name === name)
        if (Option.isNone(server.config) && used !== undefined && used.file !== file)
          yield* output.note(`note: "${name}" in ${used.file} comes first: --server ${name} uses that one`)
      })
    )
).pipe(
  Command.withDescription(
    "Add a server to effect-mcp's file: the project's ./.mcp.json, the user's with --scope user, or --config FILE. " +
      `Give it as you would inline (-- CMD ARGS, --stdio, --url with --transport, --header, --env, --cwd); write \${VAR} in a value to store a reference, not a secret.\n` +
      "Example: effect-mcp config add everything --scope user -- npx -y @modelcontextprotocol/server-everything"
  )
)

/** `config remove NAME`. */
const remove = Command.make(
  "remove",
  { name: nameArg, config: configFile, scope, run: CommonOptions.run },
  ({ name, config, scope, run }) =>
    runCommand(
      run,
      Effect.gen(function* () {
        const output = yield* Output
        const file = yield* fileFor(config, scope)
        if (yield* ConfigWriter.remove(file, name)) {
          if (output.json) return yield* output.printJson({ file, server: name, outcome: "removed" })
          return yield* output.line(`removed "${name}" from ${file}`)
        }
        const loaded = yield* ConfigLoader.load(yield* ConfigLoader.here(undefined))
        const elsewhere = [...loaded.entries, ...loaded.shadowed].find((entry) => entry.name === name)
        return yield* new UsageError({
          reason: `no server "${name}" in ${file}${elsewhere === undefined ? "" : `; it is in ${elsewhere.file} (effect-mcp config remove ${name} --config ${elsewhere.file})`}`
        })
      })
    )
).pipe(
  Command.withDescription(
    "Remove a server from effect-mcp's file (the project's ./.mcp.json, the user's with --scope user, or --config FILE), keeping the rest of the file.\n" +
      "Example: effect-mcp config remove everything --scope user"
  )
)

/** `config import [FILE]`. */
const importCommand = Command.make(
  "import",
  {
    source: Args.file({ name: "file", exists: "yes" }).pipe(
      Args.withDescription("A config file to import from (any format effect-mcp reads)"),
      Args.optional
    ),
    from: Options.choice("from", ConfigSources.importable).pipe(
      Options.withDescription("Import from that tool's files in their standard places (project and user)"),
      Options.optional
    ),
    config: configFile,
    scope,
    force: Options.boolean("force").pipe(Options.withDescription("Replace servers of the same name")),
    dryRun: Options.boolean("dry-run").pipe(Options.withDescription("Show what would be imported; write nothing")),
    run: CommonOptions.run
  },
  (options) => runCommand(options.run, importServers(options))
).pipe(
  Command.withDescription(
    "Import the servers of another tool's config into effect-mcp's file: a FILE, or --from a tool's standard files. " +
      "Values are copied as written (references stay references, VS Code inputs are declared); a name already there with a different server is reported and kept unless --force.\n" +
      "Example: effect-mcp config import --from claude-desktop --dry-run"
  )
)

/** `config`. */
export const config = Command.make("config").pipe(
  Command.withDescription("List the config files' servers; add, remove and import servers."),
  Command.withSubcommands([list, add, remove, importCommand])
)
