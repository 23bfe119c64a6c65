/**
 * `config import [FILE] [--from TOOL]`: reads another tool's config (a file, or the tool's files
 * in their standard places, project before user), shows what each server becomes in effect-mcp's
 * file (added, unchanged, replaced, or a clash: a different server of that name is there, kept
 * unless `--force`), and writes it unless `--dry-run`. Values are copied as the source writes
 * them, references in the form our file reads; nothing is resolved. A secret written as a literal
 * (an env or header value under a secret's name, a URL's password, an OAuth client secret) stays
 * out of a file others may read (the project's, or a `--config` file): it is written as a
 * `${VAR}` reference, and a note names the variable to set.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { ConfigLoader, ConfigSources, ConfigWriter, type ServerEntry } from "@effect-mcp/host"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { type CliFailure, UsageError } from "../CliError.js"
import type { RunOptions } from "../CommonOptions.js"
import { fileFor, modeFor, noteLiterals } from "../internal/saving.js"
import { isSecretName } from "../internal/secretNames.js"
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

/** A literal secret written as a reference: where it was (`env GITHUB_TOKEN`) and the variable now named. */
interface Referenced {
  readonly key: string
  readonly variable: string
  /** The value as written (`Bearer ${GH_AUTHORIZATION}`). */
  readonly written: string
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/
// A URL with a password in it (`postgres://user:pw@host/db`).
const URL_PASSWORD = /^[a-z][a-z0-9+.-]*:\/\/[^/@\s:]*:[^/@\s]+@/i
// A header's credentials after its scheme (`Bearer …`): the variable holds the credentials.
const SCHEME = /^([A-Za-z][A-Za-z0-9-]*)\s+(\S.*)$/

/** An upper-case variable name made of `words` (`gh`, `X-Api-Key`: `GH_X_API_KEY`). */
const variableOf = (...words: ReadonlyArray<string>) =>
  words
    .join("_")
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")

/** A value written as given that is a secret: under a secret's name, or a URL with a password. */
const literalSecret = (name: string, value: string) =>
  value !== "" && !value.includes("${") && (isSecretName(name) || URL_PASSWORD.test(value))

/**
 * The entry with each literal secret written as a `${VAR}` reference: an env value as the variable
 * of its own name (`GITHUB_TOKEN`), a header's credentials and an OAuth client secret as one named
 * after the server (`GH_AUTHORIZATION`, `GH_CLIENT_SECRET`); and which were.
 */
export const referencingSecrets = (
  entry: ServerEntry.ServerEntry
): { readonly entry: ServerEntry.ServerEntry; readonly referenced: ReadonlyArray<Referenced> } => {
  const referenced: Array<Referenced> = []
  const reference = (
    kind: string,
    values: { readonly [name: string]: string },
    rewrite: (name: string, value: string) => { readonly variable: string; readonly written: string }
  ) =>
    Object.fromEntries(
      Object.entries(values).map(([name, value]) => {
        if (!literalSecret(name, value)) return [name, value]
        const { variable, written } = rewrite(name, value)
        referenced.push({ key: `${kind} ${name}`, variable, written })
        return [name, written]
      })
    )
  const target = entry.target
  if (target._tag === "Stdio") {
    const env = reference("env", target.env, (name) => {
      const variable = ENV_NAME.test(name) ? name : variableOf(entry.name, name)
      return { variable, written: `\${${variable}}` }
    })
    return { entry: { ...entry, target: { ...target, env } }, referenced }
  }
  const headers = reference("header", target.headers, (name, value) => {
    const variable = variableOf(entry.name, name)
    const scheme = SCHEME.exec(value)?.[1]
    return { variable, written: scheme === undefined ? `\${${variable}}` : `${scheme} \${${variable}}` }
  })
  const secret = target.oauth?.clientSecret
  const oauth =
    target.oauth === undefined || secret === undefined || !literalSecret("clientSecret", secret)
      ? target.oauth
      : (() => {
          const variable = variableOf(entry.name, "client_secret")
          const written = `\${${variable}}`
          referenced.push({ key: "oauth clientSecret", variable, written })
          return { ...target.oauth, clientSecret: written }
        })()
  return {
    entry: { ...entry, target: { ...target, headers, ...(oauth === undefined ? {} : { oauth }) } },
    referenced
  }
}

/** Says which secrets of `name` are written as references into `file`, and the variables to set (never the values). */
const noteReferences = (name: string, referenced: ReadonlyArray<Referenced>, file: string, from: string) =>
  Effect.gen(function* () {
    if (referenced.length === 0) return
    const output = yield* Output
    const variables = referenced.map((item) => item.variable)
    yield* output.note(
      `note: ${name}'s ${referenced.map((item) => `${item.key} is written as "${item.written}"`).join(", ")} in ${file}, ` +
        `not the secret in ${from} (others may read that file): set ${variables.join(", ")} in the environment effect-mcp runs in`
    )
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
    const mode = modeFor(options.config, options.scope)
    // Only the user's own file, which only its owner reads, keeps a secret as it is.
    const written = entries.map((entry) => (mode === 0o600 ? { entry, referenced: [] } : referencingSecrets(entry)))
    const format = yield* ConfigWriter.formatOf(into)
    const changes = written.map(({ entry }) => ConfigWriter.changeOf(entry, format))
    const results = options.dryRun
      ? yield* ConfigWriter.plan(into, changes, options.force)
      : yield* ConfigWriter.write(into, changes, { force: options.force, mode })
    const outcomes = new Map(results.map((result) => [result.name, result.outcome]))
    const clashes = results.filter((result) => result.outcome === "clash").map((result) => result.name)
    if (output.json)
      yield* output.printJson({
        from: files,
        into,
        dryRun: options.dryRun,
        servers: written.map(({ entry, referenced }) => ({
          name: entry.name,
          outcome: outcomes.get(entry.name),
          file: entry.file,
          format: entry.format,
          ...(referenced.length === 0 ? {} : { references: referenced })
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
      for (const { entry, referenced } of written)
        if (outcomes.get(entry.name) === "added" || outcomes.get(entry.name) === "replaced") {
          yield* noteReferences(entry.name, referenced, into, entry.file)
          yield* noteLiterals(entry.name, entry.target, into)
        }
    if (clashes.length > 0)
      return yield* new UsageError({
        reason: `not imported: ${clashes.join(", ")} (${into} has a different server of ${clashes.length === 1 ? "that name" : "those names"}; --force replaces ${clashes.length === 1 ? "it" : "them"})`
      })
  })
