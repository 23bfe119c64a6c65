/**
 * `config import [FILE] [--from TOOL]`: reads another tool's config (a file, or the tool's files
 * in their standard places, project before user), shows what each server becomes in effect-mcp's
 * file (added, unchanged, replaced, or a clash: a different server of that name is there, kept
 * unless `--force`), and writes it unless `--dry-run`. Values are copied as the source writes
 * them, references in the form our file reads; nothing is resolved.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { ConfigLoader, ConfigSources, ConfigWriter, type ServerEntry } from "@effect-mcp/host"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { type CliFailure, UsageError } from "../CliError.js"
import type { RunOptions } from "../CommonOptions.js"
import { fileFor, modeFor, noteLiterals } from "../internal/saving.js"
import { Output } from "../Output.js"
import { printRows, serverRow } from "./configTable.js"

/** The options of `config import`, as parsed. */
export interface ImportOptions {
  readonly source: Option.Option<string>
  readonly from: Option.Option<(typeof ConfigSources.importable)[number]>
  readonly config: Option.Option<string>
  readonly scope: "project" | "user"
  readonly force: boolean
  readonly dryRun: boolean
  readonly run: RunOptions
}

/** The files to import from: the one given, or the tool's standard files that exist (never ours). */
const sourcesOf = (options: ImportOptions) =>
  Effect.gen(function* () {
    const path = yield* Path.Path
    const fs = yield* FileSystem.FileSystem
    if (Option.isSome(options.source) === Option.isSome(options.from))
      return yield* new UsageError({ reason: "config import takes a FILE or --from TOOL (one of them)" })
    if (Option.isSome(options.source)) return { files: [path.resolve(options.source.value)], required: true }
    const tool = Option.getOrThrow(options.from)
    const standard = ConfigSources.sources(yield* ConfigLoader.here(undefined), path).filter(
      (source) => source.tool === tool && !source.ours
    )
    const files = yield* Effect.filter(
      standard.map((source) => source.file),
      (file) => fs.exists(file).pipe(Effect.orElseSucceed(() => false))
    )
    if (files.length === 0)
      return yield* new UsageError({
        reason: `no ${tool} config found (looked in ${standard.map((source) => source.file).join(", ")})`
      })
    return { files, required: false }
  })

/** Runs `config import`. */
export const importServers = (
  options: ImportOptions
): Effect.Effect<void, CliFailure, FileSystem.FileSystem | Path.Path | Output> =>
  Effect.gen(function* () {
    const output = yield* Output
    const path = yield* Path.Path
    const { files, required } = yield* sourcesOf(options)
    const entries: Array<ServerEntry.ServerEntry> = []
    for (const file of files) {
      const parsed = yield* ConfigLoader.loadFile(file, path.resolve("."), required)
      for (const warning of parsed.warnings) yield* output.note(`warning: ${warning}`)
      for (const problem of parsed.problems) yield* output.note(`warning: ${problem.message} (not imported)`)
      // As in the search: the first entry of a name wins.
      entries.push(...parsed.entries.filter((entry) => !entries.some((known) => known.name === entry.name)))
    }
    if (entries.length === 0) return yield* new UsageError({ reason: `no servers to import in ${files.join(", ")}` })
    const into = yield* fileFor(options.config, options.scope)
    const format = yield* ConfigWriter.formatOf(into)
    const changes = entries.map((entry) => ConfigWriter.changeOf(entry, format))
    const results = options.dryRun
      ? yield* ConfigWriter.plan(into, changes, options.force)
      : yield* ConfigWriter.write(into, changes, { force: options.force, mode: modeFor(options.config, options.scope) })
    const outcomes = new Map(results.map((result) => [result.name, result.outcome]))
    const clashes = results.filter((result) => result.outcome === "clash").map((result) => result.name)
    if (output.json)
      yield* output.printJson({
        from: files,
        into,
        dryRun: options.dryRun,
        servers: entries.map((entry) => ({
          name: entry.name,
          outcome: outcomes.get(entry.name),
          file: entry.file,
          format: entry.format
        }))
      })
    else {
      yield* output.line(`${options.dryRun ? "would import" : "import"} into ${into}:`)
      yield* printRows(
        entries.map((entry) => {
          const outcome = outcomes.get(entry.name) ?? "added"
          return [
            options.dryRun ? `would be ${outcome}` : outcome,
            ...serverRow(entry, `from ${entry.file} (${entry.format})`)
          ]
        })
      )
    }
    if (!options.dryRun)
      for (const entry of entries)
        if (outcomes.get(entry.name) === "added" || outcomes.get(entry.name) === "replaced")
          yield* noteLiterals(entry.name, entry.target, into)
    if (clashes.length > 0)
      return yield* new UsageError({
        reason: `not imported: ${clashes.join(", ")} (${into} has a different server of ${clashes.length === 1 ? "that name" : "those names"}; --force replaces ${clashes.length === 1 ? "it" : "them"})`
      })
  })
