/**
 * The stdio transport's behaviour, written once over a {@link SpawnerService} (the client's over
 * `CommandExecutor`, Node's over `node:child_process`): one server process, its transport and its
 * process, both ending with the scope.
 *
 * - stdout is framed as it is read, each message handed to the reader at once; a line over the
 *   limit fails the connection, a line that is not JSON is a violation the peer counts.
 * - stderr is always drained, its last lines kept for errors, each line logged and published.
 * - Writes go to stdin in the caller, in order.
 * - The connection ends once the process has exited and its pipes are closed (a second after its
 *   exit at the latest: its children may hold them open), or three seconds after the process closed
 *   its stdout and lived on; cleanly when the scope closed it, else with how the process ended.
 * - Close: end stdin, wait; SIGTERM to the process group, wait; SIGKILL, wait.
 *
 * Every wait is on Effect's clock.
 */
import type * as PlatformError from "@effect/platform/Error"
import { DEFAULT_MAX_MESSAGE_BYTES, LineFramer, lineOf, lineText } from "@effect-mcp/jsonrpc/Framing"
import {
  type Inbound,
  makeInbound,
  parseIncoming,
  sendFrom,
  type TransportService
} from "@effect-mcp/jsonrpc/Transport"
import type { JsonRpc } from "@effect-mcp/protocol"
import * as Config from "effect/Config"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import { TransportError } from "../../McpError.js"
import type { ProcessEvents, ProcessExit, SpawnedProcess, SpawnerService } from "./spawner.js"
import { environment, type StdioOptions, type StdioProcessService } from "./stdio.js"
import { makeStderr, type Stderr } from "./stdioStderr.js"

/** What a connection knows as it runs (read on every write, so plain fields). */
interface State {
  /** The scope is closing the connection: the process is being stopped, and its end is clean. */
  closing: boolean
  /** How the process exited, once it has. */
  exit: ProcessExit | undefined
  /** How the connection failed, once it has: what a later write fails with. */
  failure: TransportError | undefined
}

/** The fields of the error for a process that ended on its own. */
const exitDetails = ({ code, signal }: ProcessExit) =>
  signal !== null
    ? { reason: `the server process was killed by ${signal}`, signal }
    : code !== null
      ? { reason: `the server process exited with code ${code}`, exitCode: code }
      : { reason: "the server process ended" }

/**
 * stdout's part: the messages in each chunk read, handed to the reader at once (a partial line
 * waits for the rest). A line over `maxBytes` fails the connection; what follows it is not read.
 */
const stdoutReader = (server: string, maxBytes: number, state: State, inbox: Inbound) => {
  const framer = new LineFramer(maxBytes)
  return (chunk: Uint8Array): void => {
    if (state.failure !== undefined) return
    const framed = framer.push(chunk)
    if (framed._tag === "Overflow") {
      state.failure = new TransportError({
        server,
        reason: `a message from the server exceeded the maximum size of ${maxBytes} bytes`
      })
      inbox.unsafeDone(Exit.fail(state.failure))
      return
    }
    for (const line of framed.lines) {
      const text = lineText(line)
      if (text.trim() === "") continue
      for (const item of parseIncoming(text)) inbox.unsafeOffer(item)
    }
  }
}

/**
 * The ordered write path, in the caller: `undefined` once written, else why it cannot be. A
 * message sent after the process exited, before the connection is seen to end, is not refused
 * here: the request fails when it ends, with how the process ended (exit code, stderr).
 */
const writer =
  (server: string, state: State, process: SpawnedProcess) =>
  (message: JsonRpc.JSONRPCMessage): TransportError | undefined => {
    if (state.failure !== undefined) return state.failure
    if (state.closing) return new TransportError({ server, reason: "the transport is closed" })
    if (state.exit === undefined) process.write(lineOf(message))
    return undefined
  }

/**
 * How the connection ends, on its own: `finish` ends the inbound cleanly when the scope is
 * closing it, else with how the process ended (and keeps that as the connection's failure). Two
 * fibers of the scope decide when: a second at most after the exit for the pipes to close, three
 * seconds after stdout closed for the exit.
 */
const watchEnd = (server: string, state: State, inbox: Inbound, stderr: Stderr, lifetime: Lifetime) =>
  Effect.gen(function* () {
    const finish = (how: ProcessExit | "stdout closed") => {
      stderr.flush()
      if (state.closing) return inbox.unsafeDone(Exit.void)
      state.failure ??=
        how === "stdout closed"
          ? new TransportError({ server, reason: "the server closed its stdout", stderr: stderr.tail() })
          : new TransportError({ server, ...exitDetails(how), stderr: stderr.tail() })
      inbox.unsafeDone(Exit.fail(state.failure))
    }
    const pipesClosed = Effect.zip(Deferred.await(lifetime.stdoutClosed), Deferred.await(lifetime.stderrClosed))
    yield* Deferred.await(lifetime.exited).pipe(
      Effect.tap(() => Effect.ignore(Effect.timeout(pipesClosed, "1 second"))),
      Effect.flatMap((exit) => Effect.sync(() => finish(exit))),
      Effect.forkScoped
    )
    yield* Deferred.await(lifetime.stdoutClosed).pipe(
      Effect.zipRight(Effect.timeoutOption(Deferred.await(lifetime.exited), "3 seconds")),
      Effect.flatMap((exited) => (Option.isNone(exited) ? Effect.sync(() => finish("stdout closed")) : Effect.void)),
      Effect.forkScoped
    )
  })

/** The close sequence, the scope's finalizer: end stdin, wait; SIGTERM, wait; SIGKILL, wait; the end is then clean. */
const shutdown = (
  server: string,
  options: StdioOptions,
  state: State,
  inbox: Inbound,
  process: SpawnedProcess,
  exited: Deferred.Deferred<ProcessExit>
) => {
  const afterStdin = Duration.decode(options.shutdown?.afterStdin ?? "2 seconds")
  const afterTerm = Duration.decode(options.shutdown?.afterTerm ?? "2 seconds")
  // Finalizers run uninterruptibly; each bounded wait must be interruptible for its timeout to work.
  const hasExited = (within: Duration.Duration) =>
    Effect.interruptible(Deferred.await(exited)).pipe(Effect.timeoutOption(within), Effect.map(Option.isSome))
  return Effect.gen(function* () {
    state.closing = true
    process.endStdin()
    if (!(yield* hasExited(afterStdin))) {
      yield* Effect.logDebug(`${server}: no exit after stdin closed; sending SIGTERM`)
      process.kill("SIGTERM")
      if (!(yield* hasExited(afterTerm))) {
        yield* Effect.logDebug(`${server}: no exit after SIGTERM; sending SIGKILL`)
        process.kill("SIGKILL")
        yield* hasExited(Duration.seconds(5))
      }
    }
    // What the server started in its process group went as it exited (or goes with the spawner's
    // scope); the connection has ended cleanly.
    inbox.unsafeDone(Exit.void)
  })
}

/** The moments of a process's life the connection waits on. */
interface Lifetime {
  readonly exited: Deferred.Deferred<ProcessExit>
  readonly stdoutClosed: Deferred.Deferred<void>
  readonly stderrClosed: Deferred.Deferred<void>
}

/** Why a process could not be started, in the transport's words (the platform's typed reason decides). */
const startError = (options: StdioOptions, server: string, path: string) => (error: PlatformError.PlatformError) =>
  new TransportError({
    server,
    reason:
      error._tag === "SystemError" && error.reason === "NotFound"
        ? `cannot start ${options.command}: not found (PATH=${path})`
        : `cannot start ${options.command}: ${error.message}`,
    cause: error
  })

/** One server process started by `spawner`: its transport and process, both ending with the scope. */
export const connect = (
  options: StdioOptions,
  spawner: SpawnerService
): Effect.Effect<readonly [TransportService, StdioProcessService], TransportError, Scope.Scope> =>
  Effect.gen(function* () {
    const server = options.name ?? options.command
    const { extend, env } = yield* environment(options)
    const path = env.PATH ?? (extend ? yield* Effect.orDie(Config.string("PATH").pipe(Config.withDefault(""))) : "")
    const state: State = { closing: false, exit: undefined, failure: undefined }
    const inbox = makeInbound()
    const stderr = yield* makeStderr(server, options.stderrTailLines ?? 20)
    const lifetime: Lifetime = {
      exited: yield* Deferred.make<ProcessExit>(),
      stdoutClosed: yield* Deferred.make<void>(),
      stderrClosed: yield* Deferred.make<void>()
    }
    let spawned: SpawnedProcess | undefined
    const events: ProcessEvents = {
      stdout: stdoutReader(server, options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES, state, inbox),
      stdoutEnd: () => Deferred.unsafeDone(lifetime.stdoutClosed, Exit.void),
      stderr: stderr.chunk,
      stderrEnd: () => {
        stderr.end()
        Deferred.unsafeDone(lifetime.stderrClosed, Exit.void)
      },
      exit: (exit) => {
        state.exit = exit
        // Whatever the server started in its process group goes with it, now: once the group is
        // empty its id may be reused (the pid space wraps around), and a later kill could reach a
        // stranger's group.
        spawned?.kill("SIGKILL")
        Deferred.unsafeDone(lifetime.exited, Exit.succeed(exit))
      }
    }
    const process = yield* spawner
      .spawn({ command: options.command, args: options.args ?? [], env, extendEnv: extend, cwd: options.cwd }, events)
      .pipe(Effect.mapError(startError(options, server, path)))
    spawned = process
    if (state.exit !== undefined) process.kill("SIGKILL")
    yield* watchEnd(server, state, inbox, stderr, lifetime)
    yield* Effect.addFinalizer(() => shutdown(server, options, state, inbox, process, lifetime.exited))

    // With a spawner that writes in the caller, the write is `send`'s plain form: a request can
    // start from plain code with no effect run. A wrapper has none.
    const send = sendFrom(writer(server, state, process))
    const transport: TransportService = {
      run: inbox.run,
      send: spawner.writesInCaller ? send : (message) => send(message),
      setProtocolVersion: () => Effect.void
    }
    const info: StdioProcessService = { pid: process.pid, stderr: stderr.stream, stderrTail: Effect.sync(stderr.tail) }
    return [transport, info] as const
  })
