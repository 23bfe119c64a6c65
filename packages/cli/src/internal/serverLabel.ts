/**
 * What an inline stdio server is called until it says its own name (`serverInfo.name`, at the
 * handshake; see `ServerNames`): the program, or what a launcher runs; for a JavaScript or
 * TypeScript file, the name of the package it is in (its file is often only `dist/index.js`).
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

const LAUNCHERS = new Set([
  "node",
  "python",
  "python3",
  "npx",
  "uvx",
  "uv",
  "bunx",
  "bun",
  "deno",
  "pnpm",
  "yarn",
  "docker",
  "sh",
  "bash"
])

const basename = (path: string) => path.split(/[\\/]/).at(-1) ?? path

const SCRIPT = /\.(c?m?[jt]s)$/

// A package.json is the user's file: read as far as its `name`, nothing assumed.
const decodeManifest = Schema.decodeUnknownOption(
  Schema.parseJson(Schema.Struct({ name: Schema.optional(Schema.Trim.pipe(Schema.nonEmptyString())) }))
)

/**
 * The `name` of the package a script is in: its nearest `package.json`, looking up from the
 * script's directory (none when that file has no name, or there is no such file).
 */
const packageOf = (script: string, cwd: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    let dir = path.dirname(path.resolve(cwd, script))
    while (true) {
      const manifest = yield* Effect.option(fs.readFileString(path.join(dir, "package.json")))
      if (Option.isSome(manifest)) return Option.flatMapNullable(decodeManifest(manifest.value), (found) => found.name)
      const parent = path.dirname(dir)
      if (parent === dir) return Option.none<string>()
      dir = parent
    }
  })

/** A readable name for the inline stdio server `command args` started in `cwd`. */
export const labelOf = (
  command: string,
  args: ReadonlyArray<string>,
  cwd: string
): Effect.Effect<string, never, FileSystem.FileSystem | Path.Path> => {
  const program = basename(command).replace(/\.(exe|cmd)$/i, "")
  if (!LAUNCHERS.has(program)) return Effect.succeed(program)
  const target = args.find((arg) => !arg.startsWith("-") && arg !== "run" && arg !== "dlx" && arg !== "exec")
  if (target === undefined) return Effect.succeed(program)
  const file = basename(target).replace(/\.(m?js|ts|py)$/, "")
  return SCRIPT.test(target)
    ? Effect.map(
        packageOf(target, cwd),
        Option.getOrElse(() => file)
      )
    : Effect.succeed(file)
}
