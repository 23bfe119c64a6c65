/**
 * Where to cut a text that is too long: the longest prefix whose JSON form fits a byte budget,
 * then back to the nearest boundary. Boundaries, in order of preference, searched in a window
 * before the limit (its last fifth, at least 40 and at most 2,000 characters): the end of a
 * paragraph (a blank line), of a line, of a sentence, of a word (before white space), after a
 * punctuation mark or symbol (minified JSON, paths); only a text with none of those in the
 * window is cut between two code points (never inside a surrogate pair, never before a
 * combining mark or a joiner). The kept part never ends in white space. Used by the host's
 * result budget (`maxResultBytes`) and by the chat's.
 *
 * @since 0.1.0
 */

/** The size in UTF-8 of one code point written inside a JSON string (as `JSON.stringify` writes it). */
const escapedBytes = (code: number): number => {
  if (code === 0x22 || code === 0x5c) return 2
  if (code < 0x20) return code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d ? 2 : 6
  if (code < 0x80) return 1
  if (code < 0x800) return 2
  if (code >= 0xd800 && code <= 0xdfff) return 6
  if (code < 0x10000) return 3
  return 4
}

/**
 * The size in UTF-8 of a text written as a JSON string, without its quotes.
 *
 * @since 0.1.0
 * @category measuring
 */
export const jsonBytes = (text: string): number => Buffer.byteLength(JSON.stringify(text), "utf8") - 2

/**
 * The longest prefix (ending between code points) whose JSON form takes at most `maxBytes`: its length.
 *
 * @since 0.1.0
 * @category measuring
 */
export const fitPrefix = (text: string, maxBytes: number): number => {
  let used = 0
  let index = 0
  while (index < text.length) {
    const code = text.codePointAt(index) ?? 0
    const isPair = code > 0xffff
    // A lone surrogate is one code unit, escaped on its own.
    const cost = escapedBytes(isPair ? code : text.charCodeAt(index))
    if (used + cost > maxBytes) break
    used += cost
    index += isPair ? 2 : 1
  }
  return index
}

const SURROGATE = /[\ud800-\udfff]/

/**
 * The number of code points of a text.
 *
 * @since 0.1.0
 * @category measuring
 */
export const codePoints = (text: string): number => {
  if (!SURROGATE.test(text)) return text.length
  let count = 0
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index)
    const next = text.charCodeAt(index + 1)
    if (unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) index++
    count++
  }
  return count
}

/**
 * How far back from the limit a boundary is looked for.
 *
 * @since 0.1.0
 * @category measuring
 */
export const windowOf = (limit: number): number => Math.min(limit, Math.min(2000, Math.max(40, Math.ceil(limit / 5))))

const SPACE = /\s/u
const PUNCTUATION = /[\p{P}\p{S}]/u
const SENTENCE_END = /[.!?…]["'”’)\]]?$/u
const FULL_STOP = /[。！？]/u
// Characters that belong to the code point before them: combining marks, variation selectors, joiners.
const ATTACHED = /\p{M}|\u200c|\u200d|[\ufe00-\ufe0f]/u

const isSpace = (char: string | undefined): boolean => char !== undefined && SPACE.test(char)

/** Moves a cut back over white space, so the kept part ends in something visible. */
const trimBack = (text: string, at: number): number => {
  let index = at
  while (index > 0 && isSpace(text[index - 1])) index--
  return index
}

type Rule = (text: string, at: number) => boolean

const rules: ReadonlyArray<Rule> = [
  // A paragraph ends: a blank line follows.
  (text, at) => text[at] === "\n" && /^\n[^\S\n]*\n/u.test(text.slice(at, at + 64)),
  // A line ends.
  (text, at) => text[at] === "\n" || text[at] === "\r",
  // A sentence ends.
  (text, at) =>
    (isSpace(text[at]) && SENTENCE_END.test(text.slice(Math.max(0, at - 2), at))) ||
    (FULL_STOP.test(text[at - 1] ?? "") && !ATTACHED.test(text[at] ?? "")),
  // A word ends.
  (text, at) => isSpace(text[at]),
  // After a punctuation mark or a symbol.
  (text, at) => PUNCTUATION.test(text[at - 1] ?? "") && !ATTACHED.test(text[at] ?? "")
]

/** Between two code points, not before a mark or joiner that belongs to the one before. */
const codePointCut = (text: string, limit: number): number => {
  let at = limit
  const isLow = (index: number) => {
    const unit = text.charCodeAt(index)
    return unit >= 0xdc00 && unit <= 0xdfff
  }
  const isHigh = (index: number) => {
    const unit = text.charCodeAt(index)
    return unit >= 0xd800 && unit <= 0xdbff
  }
  while (at > 0 && ((isLow(at) && isHigh(at - 1)) || ATTACHED.test(text[at] ?? "") || text[at - 1] === "\u200d")) at--
  return at
}

/**
 * Where to cut `text` so that at most `limit` code units are kept: `limit` itself when the text
 * is no longer, else the best boundary at or before it (see the module's rules).
 *
 * @since 0.1.0
 * @category measuring
 */
export const boundary = (text: string, limit: number): number => {
  if (limit >= text.length) return text.length
  const from = limit - windowOf(limit)
  for (const rule of rules) {
    for (let at = limit; at > from; at--) {
      if (!rule(text, at)) continue
      const cut = trimBack(text, at)
      if (cut > 0) return cut
    }
  }
  return trimBack(text, codePointCut(text, limit))
}

/**
 * Where to cut `text` so that its kept part, written as JSON, takes at most `maxBytes`.
 *
 * @since 0.1.0
 * @category measuring
 */
export const cutFor = (text: string, maxBytes: number): number => boundary(text, fitPrefix(text, maxBytes))
