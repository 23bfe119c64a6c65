/**
 * How many columns text takes on a terminal, for aligning and wrapping: control sequences take
 * none, combining marks and joiners none, East Asian wide and fullwidth characters and emoji
 * two, everything else one. Plain code, so that help can use it without loading effect.
 */

// CSI and OSC sequences (our own colours, say): drawn as nothing.
const SEQUENCE = new RegExp(`${String.fromCharCode(27)}(?:\\[[0-9;?]*[ -/]*[@-~]|\\][^\\u0007]*\\u0007)`, "g")
const ZERO = /^(?:\p{Mn}|\p{Me}|[\u200b-\u200f]|\u2060|[\ufe00-\ufe0f])$/u
const EMOJI = /\p{Extended_Pictographic}/u

/** Whether a code point is East Asian wide or fullwidth (Unicode's EastAsianWidth W and F). */
const wide = (code: number): boolean =>
  (code >= 0x1100 && code <= 0x115f) ||
  (code >= 0x2e80 && code <= 0x303e) ||
  (code >= 0x3041 && code <= 0x33ff) ||
  (code >= 0x3400 && code <= 0x4dbf) ||
  (code >= 0x4e00 && code <= 0x9fff) ||
  (code >= 0xa000 && code <= 0xa4cf) ||
  (code >= 0xac00 && code <= 0xd7a3) ||
  (code >= 0xf900 && code <= 0xfaff) ||
  (code >= 0xfe30 && code <= 0xfe4f) ||
  (code >= 0xff00 && code <= 0xff60) ||
  (code >= 0xffe0 && code <= 0xffe6) ||
  (code >= 0x20000 && code <= 0x3fffd)

const columnsOf = (character: string): number => {
  if (ZERO.test(character)) return 0
  const code = character.codePointAt(0) ?? 0
  // A pictograph at or above U+1F000 is drawn as emoji, two columns; older symbols (☺, ✔) are text.
  return wide(code) || (code >= 0x1f000 && EMOJI.test(character)) ? 2 : 1
}

/** The columns `text` takes (one line). */
export const width = (text: string): number => {
  let columns = 0
  for (const character of text.replace(SEQUENCE, "")) columns += columnsOf(character)
  return columns
}

/** `text` padded with spaces to `columns` (as it is when it is that wide already). */
export const padEnd = (text: string, columns: number): string =>
  `${text}${" ".repeat(Math.max(0, columns - width(text)))}`

/** `text` (without control sequences) in pieces of at most `columns` columns each. */
export const pieces = (text: string, columns: number): ReadonlyArray<string> => {
  const out: Array<string> = []
  let piece = ""
  let taken = 0
  for (const character of text) {
    const size = columnsOf(character)
    if (taken + size > Math.max(1, columns) && piece !== "") {
      out.push(piece)
      piece = ""
      taken = 0
    }
    piece += character
    taken += size
  }
  if (piece !== "") out.push(piece)
  return out
}
