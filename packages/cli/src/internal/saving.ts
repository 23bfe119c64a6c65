/**
 * Saving a server given on the command line into a config file (`config add`, `--persist`):
 * which file (the `--config` file, else effect-mcp's own of the scope), the entry as that file's
 * format writes it, a clash refused before anything happens, and a note when values are written
 * as given (a secret typed on the command line would be stored in the file).
 */
import * as Path from "@effect/platform/Path"
import { ConfigError, ConfigLoader, ConfigSources, ConfigWriter, type ServerEntry } from "@effect-mcp/host"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { UsageError } from "../CliError.js"
import { Output } from "../Output.js"
import { sanitize } from "./controls.js"

/** The file a config command writes: `--config FILE`, else effect-mcp's own file of `scope`. */
export const fileFor = (config: Option.Option<string>, scope: "project" | "user") =>
  Effect.gen(function* () {
    const path = yield* Path.Path
    return Option.isSome(config)
      ? path.resolve(config.value)
      : ConfigSources.ours(yield* ConfigLoader.here(undefined), path, scope)
  })

/** A new file's permissions: the user's file may hold secrets, so only its owner reads it. */
export const modeFor = (config: Option.Option<string>, scope: "project" | "user") =>
  Option.isNone(config) && scope === "user" ? 0o600 : 0o644

/** The keys of a target's environment and headers whose values are written as given (no `${…}` in them). */
export const literalValues = (target: ServerEntry.Target): ReadonlyArray<string> => {
  const map = target._tag === "Stdio" ? target.env : target.headers
  return Object.entries(map)
    .filter(([, value]) => !value.includes("${"))
    .map(([key]) => key)
}

/** Says which values of `name` are written as given into `file` (never the values). */
export const noteLiterals = (name: string, target: ServerEntry.Target, file: string) =>
  Effect.gen(function* () {
    const keys = literalValues(target)
    if (keys.length === 0) return
    const output = yield* Output
    const kind = target._tag === "Stdio" ? "env" : "header"
    yield* output.note(
      `note: ${name}'s ${kind} ${keys.join(", ")} ${keys.length === 1 ? "is" : "are"} saved in ${file} as given; ` +
        `write \${VAR} (quoted: '${kind === "env" ? "KEY" : "Name:"}${kind === "env" ? "=" : " "}\${VAR}') to keep a secret out of the file`
    )
  })

/** The change that writes `target` as `name` into `file`, in its format. */
export const changeFor = (file: string, name: string, target: ServerEntry.Target) =>
  Effect.map(ConfigWriter.formatOf(file), (format) => ({
    name,
    value: ConfigWriter.entryJson({ target }, format),
    inputs: []
  }))

/** A clash as the error it is: exit 2, naming the file and the server. */
export const clash = (file: string, name: string, hint: string) =>
  new ConfigError({ file, entry: name, reason: `a different server of this name is there already; ${hint}` })

/** A server name as a config file's key: some visible text, no spaces or control characters. */
export const checkName = (name: string, flag: string) =>
  /^[^\s\p{Cc}]{1,100}$/u.test(name)
    ? Effect.succeed(name)
    : Effect.fail(
        new UsageError({
          reason: `${flag}: a server name is 1 to 100 characters, none of them spaces, got "${sanitize(name)}"`
        })
      )

/**
 * `--persist NAME`: checked before connecting (a server given inline; no different server of
 * that name in the file), it gives the effect that saves the server once it has connected.
 */
export const persistence = (
  persist: Option.Option<string>,
  config: Option.Option<string>,
  chosen: { readonly name: string; readonly inline: boolean; readonly target: ServerEntry.Target }
) =>
  Effect.gen(function* () {
    if (Option.isNone(persist)) return Effect.void
    const name = yield* checkName(persist.value, "--persist")
    if (!chosen.inline)
      return yield* new UsageError({
        reason: `--persist saves a server given inline (-- CMD ARGS, --stdio or --url); "${chosen.name}" is configured already`
      })
    const file = yield* fileFor(config, "project")
    const change = yield* changeFor(file, name, chosen.target)
    const [planned] = yield* ConfigWriter.plan(file, [change], false)
    if (planned?.outcome === "clash")
      return yield* clash(file, name, `effect-mcp config remove ${name} first, or pick another name`)
    return Effect.gen(function* () {
      const output = yield* Output
      yield* ConfigWriter.write(file, [change], { force: false, mode: modeFor(config, "project") })
      yield* output.note(
        planned?.outcome === "unchanged" ? `"${name}" is saved in ${file} already` : `saved as "${name}" in ${file}`
      )
      if (planned?.outcome !== "unchanged") yield* noteLiterals(name, chosen.target, file)
    })
  })
