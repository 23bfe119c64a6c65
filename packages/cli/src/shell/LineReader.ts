/**
 * Where the shell reads its commands. On a terminal: one `node:readline` line editor per
 * line (so that prompts a command opens, such as elicitation, have the terminal to
 * themselves), with history, Ctrl-R searching it, tab completion, Ctrl-C clearing the line and Ctrl-D on an empty
 * line ending the session; lines printed meanwhile go above the prompt and the typed line is
 * drawn again. Off a terminal: stdin's lines, one after the other, without a prompt.
 */
import { createInterface, type Interface } from "node:readline"
import { PassThrough } from "node:stream"
import { StringDecoder } from "node:string_decoder"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Mailbox from "effect/Mailbox"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
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
  // A character split between two reads is decoded whole.
  private readonly decoder = new StringDecoder("utf8")
  // The terminal's end is the editor's (a closed terminal ends the session).
  private readonly onEnd = () => {
    this.end()
  }
  constructor(private readonly terminal: typeof process.stdin) {
    super()
  }
  get isRaw(): boolean {
    return this.terminal.isRaw
  }
  setRawMode(mode: boolean): this {
    this.terminal.setRawMode(mode)
    return this
  }
  start(search: ReverseSearch.ReverseSearch): void {
    this.search = search
    this.onData = (chunk) => this.type(this.decoder.write(chunk))
    this.terminal.on("data", this.onData)
    this.terminal.once("end", this.onEnd)
    this.terminal.resume()
  }
  /** Keys as if typed now (the type-ahead of the last command), decoded by the editor. */
  type(keys: string): void {
    const passed = this.search === undefined ? keys : this.search.filter(keys)
    if (passed !== "") this.write(passed)
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

/** A reader on the process's terminal (stdin and stdout are TTYs). */
export const terminal = (settings: {
  readonly history: ReadonlyArray<string>
  readonly completer: Completer
  /** Prints a line when no line is being edited. */
  readonly print: (text: string) => Effect.Effect<void>
  /** Keys typed while the last command ran: the next line starts with them. */
  readonly typedAhead: Effect.Effect<string>
}): Effect.Effect<LineReader> =>
  Effect.sync(() => {
    let history = [...settings.history]
    let active: Interface | undefined
    // Type-ahead beyond the first line: the lines after it, one per prompt.
    let later = ""
    const read = (prompt: string) =>
      Effect.flatMap(settings.typedAhead, (typed) => {
        const keys = later + typed
        const end = keys.search(/[\r\n]/)
        later = end === -1 ? "" : keys.slice(end + 1)
        return readLine(prompt, end === -1 ? keys : keys.slice(0, end + 1))
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
        const keys = new SearchedKeys(process.stdin)
        const rl = createInterface({
          input: keys,
          output: process.stdout,
          terminal: true,
          history,
          historySize: 1000,
          removeHistoryDuplicates: true,
          completer: (line: string, callback: (error: null, result: [Array<string>, string]) => void) =>
            Effect.runCallback(settings.completer(line), {
              onExit: (exit) => callback(null, Exit.isSuccess(exit) ? [[...exit.value[0]], exit.value[1]] : [[], line])
            }),
          prompt
        })
        active = rl
        keys.start(
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
          })
        )
        rl.on("close", () => keys.stop())
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
