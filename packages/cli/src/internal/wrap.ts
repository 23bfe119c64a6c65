/** Wrapping text to a width: plain code, so that help can use it without loading effect. */
import { sanitize } from "./controls.js"

/** Collapses whitespace and wraps text to `width` columns. */
export const wrap = (text: string, width: number): ReadonlyArray<string> => {
  const lines: Array<string> = []
  let line = ""
  // A word longer than a whole line is cut into pieces that fit.
  const words = sanitize(text)
    .replace(/\s+/g, " ")
    .trim()
    .split(" ")
    .flatMap((word) =>
      word.length <= width ? [word] : (word.match(new RegExp(`.{1,${Math.max(1, width)}}`, "gu")) ?? [word])
    )
  for (const word of words) {
    if (word === "") continue
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line)
      line = word
    } else line = line === "" ? word : `${line} ${word}`
  }
  if (line !== "") lines.push(line)
  return lines
}
