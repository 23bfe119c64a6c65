/**
 * Ctrl-R in the shell: a reverse incremental search of the history, as bash and zsh have it
 * (`node:readline` has none). It sits between the terminal and the line editor: outside a
 * search every key passes through; Ctrl-R starts one, and its keys are taken here: letters narrow
 * it, Ctrl-R again finds an older match, Backspace widens it, Enter runs the match, Esc or a
 * cursor key keeps it for editing, Ctrl-G or Ctrl-C gives up.
 */

/** What a search acts on. */
export interface Editor {
  /** The history, newest first. */
  readonly history: () => ReadonlyArray<string>
  /** Shows the search line in place of the prompt. */
  readonly draw: (text: string) => void
  /** Ends the search with `line` as the line being edited (`undefined`: the line as it was). */
  readonly finish: (line: string | undefined) => void
}

/** Takes the keys of a search out of the terminal's input. */
export interface ReverseSearch {
  /** The part of `keys` for the line editor (the rest was the search's). */
  readonly filter: (keys: string) => string
}

const CTRL_R = "\x12"
const ESC = "\x1b"
/** One key: an escape sequence (`ESC [ A`, `ESC O P`, Alt and a key) or one character. */
const KEY = new RegExp(`${ESC}\\[[0-9;]*[A-Za-z~]|${ESC}O[A-Za-z]|${ESC}.?|[\\s\\S]`, "gu")

/** The keys in `typed`, one by one (an escape sequence is one key). */
export const keysOf = (typed: string): ReadonlyArray<string> => typed.match(KEY) ?? []

/** A reverse search on `editor`. */
export const make = (editor: Editor): ReverseSearch => {
  let search: { query: string; found: number | undefined } | undefined
  const matchAt = (query: string, from: number) => {
    const history = editor.history()
    for (let index = from; index < history.length; index++) if (history[index]?.includes(query)) return index
    return undefined
  }
  const show = () => {
    if (search === undefined) return
    const match = search.found === undefined ? undefined : editor.history()[search.found]
    editor.draw(
      `(${match === undefined && search.query !== "" ? "failed " : ""}reverse-i-search)'${search.query}': ${match ?? ""}`
    )
  }
  const end = (keep: boolean) => {
    const found = search?.found
    search = undefined
    editor.finish(keep && found !== undefined ? editor.history()[found] : undefined)
  }
  const key = (typed: string): string => {
    if (search === undefined) return typed
    if (typed === CTRL_R) {
      const older = search.found === undefined ? undefined : matchAt(search.query, search.found + 1)
      if (older !== undefined) search.found = older
    } else if (typed === "\x7f" || typed === "\b") {
      search.query = search.query.slice(0, -1)
      search.found = matchAt(search.query, 0)
    } else if (typed === "\x07" || typed === "\x03") end(false)
    else if (typed === "\r" || typed === "\n") {
      end(true)
      return "\r"
    } else if (typed === ESC) end(true)
    else if (typed.startsWith(ESC) || typed < " ") {
      // A cursor key or another control key: the match is kept and the key acts on it.
      end(true)
      return typed
    } else {
      search.query += typed
      search.found = matchAt(search.query, search.found ?? 0)
    }
    show()
    return ""
  }
  return {
    filter: (keys) => {
      let passed = ""
      for (const typed of keysOf(keys)) {
        if (search === undefined && typed === CTRL_R) {
          search = { query: "", found: undefined }
          show()
        } else passed += key(typed)
      }
      return passed
    }
  }
}
