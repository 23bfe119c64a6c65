/**
 * Where the shell reads its commands. On a terminal: one `node:readline` line editor per
 * line (so that prompts a command opens, such as elicitation, have the terminal to
 * themselves), with history, Ctrl-R searching it, tab completion, Ctrl-C clearing the line and Ctrl-D on an empty
 * line ending the session; lines printed meanwhile go above the prompt and the typed line is
 * drawn again. Off a terminal: stdin's lines, one after the other, without a prompt. The same
 * editor reads one answer ({@link edit}: an elicitation form's text field).
 */
import {
  type AsyncCompleter,
  createInterface,
  type Interface,
  type Completer as ReadlineCompleter
} from "node:readline"
import { PassThrough } from "node:stream"
import { StringDecoder } from "node:string_decoder"
import * as Terminal from "@effect/platform/Terminal"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Mailbox from "effect/Mailbox"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import { width } from "../internal/textWidth.js"
import * as ReverseSearch from "./ReverseSearch.js"

/** Reads lines and prints between them. */
export interface LineReader {
  /** Shows `prompt` and reads a line; `None` at the end (Ctrl-D, or the end of input). */
  readonly read: (prompt: string) => Effect.Effect<Option.Option<string>>
  /** Prints a line above the prompt being edited, or plainly when none is. */
  readonly above: (text: string) => Effect.Effect<void>
  /** The history, newest first (including the lines read). */
  readonly history: () => ReadonlyArray<string>
}

/**
 * The terminal's keys as the line editor reads them: through the reverse search (Ctrl-R), which
 * takes the keys of a search. A terminal to readline: raw mode is the real terminal's.
 */
class SearchedKeys extends PassThrough {
  readonly isTTY = true
  private onData: ((chunk: Buffer) => void) | undefined
  private search: ReverseSearch.ReverseSearch | undefined
  // Once a key has entered the line, the keys after it are the next lines' (see `open`).
  private entered = false
  // A character split between two reads is decoded whole.
  private readonly decoder = new StringDecoder("utf8")
  // The terminal's end is the editor's (a closed terminal ends the session).
  private readonly onEnd = () => {
    this.end()
  }
  constructor(
    private readonly terminal: typeof process.stdin,
    private readonly rest: ((keys: string) => void) | undefined
  ) {
    super()
  }
  get isRaw(): boolean {
    return this.terminal.isRaw
  }
  setRawMode(mode: boolean): this {
    this.terminal.setRawMode(mode)
    return this
  }
  start(search: ReverseSearch.ReverseSearch | undefined): void {
    this.search = search
    this.onData = (chunk) => this.type(this.decoder.write(chunk))
    this.terminal.on("data", this.onData)
    this.terminal.once("end", this.onEnd)
    this.terminal.resume()
  }
  /**
   * Keys as if typed now (read from the terminal, or left from the last line), decoded by the
   * editor; with `rest`, the keys after the first Enter go there instead.
   */
  type(keys: string): void {
    let line = keys
    if (this.rest !== undefined) {
      const end = this.entered ? 0 : keys.search(/[\r\n]/) + 1
      if (end > 0 || this.entered) {
        this.entered = true
        line = keys.slice(0, end)
        if (end < keys.length) this.rest(keys.slice(end))
      }
    }
    const passed = this.search === undefined ? line : this.search.filter(line)
    // One key per write: readline takes several keys at once for a paste, and inserts a paste at
    // the end of the line wherever the cursor is (Node 20): `abc`, Home, `x` gave `abcx`.
    for (const key of ReverseSearch.keysOf(passed)) this.write(key)
  }
  stop(): void {
    if (this.onData !== undefined) this.terminal.removeListener("data", this.onData)
    this.terminal.removeListener("end", this.onEnd)
    this.onData = undefined
    this.terminal.pause()
  }
}

/** How a line is completed: the candidates for its last word, and that word (as readline takes them). */
export type Completer = (line: string) => Effect.Effect<readonly [ReadonlyArray<string>, string]>

/**
 * One line editor on the process's terminal, its keys read through `search` when there is one.
 * readline binds the keys a shell has (Ctrl-A/E, Ctrl-U/K, Ctrl-W, arrows, Home/End, Backspace,
 * Delete, Alt-B/F) and inserts no other control key.
 */
const open = (settings: {
  readonly prompt: string
  /** The shell's history, which readline extends (none: Up and Down do nothing). */
  readonly history?: Array<string>
  readonly completer: ReadlineCompleter | AsyncCompleter
  readonly search?: (rl: Interface) => ReverseSearch.ReverseSearch
  /**
   * Takes the keys after the first Enter, for the next lines: keys typed ahead reach the terminal
   * at once when the editor opens (none: they go to this editor).
   */
  readonly rest?: (keys: string) => void
}) => {
  const keys = new SearchedKeys(process.stdin, settings.rest)
  const rl = createInterface({
    input: keys,
    output: process.stdout,
    terminal: true,
    history: settings.history ?? [],
    historySize: settings.history === undefined ? 0 : 1000,
    removeHistoryDuplicates: true,
    completer: settings.completer,
    prompt: settings.prompt
  })
  keys.start(settings.search?.(rl))
  rl.on("close", () => keys.stop())
  return { rl, keys }
}

/** A line entered with {@link edit}. */
export interface Entered {
  readonly line: string
  /** Draws `text` (one line) in place of the prompt and the line as entered; the cursor goes below it. */
  readonly redraw: (text: string) => Effect.Effect<void>
}

/**
 * Reads one line on the terminal with the shell's line editor, `initial` already typed (Tab types
 * `suggestion` on an empty line). Ctrl-C, or Ctrl-D on an empty line, fails with `QuitException`,
 * as in the other prompts. Nothing but the line is kept: no history, no completion.
 */
export const edit = (
  prompt: string,
  initial: string,
  suggestion = ""
): Effect.Effect<Entered, Terminal.QuitException> =>
  Effect.async<Entered, Terminal.QuitException>((resume) => {
    let done = false
    const { rl } = open({
      prompt,
      completer: (line: string): [Array<string>, string] => [line === "" && suggestion !== "" ? [suggestion] : [], line]
    })
    const finish = (result: Effect.Effect<Entered, Terminal.QuitException>) => {
      if (done) return
      done = true
      resume(result)
      rl.close()
    }
    rl.on("line", (line) => {
      // readline has moved below the rows that the prompt and the line take.
      const columns = (process.stdout.columns ?? 0) > 0 ? process.stdout.columns : 80
      const rows = Math.max(1, Math.ceil(width(prompt + line) / columns))
      finish(
        Effect.succeed({
          line,
          redraw: (text) => Effect.sync(() => process.stdout.write(`\x1b[${rows}A\r\x1b[J${text}\n`))
        })
      )
    })
    rl.on("SIGINT", () => finish(Effect.fail(new Terminal.QuitException())))
    rl.on("close", () => finish(Effect.fail(new Terminal.QuitException())))
    rl.prompt()
    // As if typed (one line: a newline would enter it).
    if (initial !== "") rl.write(initial.replace(/[\r\n]+/g, " "))
    return Effect.sync(() => {
      done = true
      rl.close()
    })
  })

/** A reader on the process's terminal (stdin and stdout are TTYs). */
export const terminal = (settings: {
  readonly history: ReadonlyArray<string>
  readonly completer: Completer
  /** Prints a line when no line is being edited. */
  readonly print: (text: string) => Effect.Effect<void>
}): Effect.Effect<LineReader> =>
  Effect.sync(() => {
    let history = [...settings.history]
    let active: Interface | undefined
    // Keys typed while a command ran wait on the terminal (unechoed, see internal/terminalEcho.ts)
    // and come at once when the next editor opens: the lines after the first, one per prompt.
    let later = ""
    const read = (prompt: string) =>
      Effect.suspend(() => {
        const keys = later
        later = ""
        return readLine(prompt, keys)
      })
    const readLine = (prompt: string, typed: string) =>
      Effect.async<Option.Option<string>>((resume) => {
        let done = false
        const finish = (line: Option.Option<string>) => {
          if (done) return
          done = true
          active = undefined
          resume(Effect.succeed(line))
          rl.close()
        }
        const { rl, keys } = open({
          prompt,
          history,
          completer: (line: string, callback: (error: null, result: [Array<string>, string]) => void) =>
            Effect.runCallback(settings.completer(line), {
              onExit: (exit) => callback(null, Exit.isSuccess(exit) ? [[...exit.value[0]], exit.value[1]] : [[], line])
            }),
          search: (rl) =>
            ReverseSearch.make({
              history: () => history,
              draw: (text) => process.stdout.write(`\r\x1b[2K${text}`),
              finish: (line) => {
                rl.prompt(true)
                if (line === undefined) return
                rl.write(null, { ctrl: true, name: "e" })
                rl.write(null, { ctrl: true, name: "u" })
                rl.write(line)
              }
            }),
          rest: (keys) => {
            later += keys
          }
        })
        active = rl
        rl.on("history", (lines: Array<string>) => {
          history = lines
        })
        rl.on("line", (line) => finish(Option.some(line)))
        rl.on("close", () => finish(Option.none()))
        // Ctrl-C at the prompt: the line is dropped, a fresh prompt shows, the session goes on.
        rl.on("SIGINT", () => {
          process.stdout.write("^C\n")
          rl.write(null, { ctrl: true, name: "e" })
          rl.write(null, { ctrl: true, name: "u" })
        })
        rl.prompt()
        // As if typed now (editing keys act, an Enter at the end runs the line).
        if (typed !== "") keys.type(typed)
        return Effect.sync(() => {
          done = true
          active = undefined
          rl.close()
        })
      })
    return {
      read,
      above: (text) =>
        Effect.suspend(() => {
          const rl = active
          if (rl === undefined) return settings.print(text)
          return Effect.sync(() => {
            process.stdout.write(`\r\x1b[2K${text}\n`)
            rl.prompt(true)
          })
        }),
      history: () => history
    }
  })

/** A reader of stdin's lines (a pipe or a file): no prompt, no editing. */
export const lines = (print: (text: string) => Effect.Effect<void>): Effect.Effect<LineReader, never, Scope.Scope> =>
  Effect.gen(function* () {
    const mailbox = yield* Mailbox.make<string>()
    yield* Effect.acquireRelease(
      Effect.sync(() => {
        const rl = createInterface({ input: process.stdin, terminal: false })
        rl.on("line", (line) => mailbox.unsafeOffer(line))
        rl.on("close", () => mailbox.unsafeDone(Exit.void))
        return rl
      }),
      (rl) => Effect.sync(() => rl.close())
    )
    const read: LineReader["read"] = () => Effect.option(mailbox.take)
    return { read, above: print, history: () => [] }
  })
