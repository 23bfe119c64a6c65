/**
 * Finding and loading MCP config files. With an explicit file only that file is read;
 * otherwise every file of {@link ConfigSources.sources} that exists, project files before user
 * files (the first entry of a name wins; the others are `shadowed`). A `.toml` file is read as
 * Codex's `config.toml`. A discovered file with no server map is skipped; a broken one fails
 * the load, except another tool's user-level file, whose servers are left out with a warning
 * (a broken editor file elsewhere does not stop every command). Resolving an entry expands its
 * variables and reads its `envFile`.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Toml from "smol-toml"
import { ConfigError, UnknownServer } from "../HostError.js"
import * as ConfigFormats from "./ConfigFormats.js"
import * as ConfigSources from "./ConfigSources.js"
import * as Expand from "./Expand.js"
import { type ExpandContext, expandTarget } from "./Expand.js"
import * as Jsonc from "./Jsonc.js"
import type { ServerEntry, Target } from "./ServerEntry.js"

/** Where to look (see {@link ConfigSources.Location}). */
export type Location = ConfigSources.Location

const optionalEnv = (name: string) =>
  Config.option(Config.string(name)).pipe(
    Effect.orDie,
    Effect.map(Option.match({ onNone: () => ({}), onSome: (value) => ({ [name]: value }) }))
  )

/**
 * This process's location: its working directory (through the platform's `Path`), home and
 * platform, `APPDATA`, `XDG_CONFIG_HOME` and `CODEX_HOME`, and the explicit file if any.
 */
export const here = (config: string | undefined): Effect.Effect<Location, never, Path.Path> =>
  Effect.gen(function* () {
    const path = yield* Path.Path
    const env = {
      ...(yield* optionalEnv("APPDATA")),
      ...(yield* optionalEnv("XDG_CONFIG_HOME")),
      ...(yield* optionalEnv("CODEX_HOME"))
    }
    return {
      ...(config === undefined ? {} : { config }),
      cwd: path.resolve("."),
      home: yield* Expand.home,
      platform: process.platform,
      ...(env.APPDATA === undefined ? {} : { appData: env.APPDATA }),
      ...(env.XDG_CONFIG_HOME === undefined ? {} : { xdgConfigHome: env.XDG_CONFIG_HOME }),
      ...(env.CODEX_HOME === undefined ? {} : { codexHome: env.CODEX_HOME })
    }
  })

/** Every configured server found, with the files read and their warnings. */
export interface Loaded {
  readonly entries: ReadonlyArray<ServerEntry>
  /** Entries hidden by an earlier one of the same name. */
  readonly shadowed: ReadonlyArray<ServerEntry>
  readonly files: ReadonlyArray<string>
  readonly warnings: ReadonlyArray<string>
  /** Broken entries, left out (each names its file, server and field). */
  readonly problems: ReadonlyArray<ConfigError>
}

/** The files searched without `--config`, in order (see {@link ConfigSources.sources}). */
export const candidates = (location: Location, path: Path.Path): ReadonlyArray<string> =>
  ConfigSources.sources(location, path).map((source) => source.file)

/**
 * Reads and parses one config file. `required`: a file with no server map is an error (an
 * explicit file); otherwise it has no servers.
 */
export const loadFile = (file: string, cwd: string, required = true) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const text = yield* fs
      .readFileString(file)
      .pipe(Effect.mapError((cause) => new ConfigError({ file, reason: `cannot be read: ${cause.message}` })))
    const lower = file.toLowerCase()
    if (lower.endsWith(".toml")) {
      const toml = yield* Either.try({
        try: () => Toml.parse(text),
        catch: (cause) =>
          new ConfigError({ file, reason: `invalid TOML: ${cause instanceof Error ? cause.message : String(cause)}` })
      })
      return yield* ConfigFormats.readCodex(file, toml, required)
    }
    if (lower.endsWith(".yaml") || lower.endsWith(".yml"))
      return yield* new ConfigError({
        file,
        reason:
          "is YAML (Continue's or Goose's format), which effect-mcp does not read; it reads JSON (mcpServers, servers, context_servers) and Codex's config.toml"
      })
    const json = yield* Either.mapLeft(Jsonc.parse(text), (reason) => new ConfigError({ file, reason }))
    return yield* ConfigFormats.read(file, json, cwd, required)
  })

/** Loads the explicit file, or every source that exists. */
export const load = (location: Location) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const explicit = location.config === undefined ? undefined : path.resolve(location.cwd, location.config)
    const sources =
      explicit === undefined
        ? yield* Effect.filter(ConfigSources.sources(location, path), (source) =>
            fs.exists(source.file).pipe(Effect.orElseSucceed(() => false))
          )
        : []
    const entries: Array<ServerEntry> = []
    const shadowed: Array<ServerEntry> = []
    const warnings: Array<string> = []
    const problems: Array<ConfigError> = []
    const files: Array<string> = []
    const reads =
      explicit === undefined ? sources : [{ file: explicit, scope: "project", tool: "generic", ours: false }]
    for (const source of reads) {
      const lenient = source.scope === "user" && !source.ours
      const read = yield* Effect.either(loadFile(source.file, location.cwd, explicit !== undefined))
      if (Either.isLeft(read)) {
        if (!lenient) return yield* read.left
        warnings.push(`${read.left.message} (its servers are left out)`)
        continue
      }
      files.push(source.file)
      const parsed = read.right
      warnings.push(...parsed.warnings)
      problems.push(...parsed.problems)
      for (const entry of parsed.entries)
        (entries.some((known) => known.name === entry.name) ? shadowed : entries).push(entry)
    }
    return { entries, shadowed, files, warnings, problems } satisfies Loaded
  })

/** The entry of that name, or {@link UnknownServer} listing what exists and where it looked. */
export const find = (loaded: Loaded, name: string): Effect.Effect<ServerEntry, UnknownServer | ConfigError> => {
  const entry = loaded.entries.find((candidate) => candidate.name === name)
  if (entry !== undefined) return Effect.succeed(entry)
  // A broken entry of that name: say what is wrong with it.
  const problem = loaded.problems.find((candidate) => candidate.entry === name)
  if (problem !== undefined) return Effect.fail(problem)
  return Effect.fail(
    new UnknownServer({
      server: name,
      known: loaded.entries.map((candidate) => candidate.name),
      where: loaded.files.length === 0 ? "no config file was found" : `looked in ${loaded.files.join(", ")}`
    })
  )
}

/** Parses a dotenv file: `KEY=VALUE` lines, `#` comments, optional `export` and quotes. */
export const parseEnvFile = (text: string): { readonly [name: string]: string } => {
  const env: Record<string, string> = {}
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim().replace(/^export\s+/, "")
    const equals = line.indexOf("=")
    if (line === "" || line.startsWith("#") || equals <= 0) continue
    const value = line.slice(equals + 1).trim()
    const quoted = /^(["'])(.*)\1$/s.exec(value)
    env[line.slice(0, equals).trim()] = quoted === null ? value.replace(/\s+#.*$/, "") : (quoted[2] as string)
  }
  return env
}

/** The entry ready to use: variables expanded and its `envFile` merged under its `env`. */
export const resolve = (entry: ServerEntry, context: ExpandContext) =>
  Effect.gen(function* () {
    const target: Target = yield* expandTarget(entry, context)
    if (target._tag !== "Stdio" || target.envFile === undefined) return target
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const file = path.resolve(path.dirname(entry.file), target.envFile)
    const text = yield* fs.readFileString(file).pipe(
      Effect.mapError(
        (cause) =>
          new ConfigError({
            file: entry.file,
            entry: entry.name,
            field: "envFile",
            reason: `cannot read ${file}: ${cause.message}`
          })
      )
    )
    return { ...target, env: { ...parseEnvFile(text), ...target.env } } satisfies Target
  })

/**
 * Every entry of a load resolved; an entry that cannot be resolved is a problem, not a failure
 * of the rest. The load's broken entries come first among the problems.
 */
export const resolveAll = (loaded: Loaded, context: ExpandContext) =>
  Effect.gen(function* () {
    const results = yield* Effect.forEach(loaded.entries, (entry) =>
      Effect.either(Effect.map(resolve(entry, context), (target) => ({ entry, target })))
    )
    return {
      resolved: results.flatMap((result) => (Either.isRight(result) ? [result.right] : [])),
      problems: [...loaded.problems, ...results.flatMap((result) => (Either.isLeft(result) ? [result.left] : []))]
    }
  })
