/**
 * JSON with comments, as editors write config files: `//` and `/* *\/` comments and trailing
 * commas are allowed. Syntax errors say the line and column.
 */
import * as Either from "effect/Either"

/** Blanks out comments and trailing commas (keeping offsets, so positions stay true). */
export const strip = (text: string): string => blankOut(text, true)

/** Blanks out comments only (keeping offsets): what an editor of the file scans. */
export const stripComments = (text: string): string => blankOut(text, false)

/** Whether the text has a comment (outside strings). */
export const hasComments = (text: string): boolean => stripComments(text) !== text

const blankOut = (text: string, trailingCommas: boolean): string => {
  const out = text.split("")
  let i = 0
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (out[k] !== "\n") out[k] = " "
  }
  let lastSignificant = -1
  while (i < text.length) {
    const char = text[i]
    if (char === '"') {
      i++
      while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1
      lastSignificant = i
      i++
    } else if (char === "/" && text[i + 1] === "/") {
      const end = text.indexOf("\n", i)
      const stop = end === -1 ? text.length : end
      blank(i, stop)
      i = stop
    } else if (char === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2)
      const stop = end === -1 ? text.length : end + 2
      blank(i, stop)
      i = stop
    } else if (char === "}" || char === "]") {
      if (trailingCommas && lastSignificant >= 0 && out[lastSignificant] === ",") out[lastSignificant] = " "
      lastSignificant = i
      i++
    } else {
      if (char !== undefined && !/\s/.test(char)) lastSignificant = i
      i++
    }
  }
  return out.join("")
}

const position = (text: string, offset: number) => {
  const before = text.slice(0, offset).split("\n")
  return `line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`
}

/** Parses JSON with comments; `Left` with a message that says where. */
export const parse = (text: string): Either.Either<unknown, string> => {
  const stripped = strip(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)
  return Either.try({
    try: () => JSON.parse(stripped) as unknown,
    catch: (cause) => {
      const message = cause instanceof Error ? cause.message : String(cause)
      const at = /position (\d+)/.exec(message)
      return at === null
        ? `invalid JSON: ${message}`
        : `invalid JSON at ${position(stripped, Number(at[1]))}: ${message}`
    }
  })
}
