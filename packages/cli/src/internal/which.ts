/**
 * Finds a command the way a shell would, so that a missing one is reported by name with the
 * PATH that was searched, before anything is spawned.
 */

import { delimiter } from "node:path"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

const isExecutable = (fs: FileSystem.FileSystem, file: string) =>
  fs.stat(file).pipe(
    Effect.map((info) => info.type === "File" && (process.platform === "win32" || (info.mode & 0o111) !== 0)),
    Effect.orElseSucceed(() => false)
  )

/** The executable a command names, searched on `pathVariable` unless it contains a slash. */
export const which = (command: string, pathVariable: string, cwd: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    if (command.includes("/") || command.includes("\\")) {
      const file = path.resolve(cwd, command)
      return (yield* isExecutable(fs, file)) ? Option.some(file) : Option.none()
    }
    const extensions = process.platform === "win32" ? (process.env.PATHEXT ?? ".EXE;.CMD;.BAT").split(";") : [""]
    for (const directory of pathVariable.split(delimiter).filter((entry) => entry !== "")) {
      for (const extension of extensions) {
        const file = path.join(directory, command + extension)
        if (yield* isExecutable(fs, file)) return Option.some(file)
      }
    }
    return Option.none<string>()
  })
