/**
 * Names in generated TypeScript: identifiers from tool and definition names (camelCase for
 * functions, PascalCase for Schemas), never a reserved word and never taken twice, and object
 * keys quoted when they are not identifiers.
 */

const RESERVED = new Set(
  (
    "break case catch class const continue debugger default delete do else enum export extends false finally for " +
    "function if import in instanceof new null return super switch this throw true try typeof var void while with " +
    "as implements interface let package private protected public static yield await any boolean number string " +
    "symbol type from of undefined unknown never object bigint arguments eval NaN Infinity"
  ).split(" ")
)

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/

const words = (name: string): ReadonlyArray<string> =>
  name
    // A new word starts at an upper-case letter after a lower-case one or a digit, and at the last
    // capital of a run followed by a lower-case letter: getHTTPStatus → get HTTP Status.
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word !== "")

const capitalized = (word: string) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase()

/** `get-sum` → `GetSum`; a name with no letters or digits → `fallback`. */
export const pascalCase = (name: string, fallback: string): string => {
  const joined = words(name).map(capitalized).join("")
  if (joined === "") return fallback
  return /^[0-9]/.test(joined) ? `_${joined}` : joined
}

/** `get-sum` → `getSum`; a name with no letters or digits → `fallback`. */
export const camelCase = (name: string, fallback: string): string => {
  const pascal = pascalCase(name, fallback)
  return pascal.startsWith("_") ? pascal : pascal.charAt(0).toLowerCase() + pascal.slice(1)
}

/** A key of an object literal: bare when it is an identifier, else quoted (`__proto__` computed, so it stays a key). */
export const propertyKey = (name: string): string =>
  name === "__proto__" ? `["__proto__"]` : IDENTIFIER.test(name) ? name : JSON.stringify(name)

/** The identifiers of one generated module: each name given once, the module's own names kept out. */
export interface Names {
  /** `wanted`, or `wanted2`, `wanted3`… when taken; never a reserved word. */
  readonly take: (wanted: string) => string
}

/** A fresh set of names, with `reserved` already taken. */
export const names = (reserved: Iterable<string>): Names => {
  const taken = new Set(reserved)
  return {
    take: (wanted) => {
      const base = RESERVED.has(wanted) ? `${wanted}_` : wanted
      let name = base
      for (let n = 2; taken.has(name); n++) name = `${base}${n}`
      taken.add(name)
      return name
    }
  }
}

/** Text for a comment: no comment terminator, no control characters (the server wrote it). */
export const commentText = (text: string): string =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
  text.replaceAll("*/", "*\\/").replace(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029]/g, " ")

/** A JSDoc block at `indent`. */
export const jsDoc = (lines: ReadonlyArray<string>, indent = ""): string =>
  `${indent}/**\n${lines
    .flatMap((line) => commentText(line).split("\n"))
    .map((line) => `${indent} * ${line}`.trimEnd())
    .join("\n")}\n${indent} */`
