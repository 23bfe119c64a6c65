/**
 * The `effect-mcp` process: parses the command line (the words after `--` are a stdio server
 * to run), runs the command, and exits with its code: 0 success, 1 the tool reported an
 * error, 2 usage or config error, 3 connection or protocol failure, 130 interrupted by Ctrl-C
 * (SIGINT; it cancels the running request, closes the server, then prints one line saying what
 * was cancelled), 143 terminated (SIGTERM; the same, silently).
 */

import * as ValidationError from "@effect/cli/ValidationError"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import { helpTree, run } from "./Cli.js"
import { ExitCode } from "./CliError.js"
import { TrailingCommand } from "./CommonOptions.js"
import * as Help from "./Help.js"
import { sanitize } from "./internal/controls.js"
import * as Signals from "./internal/signals.js"
import { clientInfo } from "./Session.js"

const signal = Signals.watch()

// A closed pipe (`effect-mcp tools list | head`) ends the output, not the program with a crash.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0)
})

// @effect/cli colours its help and messages always; colours belong on a terminal only.
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;?]*[A-Za-z]`, "g")
const plain = (stream: NodeJS.WriteStream) => {
  if (stream.isTTY === true && process.env.NO_COLOR === undefined) return
  const write = stream.write.bind(stream) as (chunk: unknown, ...rest: Array<unknown>) => boolean
  stream.write = ((chunk: unknown, ...rest: Array<unknown>) =>
    write(typeof chunk === "string" ? chunk.replace(ANSI, "") : chunk, ...rest)) as typeof stream.write
}
plain(process.stdout)
plain(process.stderr)

const dash = process.argv.indexOf("--", 2)
const argv = dash === -1 ? process.argv : process.argv.slice(0, dash)
const trailing = dash === -1 ? [] : process.argv.slice(dash + 1)

const codeOf = (exit: Exit.Exit<unknown, unknown>): number => {
  if (Exit.isSuccess(exit)) return ExitCode.ok
  if (Cause.isInterruptedOnly(exit.cause)) {
    const received = signal()
    if (received === "SIGINT") process.stderr.write(`cancelled: ${Signals.activity(argv.slice(2))}\n`)
    return received === undefined ? ExitCode.interrupted : Signals.exitCode(received)
  }
  const failure = Cause.failureOption(exit.cause)
  if (Option.isSome(failure)) {
    const error = failure.value
    if (typeof error === "object" && error !== null && "_tag" in error && error._tag === "Exit" && "code" in error)
      return Number(error.code)
    if (ValidationError.isValidationError(error)) return ExitCode.usage
  }
  process.stderr.write(`internal error: ${sanitize(Cause.pretty(exit.cause))}\n`)
  return ExitCode.connection
}

// Help and mistyped commands are answered here, before @effect/cli parses (see Help.ts).
// A terminal that reports no size (0 columns: a bare pty) wraps at 80.
const width =
  process.stdout.isTTY === true
    ? Math.max(40, (process.stdout.columns ?? 0) > 0 ? process.stdout.columns : 80)
    : Number.POSITIVE_INFINITY
const intercepted = Help.intercept(helpTree, argv.slice(2), clientInfo.version, width)
if (intercepted !== undefined) {
  ;(intercepted.toStderr ? process.stderr : process.stdout).write(`${intercepted.text}\n`)
  process.exitCode = intercepted.code
} else
  run(argv).pipe(
    Effect.provideService(TrailingCommand, trailing),
    Effect.provide(NodeContext.layer),
    NodeRuntime.runMain({
      disableErrorReporting: true,
      // Its pretty logger writes to stdout; the commands log to stderr (Logging.ts).
      disablePrettyLogger: true,
      teardown: (exit, onExit) => onExit(codeOf(exit))
    })
  )
