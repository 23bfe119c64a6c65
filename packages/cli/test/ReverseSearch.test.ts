/**
 * Ctrl-R's search, on a stand-in line editor: what it draws, what it hands back to the editor,
 * and which keys it lets through.
 */
import { describe, expect, it } from "@effect/vitest"
import * as ReverseSearch from "../src/shell/ReverseSearch.js"

const editor = (history: ReadonlyArray<string>) => {
  const seen = { drawn: [] as Array<string>, finished: [] as Array<string | undefined> }
  const search = ReverseSearch.make({
    history: () => history,
    draw: (text) => void seen.drawn.push(text),
    finish: (line) => void seen.finished.push(line)
  })
  return { seen, search }
}

describe("ReverseSearch", () => {
  const history = ["tools call get-sum a=1", "ping", "tools list", "prompts get simple"]

  it("lets every key through outside a search", () => {
    const { search, seen } = editor(history)
    expect(search.filter("abc\x1b[A\r")).toBe("abc\x1b[A\r")
    expect(seen).toStrictEqual({ drawn: [], finished: [] })
  })

  it("narrows as letters come, finds older matches with Ctrl-R, runs the match with Enter", () => {
    const { search, seen } = editor(history)
    expect(search.filter("\x12too")).toBe("")
    expect(seen.drawn.at(-1)).toBe("(reverse-i-search)'too': tools call get-sum a=1")
    expect(search.filter("\x12")).toBe("")
    expect(seen.drawn.at(-1)).toBe("(reverse-i-search)'too': tools list")
    // No older one: it stays.
    search.filter("\x12")
    expect(seen.drawn.at(-1)).toBe("(reverse-i-search)'too': tools list")
    expect(search.filter("\rnext")).toBe("\rnext")
    expect(seen.finished).toStrictEqual(["tools list"])
  })

  it("says when nothing matches; Backspace widens; Ctrl-G gives up with the line as it was", () => {
    const { search, seen } = editor(history)
    search.filter("\x12pingx")
    expect(seen.drawn.at(-1)).toBe("(failed reverse-i-search)'pingx': ")
    search.filter("\x7f")
    expect(seen.drawn.at(-1)).toBe("(reverse-i-search)'ping': ping")
    expect(search.filter("\x07")).toBe("")
    expect(seen.finished).toStrictEqual([undefined])
  })

  it("Esc keeps the match for editing; a cursor key keeps it and acts on it", () => {
    const { search, seen } = editor(history)
    expect(search.filter("\x12ping\x1b")).toBe("")
    expect(search.filter("\x12prompts\x1b[D")).toBe("\x1b[D")
    expect(seen.finished).toStrictEqual(["ping", "prompts get simple"])
  })
})
