/**
 * An interactive session on one connection (`effect-mcp shell`, `effect-mcp host shell`):
 * reads commands with line editing, history (persisted per server) and tab completion, runs
 * each one, and prints the server's notifications above the prompt meanwhile. Ctrl-C cancels
 * the running command (its request is cancelled) and the session goes on; at the prompt it
 * drops the line; Ctrl-D on an empty line (or `exit`) ends the session.
 */
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import { McpError } from "@effect-mcp/client"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { type CliFailure, describe, Exit as Ending, ExitCode, exitCodeOf, serverOf } from "../CliError.js"
import { sanitize } from "../internal/controls.js"
import { cancelledLine } from "../internal/signals.js"
import { splitCommandLine } from "../internal/words.js"
import { dim, Output, Styled } from "../Output.js"
import { ServerNames } from "../ServerNames.js"
import { type Ask, answered, complete, type Vocabulary } from "./Completion.js"
import * as History from "./History.js"
import * as LineReader from "./LineReader.js"

/** What a session talks to: one server, or a host of them. */
export interface Target<R> {
  /** Names the history file and the prompt. */
  readonly name: string
  /** What tab completion offers now. */
  readonly vocabulary: Effect.Effect<Vocabulary>
  /** Signals that the vocabulary changed (a list changed). */
  readonly changes: Stream.Stream<unknown>
  /** The server's values for a prompt's argument or a template's variable (Tab), if it can give them. */
  readonly suggest?: (ask: Ask) => Effect.Effect<ReadonlyArray<string>>
  /** Lines to print as they come: logs, list changes, resource updates. */
  readonly notifications: Stream.Stream<string>
  /** What to warn about when the session starts (a host's servers that failed to start, and why). */
  readonly warnings: Effect.Effect<ReadonlyArray<string>>
  /** Runs one command line, already split into words. */
  readonly run: (words: ReadonlyArray<string>) => Effect.Effect<void, CliFailure, R>
  /**
   * Why the connection ended, once it has (a one-server session; a host restarts its servers):
   * `now`, and `changes` when it happens.
   */
  readonly ended?: { readonly now: Effect.Effect<Option.Option<string>>; readonly changes: Stream.Stream<string> }
}

/** The words that end a session. */
const EXIT = new Set(["exit", "quit", ".exit"])

/**
 * Takes over SIGINT for the session: Ctrl-C while a command runs interrupts that command
 * instead of the program. The process's own listeners are put back when the session ends.
 */
const ownInterrupts = (onInterrupt: () => void) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const previous = process.listeners("SIGINT")
      process.removeAllListeners("SIGINT")
      process.on("SIGINT", onInterrupt)
      return previous
    }),
    (previous) =>
      Effect.sync(() => {
        process.removeListener("SIGINT", onInterrupt)
        for (const listener of previous) process.on("SIGINT", listener)
      })
  )

/** A target with the scope its connection lives in. */
interface Attached<R> {
  readonly target: Target<R>
  readonly scope: Scope.CloseableScope
}

/** Whether `reconnect` opens the target again, or why it cannot (none: it is no command here). */
export type Reconnecting = { readonly reconnect: true } | { readonly reconnect: false; readonly why?: string }

/**
 * The session's line reader: on a terminal, with line editing, the server's history and Tab
 * completion (the server's own values asked for, bounded); otherwise plain lines.
 */
const readerFor = <R>(
  interactive: boolean,
  file: string,
  vocabulary: Ref.Ref<Vocabulary>,
  current: Ref.Ref<Attached<R>>,
  print: (text: string) => Effect.Effect<void>
) =>
  interactive
    ? Effect.flatMap(History.load(file), (history) =>
        LineReader.terminal({
          history,
          completer: (line) => {
            const completion = complete(line, Effect.runSync(Ref.get(vocabulary)))
            if (completion._tag === "Candidates") return Effect.succeed([completion.candidates, completion.word])
            // Bounded: a server that does not answer leaves the line as it is.
            return Ref.get(current).pipe(
              Effect.flatMap(({ target }) => target.suggest?.(completion.ask) ?? Effect.succeed([])),
              Effect.timeoutTo({ duration: "3 seconds", onTimeout: () => [], onSuccess: (values) => values }),
              Effect.map((values) => [answered(completion.ask, values), completion.word] as const)
            )
          },
          print
        })
      )
    : LineReader.lines(print)

/** Says how a command failed (its error, its cancellation, or a defect) and gives the exit code it means. */
const reportFailure = (cause: Cause.Cause<CliFailure>, words: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const output = yield* Output
    const error = Cause.failureOption(cause)
    if (Option.isSome(error)) {
      const given = serverOf(error.value)
      const shown = given === undefined ? undefined : yield* (yield* ServerNames).display(given)
      yield* output.note(describe(error.value, output.verbose, shown))
      return exitCodeOf(error.value)
    }
    if (Cause.isInterruptedOnly(cause)) {
      yield* output.note(new Styled(cancelledLine(sanitize(words.slice(0, 3).join(" ")), output.interactive)))
      return ExitCode.interrupted
    }
    yield* output.note(`internal error: ${Cause.pretty(cause)}`)
    return ExitCode.connection
  })

/**
 * Runs a session until Ctrl-D, `exit` or the end of input, on the target `open` gives (opened
 * in a scope of its own). With `reconnect`, the `reconnect` command closes that connection and
 * opens another the same way (a server that died or was restarted).
 */
export const run = <R>(
  open: Effect.Effect<Target<R>, CliFailure, R | Scope.Scope>,
  settings: Reconnecting = { reconnect: false }
) =>
  Effect.gen(function* () {
    const output = yield* Output
    const names = yield* ServerNames
    const outer = yield* Effect.scope
    const connect = Effect.gen(function* () {
      const scope = yield* Scope.fork(outer, ExecutionStrategy.sequential)
      const target = yield* open.pipe(
        Scope.extend(scope),
        Effect.onExit((exit) => (Exit.isFailure(exit) ? Scope.close(scope, exit) : Effect.void))
      )
      return { target, scope } satisfies Attached<R>
    })
    const opened = yield* connect
    // Per server: by the name it reports when it was chosen inline.
    const server = yield* names.display(opened.target.name)
    const file = yield* History.fileOf(server)
    const vocabulary = yield* Ref.make(yield* opened.target.vocabulary)
    const current = yield* Ref.make(opened)
    const print = (text: string) => output.note(text)
    const interactive = process.stdin.isTTY === true && process.stdout.isTTY === true
    const reader = yield* readerFor(interactive, file, vocabulary, current, print)
    // What follows a connection lives in its scope: it stops when the connection is replaced.
    // Set up wholly or not at all (Ctrl-C during a reconnect); what it starts can be stopped.
    const attach = ({ target, scope }: Attached<R>, refresh: boolean) => {
      const follow = (effect: Effect.Effect<void>) => Effect.forkIn(Effect.interruptible(effect), scope)
      const refreshed = Effect.flatMap(target.vocabulary, (next) => Ref.set(vocabulary, next))
      return Effect.gen(function* () {
        yield* Ref.set(current, { target, scope })
        if (refresh) yield* follow(refreshed)
        yield* follow(Stream.runForEach(target.changes, () => refreshed))
        yield* follow(Stream.runForEach(target.notifications, reader.above))
        // Said once, when it happens; the commands after it are not run against a dead connection.
        if (target.ended !== undefined)
          yield* follow(
            Stream.runForEach(Stream.take(target.ended.changes, 1), (reason) =>
              reader.above(
                `the server has ended: ${sanitize(reason)} (${settings.reconnect ? "reconnect starts it again, " : ""}Ctrl-D leaves)`
              )
            )
          )
      }).pipe(Effect.uninterruptible)
    }
    yield* attach(opened, false)
    const endedNow = Effect.flatMap(Ref.get(current), ({ target }) => target.ended?.now ?? Effect.succeedNone)
    // The old connection is closed first, wholly (its server is stopped even if Ctrl-C comes): a
    // server may hold what only one copy can (a port, a lock). Only connecting again is cancelled.
    const reconnect = Effect.uninterruptibleMask((restore) =>
      Effect.gen(function* () {
        yield* Effect.flatMap(Ref.get(current), ({ scope }) => Scope.close(scope, Exit.void))
        yield* attach(yield* restore(connect), true)
        yield* output.note(`reconnected to ${server} (a new session: log levels and subscriptions start over)`)
      })
    )

    const running = yield* Ref.make(Option.none<Fiber.RuntimeFiber<void, CliFailure>>())
    yield* ownInterrupts(() => {
      const fiber = Effect.runSync(Ref.get(running))
      if (Option.isSome(fiber)) Effect.runFork(Fiber.interruptFork(fiber.value))
    })
    if (interactive)
      yield* output.note(
        dim(output.color, `connected to ${server}; help lists the commands, Tab completes, Ctrl-D leaves`)
      )
    for (const warning of yield* opened.target.warnings) yield* output.note(`warning: ${warning}`)
    const prompt = `${server}> `
    // Off a terminal (a script piped in), the session ends with the code of the last line that
    // failed, as a shell running a script would let its caller know.
    let failed: number | undefined
    while (true) {
      const line = yield* reader.read(prompt)
      if (Option.isNone(line)) break
      const words = splitCommandLine(line.value)
      if (words._tag === "Left") {
        yield* output.note(`error: ${words.left}`)
        failed = ExitCode.usage
        continue
      }
      const [first] = words.right
      if (first === undefined) continue
      // Only what a person typed is history; a piped script's lines are not.
      if (interactive) yield* History.append(file, line.value)
      if (EXIT.has(first)) break
      const refusal = settings.reconnect ? undefined : settings.why
      const again = first === "reconnect" && (settings.reconnect || refusal !== undefined)
      if (again && refusal !== undefined) {
        yield* output.note(`error: reconnect: ${refusal}`)
        failed = ExitCode.usage
        continue
      }
      const gone = yield* endedNow
      if (Option.isSome(gone) && !again) {
        yield* output.note(
          `error: the server has ended (${sanitize(gone.value)}); ${settings.reconnect ? "reconnect starts it again, " : ""}Ctrl-D leaves`
        )
        failed = ExitCode.connection
        continue
      }
      // A connection lost under a command is seen as ended a moment later (the client's state
      // changes on its own fiber): waited for, bounded, so the next line is not run against it.
      const settled = endedNow.pipe(
        Effect.repeat({ schedule: Schedule.spaced("10 millis"), until: Option.isSome }),
        Effect.timeout("1 second"),
        Effect.ignore
      )
      const command = again
        ? reconnect
        : Effect.flatMap(Ref.get(current), ({ target }) =>
            Effect.tapErrorTag(target.run(words.right), "TransportError", () => settled)
          )
      // Keys typed while the command runs wait on the terminal, unechoed, for the next prompt.
      const fiber = yield* Effect.fork(command)
      yield* Ref.set(running, Option.some(fiber))
      const exit = yield* Fiber.await(fiber)
      yield* Ref.set(running, Option.none())
      yield* output.status(undefined)
      if (Exit.isFailure(exit)) failed = yield* reportFailure(exit.cause, words.right)
    }
    if (interactive) process.stdout.write("\n")
    const gone = yield* endedNow
    // The session ends as a lost connection does (exit 3), not as a finished one.
    if (Option.isSome(gone))
      return yield* new McpError.TransportError({ server: opened.target.name, reason: gone.value })
    // Each failure was reported as it came: the code alone is left to give.
    if (!interactive && failed !== undefined) return yield* new Ending({ code: failed })
  }).pipe(Effect.scoped)

/** The services a session needs besides its target's. */
export type Requirements = Output | ServerNames | FileSystem.FileSystem | Path.Path
