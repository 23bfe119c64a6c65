/**
 * The command line checked against the command tree before `@effect/cli` parses it, from plain
 * data (the help catalogue), so its mistakes read as well as a mistyped command's: an unknown
 * option names the closest ones, a value error names the option and what it takes, an option
 * that needs a value says so, and server and run options given before the command are moved
 * after it. Under `--json` the error is one JSON object. Loads no `effect`.
 */
import type { Catalogue, Entry } from "../Help.js"
import { closest } from "./closest.js"

/** An option as the catalogue describes it: its name and, when it takes one, its value's kind. */
interface OptionShape {
  readonly name: string
  /** `undefined`: a flag; else the kind (`text`, `float`, `integer`, `file`, `a | b | c`, …). */
  readonly value: string | undefined
}

const shapeOf = (term: string): OptionShape => {
  const space = term.indexOf(" ")
  if (space === -1) return { name: term, value: undefined }
  return { name: term.slice(0, space), value: term.slice(space + 1).replace(/\.\.\.$/, "") }
}

const BUILT_IN: ReadonlyArray<OptionShape> = [
  { name: "--help", value: undefined },
  { name: "-h", value: undefined },
  { name: "--version", value: undefined }
]

/** Every option a command takes: its own, the shared ones it takes, the built-in ones. */
const optionsOf = (catalogue: Catalogue, entry: Entry): ReadonlyArray<OptionShape> => {
  const shared = [...catalogue.server, ...catalogue.run]
    .map((definition) => shapeOf(definition.term))
    .filter((shape) => entry.shared.includes(shape.name))
  return [...entry.options.map((definition) => shapeOf(definition.term)), ...shared, ...BUILT_IN]
}

/** Every option any command takes (to read options given before the command). */
const allOptions = (catalogue: Catalogue): ReadonlyArray<OptionShape> => {
  const out = new Map<string, OptionShape>()
  const visit = (entry: Entry) => {
    for (const shape of optionsOf(catalogue, entry)) out.set(shape.name, shape)
    entry.children.forEach(visit)
  }
  visit(catalogue.tree)
  return [...out.values()]
}

/** What a value of this kind is, in words. */
const described = (kind: string): string => {
  if (kind.includes(" | ")) return `one of ${kind.split(" | ").join(", ")}`
  switch (kind) {
    case "SECONDS":
      return "a number of seconds, more than 0"
    case "float":
      return "a number"
    case "integer":
      return "a whole number"
    default:
      return `a ${kind}`
  }
}

/** Why `value` cannot be the value of `shape`, if it cannot. */
const valueProblem = (shape: OptionShape, value: string): string | undefined => {
  const kind = shape.value
  if (kind === undefined) return undefined
  if (kind === "SECONDS")
    return Number.isFinite(Number(value)) && value.trim() !== "" && Number(value) > 0
      ? undefined
      : `${shape.name} takes a number of seconds, more than 0, not "${value}"`
  if (kind === "float")
    return Number.isFinite(Number(value)) && value.trim() !== ""
      ? undefined
      : `${shape.name} takes a number, not "${value}"`
  if (kind === "integer")
    return /^-?\d+$/.test(value) ? undefined : `${shape.name} takes a whole number, not "${value}"`
  if (kind.includes(" | ")) {
    const choices = kind.split(" | ")
    if (choices.includes(value)) return undefined
    const close = closest(value, choices)
    return `${shape.name} takes one of ${choices.join(", ")}, not "${value}"${close.length === 0 ? "" : ` (did you mean ${close.join(", ")}?)`}`
  }
  return undefined
}

/** Words that ask for help or the version, wherever they stand. */
const isHelpWord = (word: string) => word === "--help" || word === "-h" || word === "--version"

/** Short options people try, and what this program spells them. */
const SHORT: { readonly [word: string]: ReadonlyArray<string> } = {
  "-v": ["--version", "--verbose"],
  "-V": ["--version"],
  "-j": ["--json"],
  "-t": ["--timeout"]
}

/** What may stand first besides a command's options. */
const ROOT_WORDS: ReadonlyArray<string> = ["--version", "--help"]

/** The outcome: the words to run (options moved after the command), or a usage error's text. */
export type Checked =
  | { readonly _tag: "Run"; readonly words: ReadonlyArray<string> }
  | { readonly _tag: "Refused"; readonly text: string }

/** The text of a usage error: one line, or one JSON object under `--json` (as every error is). */
const refusal = (words: ReadonlyArray<string>, message: string, hint?: string): Checked => ({
  _tag: "Refused",
  text: words.includes("--json")
    ? JSON.stringify({ error: { kind: "UsageError", message, exitCode: 2 } })
    : [`error: ${message}`, ...(hint === undefined ? [] : [hint])].join("\n")
})

/**
 * Checks `words` (argv without node, the script and what follows `--`) against the catalogue.
 * Leading options (`effect-mcp --server x tools list`) are moved after the command's path.
 * A command that does not exist is left to help's "did you mean" (`Help.intercept`).
 */
export const check = (catalogue: Catalogue, words: ReadonlyArray<string>): Checked => {
  const every = allOptions(catalogue)
  // Options before the command: taken with their values, put back after the command's path.
  const leading: Array<string> = []
  const unknown: Array<string> = []
  let index = 0
  while (index < words.length && (words[index] ?? "").startsWith("-")) {
    const word = words[index] ?? ""
    const shape = every.find((candidate) => candidate.name === word.split("=")[0])
    if (shape === undefined && !isHelpWord(word)) unknown.push(word.split("=")[0] ?? word)
    leading.push(word)
    index++
    if (shape?.value !== undefined && !word.includes("=") && index < words.length) leading.push(words[index++] ?? "")
  }
  let node = catalogue.tree
  const path: Array<string> = []
  while (index < words.length) {
    const child = node.children.find((candidate) => candidate.path.at(-1) === words[index])
    if (child === undefined) break
    node = child
    path.push(words[index++] ?? "")
  }
  const ordered = [...path, ...words.slice(index), ...leading]
  // An option no command has (-v, --verison) and no command after it: named, with the closest.
  const [stray] = unknown
  if (stray !== undefined && node === catalogue.tree && index === words.length) {
    const close = SHORT[stray] ?? closest(stray, [...every.map((candidate) => candidate.name), ...ROOT_WORDS])
    return refusal(
      words,
      `effect-mcp has no option ${stray}${close.length === 0 ? "" : ` (did you mean ${close.join(", ")}?)`}`,
      "See effect-mcp --help."
    )
  }
  if (node === catalogue.tree || node.children.length > 0) return { _tag: "Run", words: ordered }

  const known = optionsOf(catalogue, node)
  const where = ["effect-mcp", ...node.path].join(" ")
  const rest = [...words.slice(index), ...leading]
  let positionals = 0
  for (let at = 0; at < rest.length; at++) {
    const word = rest[at] ?? ""
    if (!word.startsWith("-") || word === "-" || /^-\d/.test(word)) {
      positionals++
      continue
    }
    const [name = word, inline] = word.includes("=")
      ? [word.slice(0, word.indexOf("=")), word.slice(word.indexOf("=") + 1)]
      : [word]
    const shape = known.find((candidate) => candidate.name === name)
    if (shape === undefined) {
      const close = closest(
        name,
        known.map((candidate) => candidate.name)
      )
      return refusal(
        words,
        `${where} has no option ${name}${close.length === 0 ? "" : ` (did you mean ${close.join(", ")}?)`}`,
        `See ${where} --help.`
      )
    }
    if (shape.value === undefined) continue
    const value = inline ?? rest[at + 1]
    if (value === undefined || (inline === undefined && value.startsWith("--")))
      return refusal(
        words,
        `${name} needs a value${shape.value === "text" || shape.value === "redacted" || shape.value === "SECRET" ? "" : ` (${described(shape.value)})`}`,
        `See ${where} --help.`
      )
    const problem = valueProblem(shape, value)
    if (problem !== undefined) return refusal(words, problem, `See ${where} --help.`)
    if (inline === undefined) at++
  }
  // Help asked for is answered by help, whatever is missing.
  if (rest.some(isHelpWord)) return { _tag: "Run", words: ordered }
  const required = node.arguments.map((argument) => argument.term).filter((term) => !term.startsWith("["))
  const missing = required.slice(positionals).filter((term) => !term.endsWith("..."))
  if (missing.length > 0)
    return refusal(
      words,
      `${where} needs ${missing.join(" ")}`,
      `Usage: ${[where, ...node.arguments.map((argument) => argument.term)].join(" ")}; see ${where} --help.`
    )
  return { _tag: "Run", words: ordered }
}
