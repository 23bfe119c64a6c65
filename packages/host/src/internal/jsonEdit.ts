/**
 * Editing a JSON or JSONC file's text in place: set, replace or remove one member of an object,
 * or append one element to an array, leaving every other byte as it was (other keys, comments,
 * indentation, line endings). The text has already been parsed (it is valid JSONC); members are
 * found by scanning it with its comments blanked out, which keeps every offset true.
 */
import { stripComments } from "../config/Jsonc.js"

interface Member {
  readonly key: string
  readonly keyStart: number
  readonly valueStart: number
  readonly valueEnd: number
}

/** A container (object or array) found at `open`: its members or elements and its closing offset. */
interface Container {
  readonly open: number
  readonly close: number
  readonly members: ReadonlyArray<Member>
}

const isSpace = (char: string | undefined) => char === " " || char === "\t" || char === "\n" || char === "\r"

const skipSpace = (text: string, from: number) => {
  let at = from
  while (at < text.length && isSpace(text[at])) at++
  return at
}

const skipString = (text: string, from: number) => {
  let at = from + 1
  while (at < text.length && text[at] !== '"') at += text[at] === "\\" ? 2 : 1
  return at + 1
}

const skipValue = (text: string, from: number): number => {
  const first = text[from]
  if (first === '"') return skipString(text, from)
  if (first !== "{" && first !== "[") {
    let at = from
    while (at < text.length && !isSpace(text[at]) && !",}]".includes(text[at] ?? "")) at++
    return at
  }
  let depth = 0
  let at = from
  while (at < text.length) {
    const char = text[at]
    if (char === '"') {
      at = skipString(text, at)
      continue
    }
    if (char === "{" || char === "[") depth++
    else if (char === "}" || char === "]") {
      depth--
      if (depth === 0) return at + 1
    }
    at++
  }
  return at
}

/** The members of the object (or the elements of the array, keyed by index) that opens at `open`. */
const scan = (text: string, open: number): Container => {
  const isObject = text[open] === "{"
  const members: Array<Member> = []
  let at = skipSpace(text, open + 1)
  while (at < text.length && text[at] !== "}" && text[at] !== "]") {
    if (text[at] === ",") {
      at = skipSpace(text, at + 1)
      continue
    }
    const keyStart = at
    let key = String(members.length)
    if (isObject) {
      const keyEnd = skipString(text, at)
      key = JSON.parse(text.slice(at, keyEnd)) as string
      at = skipSpace(text, skipSpace(text, keyEnd) + 1)
    }
    const valueEnd = skipValue(text, at)
    members.push({ key, keyStart, valueStart: at, valueEnd })
    at = skipSpace(text, valueEnd)
  }
  return { open, close: at, members }
}

/** The container at `path` from the root value, or the first key of the path that is missing. */
const find = (
  text: string,
  path: ReadonlyArray<string>
): { readonly found: Container } | { readonly missing: number; readonly parent: Container } => {
  let container = scan(text, skipSpace(text, 0))
  for (let depth = 0; depth < path.length; depth++) {
    const member = container.members.find((candidate) => candidate.key === path[depth])
    if (member === undefined || !"{[".includes(text[member.valueStart] ?? ""))
      return { missing: depth, parent: container }
    container = scan(text, member.valueStart)
  }
  return { found: container }
}

const lineStart = (text: string, at: number) => text.lastIndexOf("\n", at - 1) + 1

const indentAt = (text: string, at: number) => /^[ \t]*/.exec(text.slice(lineStart(text, at)))?.[0] ?? ""

/** How the file writes line ends and one level of indentation. */
const styleOf = (text: string) => {
  const eol = text.includes("\r\n") ? "\r\n" : "\n"
  const indented = /\n([ \t]+)\S/.exec(text)?.[1] ?? "  "
  return { eol, unit: indented.startsWith("\t") ? "\t" : " ".repeat(Math.min(indented.length, 4)) }
}

const serialize = (value: unknown, text: string, indent: string, compact: boolean) => {
  if (compact) return JSON.stringify(value)
  const { eol, unit } = styleOf(text)
  return JSON.stringify(value, null, unit).split("\n").join(`${eol}${indent}`)
}

const splice = (text: string, from: number, to: number, insert: string) =>
  `${text.slice(0, from)}${insert}${text.slice(to)}`

const onOneLine = (text: string, container: Container) => !text.slice(container.open, container.close).includes("\n")

/** Inserts `entry` (a member's text, or an element's) as the last of `container`. */
const append = (text: string, scanned: string, container: Container, entry: (indent: string) => string) => {
  const { eol, unit } = styleOf(text)
  const last = container.members.at(-1)
  if (last === undefined) {
    // Right after the opening bracket: whatever is inside (a comment) stays, below it.
    if (onOneLine(scanned, container)) return splice(text, container.open + 1, container.open + 1, entry(""))
    const inner = `${indentAt(text, container.open)}${unit}`
    return splice(text, container.open + 1, container.open + 1, `${eol}${inner}${entry(inner)}`)
  }
  if (onOneLine(scanned, container)) return splice(text, last.valueEnd, last.valueEnd, `, ${entry("")}`)
  const indent = indentAt(text, last.keyStart)
  // After the last entry's comma if it has one (a trailing comma), else after its value.
  const comma = scanned[skipSpace(scanned, last.valueEnd)] === "," ? skipSpace(scanned, last.valueEnd) : undefined
  const after = comma === undefined ? last.valueEnd : comma + 1
  // A comment after it on its line stays there: the new entry starts on the next line.
  const lineEnd = scanned.indexOf("\n", after)
  const restBlank = lineEnd !== -1 && lineEnd < container.close && scanned.slice(after, lineEnd).trim() === ""
  const at = restBlank ? lineEnd - (text[lineEnd - 1] === "\r" ? 1 : 0) : after
  const added = splice(text, at, at, `${eol}${indent}${entry(indent)}${comma === undefined ? "" : ","}`)
  return comma === undefined ? splice(added, last.valueEnd, last.valueEnd, ",") : added
}

const memberText = (key: string, value: unknown, text: string, compact: boolean) => (indent: string) =>
  `${JSON.stringify(key)}: ${serialize(value, text, indent, compact)}`

/**
 * Sets `key` of the object at `path` (objects on the way are created) to `value`: its value is
 * replaced where it exists, else it is added as the object's last member, in the file's style.
 */
export const setMember = (text: string, path: ReadonlyArray<string>, key: string, value: unknown): string => {
  const scanned = stripComments(text)
  const located = find(scanned, path)
  if ("missing" in located) {
    // Build the rest of the path as one value and add it where the path stops.
    const rest = path.slice(located.missing + 1)
    const nested = [...rest, key].reduceRight<unknown>((inner, name) => ({ [name]: inner }), value)
    const name = path[located.missing] as string
    return put(text, scanned, located.parent, name, nested, onOneLine(scanned, located.parent))
  }
  return put(text, scanned, located.found, key, value, onOneLine(scanned, located.found))
}

/** Replaces the value of `key` in `container`, or appends the member when it has none. */
const put = (text: string, scanned: string, container: Container, key: string, value: unknown, compact: boolean) => {
  const existing = container.members.find((member) => member.key === key)
  if (existing === undefined) return append(text, scanned, container, memberText(key, value, text, compact))
  return splice(
    text,
    existing.valueStart,
    existing.valueEnd,
    serialize(value, text, indentAt(text, existing.keyStart), compact)
  )
}

/** Appends `value` to the array at `path` (created, with the objects on the way, when missing). */
export const appendElement = (text: string, path: ReadonlyArray<string>, value: unknown): string => {
  const scanned = stripComments(text)
  const located = find(scanned, path)
  if ("missing" in located || text[located.found.open] !== "[")
    return setMember(text, path.slice(0, -1), path.at(-1) ?? "", [value])
  const container = located.found
  return append(text, scanned, container, (indent) => serialize(value, text, indent, onOneLine(scanned, container)))
}

/**
 * Removes `key` from the object at `path` (nothing when absent): its line goes with it when it
 * has the line to itself (a comment after it on that line too), and the comma that joined it.
 */
export const removeMember = (text: string, path: ReadonlyArray<string>, key: string): string => {
  const scanned = stripComments(text)
  const located = find(scanned, path)
  if ("missing" in located) return text
  const { members } = located.found
  const index = members.findIndex((member) => member.key === key)
  const member = members[index]
  if (member === undefined) return text
  const next = skipSpace(scanned, member.valueEnd)
  const hasComma = scanned[next] === ","
  let end = hasComma ? next + 1 : member.valueEnd
  let start = member.keyStart
  const ownLine = scanned.slice(lineStart(scanned, start), start).trim() === ""
  const lineEnd = scanned.indexOf("\n", end)
  const previous = members[index - 1]
  if (ownLine && lineEnd !== -1 && scanned.slice(end, lineEnd).trim() === "") {
    start = lineStart(scanned, start)
    end = lineEnd + 1
  } else if (!ownLine) {
    // On a line with others: the spaces after it go too, or (the last one) everything since the one before.
    if (hasComma) end = skipSpace(scanned, end)
    else if (previous !== undefined && text.slice(previous.valueEnd, end) === scanned.slice(previous.valueEnd, end))
      return splice(text, previous.valueEnd, end, "")
  }
  const removed = splice(text, start, end, "")
  // The last member had no comma of its own: the one before it goes.
  if (hasComma || previous === undefined) return removed
  const comma = skipSpace(scanned, previous.valueEnd)
  return scanned[comma] === "," ? splice(removed, comma, comma + 1, "") : removed
}
