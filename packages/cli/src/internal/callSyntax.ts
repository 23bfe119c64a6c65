/**
 * The easier ways to write a call's arguments: a call written as a function call
 * (`get-sum(a: 2, b: 3)`, `get-sum(2, 3)`), and values read from files (`key=@path`, `key:=@path`).
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { UsageError } from "../CliError.js"

/** Splits `text` at the commas that are outside quotes and brackets. */
const topLevelParts = (text: string): Either.Either<ReadonlyArray<string>, string> => {
  const parts: Array<string> = []
  let depth = 0
  let quote: string | undefined
  let start = 0
  for (let index = 0; index < text.length; index++) {
    const char = text[index]
    if (quote !== undefined) {
      if (char === "\\") index++
      else if (char === quote) quote = undefined
    } else if (char === '"' || char === "'") quote = char
    else if (char === "[" || char === "{") depth++
    else if (char === "]" || char === "}") depth--
    else if (char === "," && depth === 0) {
      parts.push(text.slice(start, index))
      start = index + 1
    }
  }
  if (quote !== undefined) return Either.left(`a ${quote} is left open`)
  if (depth !== 0) return Either.left("a bracket is left open")
  parts.push(text.slice(start))
  return Either.right(parts.map((part) => part.trim()))
}

/** A quoted text's content: `'…'` with its backslash escapes, `"…"` as JSON reads it; else `undefined`. */
const unquoted = (value: string): string | undefined => {
  if (value.length < 2) return undefined
  if (value.startsWith("'") && value.endsWith("'")) return value.slice(1, -1).replace(/\\(.)/g, "$1")
  if (!value.startsWith('"') || !value.endsWith('"')) return undefined
  return Either.getOrUndefined(
    Either.try(() => {
      const text: unknown = JSON.parse(value)
      return typeof text === "string" ? text : value.slice(1, -1)
    })
  )
}

/**
 * One part of a function call as a word, as the shell's words are: `key: value` is a named value
 * (quoted text stays a string, brackets are JSON, a bare value is read by type), and a value
 * alone is a positional one (bare values fill the properties in the schema's order).
 */
const wordOf = (part: string): Either.Either<string, string> => {
  const named = /^([\w.-]+)\s*:(?!\/\/)/.exec(part)
  if (named === null) {
    const text = unquoted(part) ?? part
    if (text === "") return Either.left("a value is empty")
    // A positional word with `=` would be read as key=value.
    if (text.includes("=")) return Either.left(`"${part.slice(0, 40)}" has a "=": give it by name, key: value`)
    return Either.right(text)
  }
  const key = named[1] ?? ""
  const value = part.slice(named[0].length).trim()
  const inner = value.startsWith("'") ? unquoted(value) : undefined
  if (inner !== undefined) return Either.right(`${key}:=${JSON.stringify(inner)}`)
  return Either.right(/^["[{]/.test(value) ? `${key}:=${value}` : `${key}=${value}`)
}

/**
 * A call written as a function call, `name(key: value, …)` or `name(value, …)`: the tool's name
 * and its arguments as `key=value` / `key:=json` words and positional values, as the shell takes
 * them. `undefined` when `text` is not written that way (a plain name).
 */
export const functionCall = (
  text: string
): Either.Either<{ readonly name: string; readonly words: ReadonlyArray<string> }, string> | undefined => {
  const match = /^([^\s()]+)\(([\s\S]*)\)$/.exec(text.trim())
  if (match === null) return undefined
  const [, name = "", inside = ""] = match
  if (inside.trim() === "") return Either.right({ name, words: [] })
  return Either.flatMap(topLevelParts(inside), (parts) =>
    Either.map(Either.all(parts.map(wordOf)), (words) => ({ name, words }))
  ).pipe(Either.mapLeft((reason) => `${text.slice(0, 60)}: ${reason} (write name(key: value, …) or name(value, …))`))
}

/**
 * `key=@path` and `key:=@path` with the file's text in place of `@path` (read as `key=value` or as
 * JSON); `@@` stands for a literal `@`. A file that cannot be read is the user's mistake.
 */
export const withFileValues = (
  words: ReadonlyArray<string>
): Effect.Effect<ReadonlyArray<string>, UsageError, FileSystem.FileSystem> =>
  Effect.flatMap(FileSystem.FileSystem, (fs) =>
    Effect.forEach(words, (word) => {
      const match = /^([^=:]+)(:?=)@([\s\S]*)$/.exec(word)
      if (match === null) return Effect.succeed(word)
      const [, key = "", assign = "", path = ""] = match
      if (path.startsWith("@")) return Effect.succeed(`${key}${assign}${path}`)
      return fs.readFileString(path).pipe(
        Effect.map((text) => `${key}${assign}${text}`),
        Effect.mapError((error) => {
          const why =
            error._tag === "SystemError"
              ? error.reason.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase()
              : error.message
          return new UsageError({ reason: `${key}${assign}@${path}: cannot read the file (${why})` })
        })
      )
    })
  )
