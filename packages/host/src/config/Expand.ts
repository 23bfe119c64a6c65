/**
 * Variable expansion the way each format does it, in values only (never in map keys):
 * `${VAR}` and `${VAR:-default}` (Claude Code, Gemini CLI), `${env:VAR}`, `${userHome}`,
 * `${workspaceFolder}`, `${workspaceFolderBasename}`, `${pathSeparator}` (VS Code, Cursor,
 * Windsurf), `${input:id}` (VS Code). Claude Desktop and Zed expand nothing. A variable that
 * is unset and has no default, or an input that cannot be asked, is a {@link ConfigError}
 * naming the variable, the entry and the file; nothing is passed through literally.
 */
import * as Path from "@effect/platform/Path"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import { ConfigError } from "../HostError.js"
import type { ConfigFormat, Input, ServerEntry, Target } from "./ServerEntry.js"

/** What expansion reads: the environment, the home and workspace folders, and how to ask for an input. */
export interface ExpandContext {
  readonly env: { readonly [name: string]: string | undefined }
  readonly home: string
  readonly workspaceFolder: string
  readonly pathSeparator: string
  /** Asks the user for a VS Code input (fails when there is no terminal to ask on). */
  readonly ask: (input: Input, entry: ServerEntry) => Effect.Effect<string, ConfigError>
}

/** The user's home folder, from the environment (`HOME`, else `USERPROFILE`; empty when neither is set). */
export const home: Effect.Effect<string> = Config.string("HOME").pipe(
  Config.orElse(() => Config.string("USERPROFILE")),
  Config.withDefault(""),
  Effect.orDie
)

/**
 * This process's context: its environment, home and working directory (through the platform's
 * `Path`); VS Code inputs cannot be asked (an entry that needs one is a `ConfigError` naming it).
 */
export const processContext: Effect.Effect<ExpandContext, never, Path.Path> = Effect.gen(function* () {
  const path = yield* Path.Path
  return {
    env: process.env,
    home: yield* home,
    workspaceFolder: path.resolve("."),
    pathSeparator: path.sep,
    ask: (input, entry) =>
      Effect.fail(
        new ConfigError({ file: entry.file, entry: entry.name, reason: `input "${input.id}" cannot be asked here` })
      )
  }
})

type Form = "posix" | "env" | "folders" | "input"

const formsOf: Record<ConfigFormat, ReadonlyArray<Form>> = {
  // Claude Code's `.mcp.json` is effect-mcp's own project file too: it keeps imported references
  // in any form (`${input:…}`, `${workspaceFolder}`), which Claude Code would pass as written.
  "claude-code": ["posix", "env", "folders", "input"],
  gemini: ["posix"],
  cursor: ["env", "folders"],
  windsurf: ["env", "folders"],
  vscode: ["env", "folders", "input"],
  mcpServers: ["posix", "env", "folders", "input"],
  "claude-desktop": [],
  zed: [],
  // Only what the reader writes for bearer_token_env_var and env_http_headers.
  codex: ["env"]
}

const VARIABLE = /\$\{([^}]*)\}/g

/** Expands one value of an entry; `field` names it in errors. */
export const expandValue = (
  value: string,
  entry: ServerEntry,
  field: string,
  context: ExpandContext
): Effect.Effect<string, ConfigError> => {
  const forms = formsOf[entry.format]
  if (forms.length === 0 || !value.includes("${")) return Effect.succeed(value)
  const unset = (variable: string) =>
    new ConfigError({
      file: entry.file,
      entry: entry.name,
      field,
      reason: `variable ${variable} is not set and has no default`
    })
  const resolve = (inner: string): Effect.Effect<string | undefined, ConfigError> => {
    if (forms.includes("env") && inner.startsWith("env:")) {
      const name = inner.slice(4)
      const found = context.env[name]
      return found === undefined ? Effect.fail(unset(name)) : Effect.succeed(found)
    }
    if (forms.includes("folders")) {
      if (inner === "userHome") return Effect.succeed(context.home)
      if (inner === "workspaceFolder") return Effect.succeed(context.workspaceFolder)
      if (inner === "workspaceFolderBasename")
        return Effect.succeed(context.workspaceFolder.split(/[\\/]/).filter(Boolean).at(-1) ?? "")
      if (inner === "pathSeparator" || inner === "/") return Effect.succeed(context.pathSeparator)
    }
    if (forms.includes("input") && inner.startsWith("input:")) {
      const id = inner.slice(6)
      const input = entry.inputs.find((candidate) => candidate.id === id)
      return input === undefined
        ? Effect.fail(
            new ConfigError({
              file: entry.file,
              entry: entry.name,
              field,
              reason: `input "${id}" is not declared in "inputs"`
            })
          )
        : context.ask(input, entry)
    }
    if (forms.includes("posix")) {
      const match = /^([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/s.exec(inner)
      if (match !== null) {
        const name = match[1] as string
        const found = context.env[name]
        if (found !== undefined && found !== "") return Effect.succeed(found)
        if (match[2] !== undefined) return Effect.succeed(match[2])
        return found === undefined ? Effect.fail(unset(name)) : Effect.succeed(found)
      }
    }
    return Effect.succeed(undefined)
  }
  return Effect.gen(function* () {
    let result = ""
    let last = 0
    for (const match of value.matchAll(VARIABLE)) {
      const replacement = yield* resolve(match[1] as string)
      result += value.slice(last, match.index) + (replacement ?? match[0])
      last = match.index + match[0].length
    }
    return result + value.slice(last)
  })
}

const expandMap = (
  map: { readonly [name: string]: string },
  entry: ServerEntry,
  field: string,
  context: ExpandContext
): Effect.Effect<{ readonly [name: string]: string }, ConfigError> =>
  Effect.map(
    Effect.forEach(Object.entries(map), ([key, value]) =>
      Effect.map(expandValue(value, entry, `${field}.${key}`, context), (expanded) => [key, expanded] as const)
    ),
    Object.fromEntries
  )

/** The entry's target with every value expanded (keys untouched). */
export const expandTarget = (entry: ServerEntry, context: ExpandContext): Effect.Effect<Target, ConfigError> => {
  const target = entry.target
  const value = (text: string, field: string) => expandValue(text, entry, field, context)
  if (target._tag === "Http")
    return Effect.all({
      url: value(target.url, "url"),
      headers: expandMap(target.headers, entry, "headers", context),
      oauth:
        target.oauth === undefined
          ? Effect.succeed(undefined)
          : expandMap(
              Object.fromEntries(
                Object.entries(target.oauth).filter((field): field is [string, string] => typeof field[1] === "string")
              ),
              entry,
              "oauth",
              context
            )
    }).pipe(
      Effect.map(({ url, headers, oauth }) => ({ ...target, url, headers, ...(oauth === undefined ? {} : { oauth }) }))
    )
  return Effect.all({
    command: value(target.command, "command"),
    args: Effect.forEach(target.args, (arg, index) => value(arg, `args.${index}`)),
    env: expandMap(target.env, entry, "env", context),
    cwd: target.cwd === undefined ? Effect.succeed(undefined) : value(target.cwd, "cwd"),
    envFile: target.envFile === undefined ? Effect.succeed(undefined) : value(target.envFile, "envFile")
  }).pipe(
    Effect.map(({ command, args, env, cwd, envFile }) => ({
      _tag: "Stdio" as const,
      command,
      args,
      env,
      ...(cwd === undefined ? {} : { cwd }),
      ...(envFile === undefined ? {} : { envFile })
    }))
  )
}
