/**
 * The `effect-mcp` process: parses the command line (the words after `--` are a stdio server
 * to run), runs the command, and exits with its code: 0 success, 1 the tool reported an
 * error, 2 usage or config error, 3 connection or protocol failure, 130 interrupted by Ctrl-C
 * (SIGINT; it cancels the running request, closes the server, then prints one line saying what
 * was cancelled), 143 terminated (SIGTERM; the same, silently).
 *
 * This module loads no `effect`: help, `--version` and "did you mean" are answered from plain
 * data (`Help.ts`), and only a command that runs imports the command tree (`internal/main.ts`).
 * Importing `effect`, `@effect/cli` and the client takes most of a second; `--help` needs none
 * of it.
 */

import type * as Help from "./Help.js"
import { intercept } from "./Help.js"
import { check } from "./internal/argvCheck.js"
import { embedded } from "./internal/helpData.js"
import * as Signals from "./internal/signals.js"
import * as StatusGate from "./internal/statusGate.js"
import * as TerminalEcho from "./internal/terminalEcho.js"
import { version } from "./internal/version.js"

// Keys typed from now on are not drawn over what the run prints; they wait on the terminal for
// the shell (the echo is back once the process exits, however it ends: see terminalEcho.ts).
process.once("exit", TerminalEcho.ofProcess().hold())

// A closed pipe (`effect-mcp tools list | head`) ends the output, not the program with a crash.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0)
})

// @effect/cli colours its help and messages always; colours belong on a terminal only. Off a
// terminal every control sequence goes; on one with NO_COLOR only the colours (erasing a line and
// moving the cursor still draw prompts and the live line).
const ESC = String.fromCharCode(27)
const ANSI = new RegExp(`${ESC}\\[[0-9;?]*[A-Za-z]`, "g")
const COLOURS = new RegExp(`${ESC}\\[[0-9;]*m`, "g")
const plain = (stream: NodeJS.WriteStream) => {
  if (stream.isTTY === true && process.env.NO_COLOR === undefined) return
  const sequences = stream.isTTY === true ? COLOURS : ANSI
  const write = stream.write.bind(stream) as (chunk: unknown, ...rest: Array<unknown>) => boolean
  stream.write = ((chunk: unknown, ...rest: Array<unknown>) =>
    write(typeof chunk === "string" ? chunk.replace(sequences, "") : chunk, ...rest)) as typeof stream.write
}
plain(process.stdout)
plain(process.stderr)

const dash = process.argv.indexOf("--", 2)
const argv = dash === -1 ? process.argv : process.argv.slice(0, dash)
const trailing = dash === -1 ? [] : process.argv.slice(dash + 1)

// Ctrl-C says what it cancelled at once (on a terminal over the live line, which it erases); the
// server is shut down after, however long that takes.
const signal = Signals.watch(() => {
  StatusGate.close()
  process.stderr.write(`${Signals.cancelledLine(Signals.activity(argv.slice(2)), process.stderr.isTTY === true)}\n`)
})

// Embedded by the bundler; unbundled (tsc's `dist/bin.js`), read from the command tree.
const catalogue = async (): Promise<Help.Catalogue> => embedded ?? (await import("./Cli.js")).helpCatalogue()

// Help, the version and mistyped commands are answered here, before @effect/cli parses (see
// Help.ts). A terminal that reports no size (0 columns: a bare pty) wraps at 80.
const width =
  process.stdout.isTTY === true
    ? Math.max(40, (process.stdout.columns ?? 0) > 0 ? process.stdout.columns : 80)
    : Number.POSITIVE_INFINITY
const known = await catalogue()
// Options are checked against the command's (unknown ones, missing and mistyped values), and
// options given before the command are moved after it, before @effect/cli parses (argvCheck.ts).
const checked = check(known, argv.slice(2))
const intercepted: Help.Intercepted | undefined =
  checked._tag === "Refused"
    ? { text: checked.text, toStderr: true, code: 2 }
    : intercept(known, checked.words, version, width)
if (intercepted !== undefined) {
  ;(intercepted.toStderr ? process.stderr : process.stdout).write(`${intercepted.text}\n`)
  process.exitCode = intercepted.code
} else if (checked._tag === "Run")
  (await import("./internal/main.js")).main([...argv.slice(0, 2), ...checked.words], trailing, signal)
