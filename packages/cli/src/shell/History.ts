/**
 * The shell's history, one file per server: `$XDG_STATE_HOME/effect-mcp/history/<server>`
 * (else `~/.local/state/…`), one line per command, the last 1000 kept.
 */
import { homedir } from "node:os"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import { safeName } from "../commands/binary.js"

const KEEP = 1000

/** The history file of a server. */
export const fileOf = (server: string) =>
  Effect.map(Path.Path, (path) =>
    path.join(
      process.env.XDG_STATE_HOME ?? path.join(homedir(), ".local", "state"),
      "effect-mcp",
      "history",
      safeName(server)
    )
  )

/** The lines of a history file, newest first (as readline wants them); none if it cannot be read. */
export const load = (file: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const text = yield* fs.readFileString(file)
    return text
      .split("\n")
      .filter((line) => line.trim() !== "")
      .slice(-KEEP)
      .reverse()
  }).pipe(Effect.orElseSucceed((): ReadonlyArray<string> => []))

/** Adds a line to a history file; failures are ignored (history is a convenience). */
export const append = (file: string, line: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    yield* fs.makeDirectory(path.dirname(file), { recursive: true })
    yield* fs.writeFileString(file, `${line.replace(/\n/g, " ")}\n`, { flag: "a" })
  }).pipe(Effect.ignore)
