/**
 * The stdio transport: spawns the server as a child process (through `CommandExecutor`, so it
 * runs on any platform layer) and speaks newline-delimited JSON over its stdin and stdout.
 *
 * - The child gets only a safe set of the parent's environment variables plus `env`, unless
 *   `inheritEnv: "all"`.
 * - stdout is framed in linear time with a maximum message size; a line that is not JSON is a
 *   logged, counted protocol violation and is skipped.
 * - stderr is drained continuously, logged at debug level, offered as a `Stream`, and its last
 *   lines are attached to the error when the process dies.
 * - The child exiting or crashing ends the transport with a `TransportError` carrying the exit
 *   code or signal and the stderr tail; every pending request then fails at once.
 * - Close: end stdin, wait; SIGTERM to the process group, wait; SIGKILL; and finally SIGKILL to
 *   whatever is left of the group (servers started through `npx` or a shell are process trees).
 *
 * @since 0.1.0
 */
import type * as Command from "@effect/platform/Command"
import * as CommandRuntime from "@effect/platform/Command"
import * as CommandExecutor from "@effect/platform/CommandExecutor"
import { DEFAULT_MAX_MESSAGE_BYTES, encodeLine, LineFramer, lineText } from "@effect-mcp/jsonrpc/Framing"
import {
  type Incoming,
  makeInbound,
  parseIncoming,
  Transport,
  type TransportService
} from "@effect-mcp/jsonrpc/Transport"
import type * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Mailbox from "effect/Mailbox"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { environment, type StdioOptions, type StdioProcessService } from "./internal/transport/stdio.js"
import { probedInPlace } from "./internal/transport/stdioProbe.js"
import { TransportError } from "./McpError.js"

export {
  /**
   * The parent's variables a child inherits by default.
   *
   * @since 0.1.0
   * @category constants
   */
  SAFE_ENVIRONMENT,
  /**
   * How to start and stop the server process.
   *
   * @since 0.1.0
   * @category options
   */
  type StdioOptions,
  /**
   * The running server process, beside its `Transport`.
   *
   * @since 0.1.0
   * @category models
   */
  type StdioProcessService
} from "./internal/transport/stdio.js"

/**
 * The process behind a stdio transport.
 *
 * @since 0.1.0
 * @category services
 */
export class StdioProcess extends Context.Tag("@effect-mcp/client/StdioProcess")<StdioProcess, StdioProcessService>() {}

const exitDetails = (exit: Exit.Exit<CommandExecutor.ExitCode, unknown>) => {
  if (Exit.isSuccess(exit)) return { reason: `the server process exited with code ${exit.value}`, exitCode: exit.value }
  const text = String(
    Exit.causeOption(exit).pipe(
      Option.map((cause) => cause.toString()),
      Option.getOrElse(() => "")
    )
  )
  const signal = /signal: (SIG[A-Z0-9]+)/.exec(text)?.[1]
  return signal === undefined
    ? { reason: "the server process ended" }
    : { reason: `the server process was killed by ${signal}`, signal }
}

/**
 * Starts the server and returns its transport and process; both end with the scope. The era
 * probe runs on that process (a server that exits on it is started again, once).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: StdioOptions
): Effect.Effect<
  readonly [TransportService, StdioProcessService],
  TransportError,
  CommandExecutor.CommandExecutor | Scope.Scope
> =>
  Effect.flatMap(CommandExecutor.CommandExecutor, (executor) =>
    probedInPlace(Effect.provideService(connect(options), CommandExecutor.CommandExecutor, executor))
  )

/** One server process: its transport and process, both ending with the scope. */
const connect = (
  options: StdioOptions
): Effect.Effect<
  readonly [TransportService, StdioProcessService],
  TransportError,
  CommandExecutor.CommandExecutor | Scope.Scope
> =>
  Effect.gen(function* () {
    const server = options.name ?? options.command
    const maxBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES
    const tailLines = options.stderrTailLines ?? 20
    const { extend, env } = yield* environment(options)
    let command: Command.Command = CommandRuntime.make(options.command, ...(options.args ?? []))
    command = CommandRuntime.env(command, env, { extendEnv: extend })
    if (options.cwd !== undefined) command = CommandRuntime.workingDirectory(command, options.cwd)

    const outbound = yield* Mailbox.make<Uint8Array>()
    const process = yield* CommandRuntime.start(command).pipe(
      Effect.mapError((error) => {
        // The platform says why in a typed reason (Node's ENOENT is `NotFound`).
        const reason =
          error._tag === "SystemError" && error.reason === "NotFound"
            ? `cannot start ${options.command}: not found (PATH=${env.PATH ?? ""})`
            : `cannot start ${options.command}: ${error.message}`
        return new TransportError({ server, reason, cause: error })
      })
    )
    const pid = Number(process.pid)
    let closing = false
    // stdin is fed by a fiber of this scope, not the platform's daemon (which a killed process
    // could leave waiting forever on a pipe that never finishes): closing ends the outbound
    // mailbox, which ends stdin; the scope's end interrupts the fiber whatever happened.
    yield* Stream.run(Mailbox.toStream(outbound), process.stdin).pipe(Effect.ignore, Effect.forkScoped)

    // stderr: always drained, kept as a tail, logged, published.
    const tail: Array<string> = []
    const stderrHub = yield* PubSub.unbounded<string>()
    const stderrDone = yield* process.stderr.pipe(
      Stream.decodeText(),
      Stream.splitLines,
      Stream.runForEach((line) => {
        tail.push(line)
        if (tail.length > tailLines) tail.shift()
        return Effect.zipRight(
          Effect.logDebug(line).pipe(Effect.annotateLogs({ "mcp.server": server, stream: "stderr" })),
          PubSub.publish(stderrHub, line)
        )
      }),
      Effect.ignore,
      Effect.forkScoped
    )
    const stderrTail = Effect.sync(() => tail.join("\n"))

    // The process exiting on its own is the transport's failure.
    const exited = yield* Deferred.make<Exit.Exit<CommandExecutor.ExitCode, unknown>>()
    yield* Effect.exit(process.exitCode).pipe(
      Effect.flatMap((exit) => Deferred.succeed(exited, exit)),
      Effect.forkScoped
    )
    const stdoutDone = yield* Deferred.make<void>()
    const death = Effect.gen(function* () {
      const exit = yield* Deferred.await(exited)
      // Let what the process wrote before it died be read first.
      yield* Deferred.await(stdoutDone).pipe(Effect.timeout("1 second"), Effect.ignore)
      yield* stderrDone.await.pipe(Effect.timeout("200 millis"), Effect.ignore)
      if (closing) return yield* Effect.never
      return yield* new TransportError({ server, ...exitDetails(exit), stderr: tail.join("\n") })
    })

    const framer = new LineFramer(maxBytes)
    /** The messages in a chunk of stdout reads (a partial line waits for the rest). */
    const frame = (reads: Chunk.Chunk<Uint8Array>): Effect.Effect<Array<Incoming>, TransportError> => {
      const items: Array<Incoming> = []
      for (const read of reads) {
        const framed = framer.push(read)
        if (framed._tag === "Overflow") {
          return Effect.fail(
            new TransportError({
              server,
              reason: `a message from the server exceeded the maximum size of ${maxBytes} bytes`
            })
          )
        }
        for (const line of framed.lines) {
          const text = lineText(line)
          if (text.trim() === "") continue
          for (const item of parseIncoming(text)) items.push(item)
        }
      }
      return Effect.succeed(items)
    }

    // After stdout ends, the process has ended too (or soon will): report how.
    const afterStdout = death.pipe(
      Effect.timeout("3 seconds"),
      Effect.catchTag("TimeoutException", () =>
        closing ? Effect.void : Effect.fail(new TransportError({ server, reason: "the server closed its stdout" }))
      )
    )
    // stdout is read into a mailbox, a chunk of reads at a time; the process dying fails it once
    // what it wrote before has been read. (Cheaper per message than racing every pull with death.)
    const inbox = makeInbound()
    yield* process.stdout.pipe(
      Stream.runForEachChunk((reads) => Effect.flatMap(frame(reads), (items) => inbox.offerAll(items))),
      // On the effect, not the stream: a stream combinator costs a step per chunk read.
      Effect.mapError((error) =>
        error._tag === "TransportError"
          ? error
          : new TransportError({ server, reason: `reading stdout failed: ${error.message}` })
      ),
      Effect.ensuring(Deferred.succeed(stdoutDone, undefined)),
      Effect.zipRight(afterStdout),
      Effect.matchEffect({ onFailure: (error) => inbox.fail(error), onSuccess: () => inbox.end }),
      Effect.forkScoped
    )
    yield* death.pipe(
      Effect.catchAll((error) => inbox.fail(error)),
      Effect.forkScoped
    )

    const send = (message: unknown) =>
      Effect.suspend(() =>
        closing
          ? Effect.fail(new TransportError({ server, reason: "the transport is closed" }))
          : Effect.flatMap(outbound.offer(encodeLine(message)), (accepted) =>
              accepted ? Effect.void : new TransportError({ server, reason: "the transport is closed" })
            )
      )

    const afterStdin = Duration.decode(options.shutdown?.afterStdin ?? "2 seconds")
    const afterTerm = Duration.decode(options.shutdown?.afterTerm ?? "2 seconds")
    // Finalizers run uninterruptibly; each bounded wait must be interruptible for its timeout to work.
    const bounded = <A, E>(effect: Effect.Effect<A, E>, within: Duration.Duration) =>
      Effect.ignore(Effect.timeout(Effect.interruptible(effect), within))
    const hasExited = (within: Duration.Duration) =>
      Effect.interruptible(Deferred.await(exited)).pipe(Effect.timeoutOption(within), Effect.map(Option.isSome))
    yield* Effect.addFinalizer(() =>
      Effect.gen(function* () {
        closing = true
        yield* outbound.end
        if (!(yield* hasExited(afterStdin))) {
          yield* Effect.logDebug(`${server}: no exit after stdin closed; sending SIGTERM`)
          yield* bounded(process.kill("SIGTERM"), afterTerm)
          if (!(yield* hasExited(Duration.zero))) {
            yield* Effect.logDebug(`${server}: no exit after SIGTERM; sending SIGKILL`)
            yield* bounded(process.kill("SIGKILL"), Duration.seconds(5))
          }
        }
        // Whatever the server started in its process group goes too.
        yield* bounded(process.kill("SIGKILL"), Duration.seconds(1))
      })
    )

    const transport: TransportService = { run: inbox.run, send, setProtocolVersion: () => Effect.void }
    const info: StdioProcessService = { pid, stderr: Stream.fromPubSub(stderrHub), stderrTail }
    return [transport, info] as const
  })

/**
 * A stdio `Transport` (and its `StdioProcess`) for a server command.
 *
 * @example
 * ```ts
 * import { McpClient, StdioTransport } from "@effect-mcp/client"
 * import { NodeContext } from "@effect/platform-node"
 * import { Effect, Layer } from "effect"
 *
 * // The server as a child process of any platform's `CommandExecutor` (here Node's)
 * const TransportLive = StdioTransport.layer({
 *   command: "npx",
 *   args: ["-y", "@modelcontextprotocol/server-everything"],
 *   env: { LOG_LEVEL: "debug" }, // on top of the safe variables of this process
 *   shutdown: { afterStdin: "2 seconds", afterTerm: "2 seconds" }
 * }).pipe(Layer.provide(NodeContext.layer))
 *
 * // The process beside the transport: its pid, and the last lines of its stderr
 * const pid = Effect.map(StdioTransport.StdioProcess, (process) => process.pid)
 *
 * const ClientLive = McpClient.layer({ name: "everything" }).pipe(
 *   Layer.provideMerge(TransportLive)
 * )
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: StdioOptions
): Layer.Layer<Transport | StdioProcess, TransportError, CommandExecutor.CommandExecutor> =>
  Layer.scopedContext(
    Effect.map(make(options), ([transport, info]) =>
      Context.make(Transport, transport).pipe(Context.add(StdioProcess, info))
    )
  )
