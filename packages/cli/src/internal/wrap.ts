/** Wrapping text to a width: plain code, so that help can use it without loading effect. */
import { sanitize } from "./controls.js"
import { pieces, width as widthOf } from "./textWidth.js"

/** Collapses whitespace and wraps text to `width` columns (as a terminal counts them), between words. */
export const wrap = (text: string, width: number): ReadonlyArray<string> => {
  const lines: Array<string> = []
  let line = ""
  let used = 0
  // A word longer than a whole line is cut into pieces that fit.
  const words = sanitize(text)
    .replace(/\s+/g, " ")
    .trim()
    .split(" ")
    .flatMap((word) => (widthOf(word) <= width ? [word] : pieces(word, width)))
  for (const word of words) {
    if (word === "") continue
    const size = widthOf(word)
    if (line !== "" && used + 1 + size > width) {
      lines.push(line)
      line = word
      used = size
    } else {
      used = line === "" ? size : used + 1 + size
      line = line === "" ? word : `${line} ${word}`
    }
  }
  if (line !== "") lines.push(line)
  return lines
}
