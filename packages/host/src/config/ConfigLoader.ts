/**
 * Finding and loading MCP config files. With an explicit file only that file is read;
 * otherwise `./.mcp.json`, `./mcp.json`, `./.vscode/mcp.json`, `./.cursor/mcp.json`, then the
 * user's Claude Desktop and Claude Code configs, in that order (the first entry of a name
 * wins). A `.toml` file is read as Codex's `config.toml`. Resolving an entry expands its
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
import * as Expand from "./Expand.js"
import { type ExpandContext, expandTarget } from "./Expand.js"
import * as Jsonc from "./Jsonc.js"
import type { ServerEntry, Target } from "./ServerEntry.js"

/** Where to look. */
export interface Location {
  /** An explicit file (`--config`); when set, nothing else is read. */
  readonly config?: string
  readonly cwd: string
  readonly home: string
  readonly platform: NodeJS.Platform
  /** `APPDATA` on Windows. */
  readonly appData?: string
}

/** This process's location: its working directory (through the platform's `Path`), home and platform, and the explicit file if any. */
export const here = (config: string | undefined): Effect.Effect<Location, never, Path.Path> =>
  Effect.gen(function* () {
    const path = yield* Path.Path
    const appData = yield* Config.option(Config.string("APPDATA")).pipe(Effect.orDie)
    return {
      ...(config === undefined ? {} : { config }),
      cwd: path.resolve("."),
      home: yield* Expand.home,
      platform: process.platform,
      ...(Option.isSome(appData) ? { appData: appData.value } : {})
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

/** The files searched without `--config`, in order. */
export const candidates = (location: Location, path: Path.Path): ReadonlyArray<string> => {
  const project = [".mcp.json", "mcp.json", ".vscode/mcp.json", ".cursor/mcp.json"].map((file) =>
    path.join(location.cwd, file)
  )
  const desktop =
    location.platform === "darwin"
      ? path.join(location.home, "Library", "Application Support", "Claude", "claude_desktop_config.json")
      : location.platform === "win32"
        ? path.join(
            location.appData ?? path.join(location.home, "AppData", "Roaming"),
            "Claude",
            "claude_desktop_config.json"
          )
        : path.join(location.home, ".config", "Claude", "claude_desktop_config.json")
  return [...project, desktop, path.join(location.home, ".claude.json")]
}

/** Reads and parses one config file. */
export const loadFile = (file: string, cwd: string) =>
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
      return yield* ConfigFormats.readCodex(file, toml)
    }
    if (lower.endsWith(".yaml") || lower.endsWith(".yml"))
      return yield* new ConfigError({
        file,
        reason:
          "is YAML (Continue's or Goose's format), which effect-mcp does not read; it reads JSON (mcpServers, servers, context_servers) and Codex's config.toml"
      })
    const json = yield* Either.mapLeft(Jsonc.parse(text), (reason) => new ConfigError({ file, reason }))
    return yield* ConfigFormats.read(file, json, cwd)
  })

/** Loads the explicit file, or every candidate that exists. */
export const load = (location: Location) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const files =
      location.config === undefined
        ? yield* Effect.filter(candidates(location, path), (file) =>
            fs.exists(file).pipe(Effect.orElseSucceed(() => false))
          )
        : [path.resolve(location.cwd, location.config)]
    const entries: Array<ServerEntry> = []
    const shadowed: Array<ServerEntry> = []
    const warnings: Array<string> = []
    const problems: Array<ConfigError> = []
    for (const file of files) {
      const parsed = yield* loadFile(file, location.cwd)
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
