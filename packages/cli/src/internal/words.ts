/**
 * Small parsers for what people type: a command line split like a POSIX shell would (quotes
 * and backslashes, no expansion), `Name: value` headers, `KEY=VALUE` pairs, and tool or
 * prompt arguments as `key=value` (JSON when it parses, else a string) or `key:=json`.
 */
import * as Either from "effect/Either"

/** Splits a command line into words; `Left` with a reason when a quote is left open. */
export const splitCommandLine = (line: string): Either.Either<ReadonlyArray<string>, string> => {
  const words: Array<string> = []
  let word = ""
  let inWord = false
  let quote: "'" | '"' | undefined
  for (let i = 0; i < line.length; i++) {
    const char = line[i] as string
    if (quote === "'") {
      if (char === "'") quote = undefined
      else word += char
    } else if (quote === '"') {
      if (char === '"') quote = undefined
      else if (char === "\\" && i + 1 < line.length && '"\\$`'.includes(line[i + 1] as string)) word += line[++i]
      else word += char
    } else if (char === "'" || char === '"') {
      quote = char
      inWord = true
    } else if (char === "\\" && i + 1 < line.length) {
      word += line[++i]
      inWord = true
    } else if (/\s/.test(char)) {
      if (inWord) words.push(word)
      word = ""
      inWord = false
    } else {
      word += char
      inWord = true
    }
  }
  if (quote !== undefined) return Either.left(`unclosed ${quote} quote`)
  if (inWord) words.push(word)
  return Either.right(words)
}

/** `Name: value` as a header pair. */
export const parseHeader = (text: string): Either.Either<readonly [string, string], string> => {
  const colon = text.indexOf(":")
  const name = colon <= 0 ? "" : text.slice(0, colon).trim()
  return /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)
    ? Either.right([name, text.slice(colon + 1).trim()] as const)
    : Either.left(`expected "Name: value", got a header without a valid name`)
}

/** `KEY=VALUE` as a pair. */
export const parseAssignment = (text: string): Either.Either<readonly [string, string], string> => {
  const equals = text.indexOf("=")
  return equals <= 0
    ? Either.left(`expected KEY=VALUE, got "${text.slice(0, 40)}"`)
    : Either.right([text.slice(0, equals), text.slice(equals + 1)] as const)
}

const parseJson = (text: string): Either.Either<unknown, string> =>
  Either.try({ try: () => JSON.parse(text) as unknown, catch: (cause) => String(cause) })

/**
 * Arguments from `key=value` (the value as JSON when it parses, else as a string) and
 * `key:=json` (always JSON) words.
 */
export const parseArguments = (
  words: ReadonlyArray<string>
): Either.Either<{ readonly [key: string]: unknown }, string> => {
  const result: Record<string, unknown> = {}
  for (const word of words) {
    const typed = word.indexOf(":=")
    const plain = word.indexOf("=")
    if (typed > 0 && typed < plain) {
      const key = word.slice(0, typed)
      const value = parseJson(word.slice(typed + 2))
      if (Either.isLeft(value)) return Either.left(`${key}:= needs JSON: ${value.left}`)
      result[key] = value.right
    } else if (plain > 0) {
      const raw = word.slice(plain + 1)
      result[word.slice(0, plain)] = Either.getOrElse(parseJson(raw), () => raw)
    } else {
      return Either.left(`expected key=value or key:=json, got "${word.slice(0, 40)}"`)
    }
  }
  return Either.right(result)
}

/** Prompt arguments are strings: `key=value` words, values taken verbatim. */
export const parseStringArguments = (
  words: ReadonlyArray<string>
): Either.Either<{ readonly [key: string]: string }, string> => {
  const result: Record<string, string> = {}
  for (const word of words) {
    const pair = parseAssignment(word)
    if (Either.isLeft(pair)) return Either.left(pair.left)
    result[pair.right[0]] = pair.right[1]
  }
  return Either.right(result)
}
