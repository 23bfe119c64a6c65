/**
 * The stdio transport on Node's `child_process` directly, for Node programs: the same options,
 * behaviour and errors as the client's generic `StdioTransport` (which runs on any platform's
 * `CommandExecutor`), without a stream stage between the pipe and the peer. Bytes read from
 * the server's stdout are framed and parsed in the pipe's own callback and handed to the peer
 * there; messages are written straight to stdin, and those written in one turn of the event
 * loop go out in one write.
 *
 * Use it through `NodeStdioTransport.layer` where `StdioTransport.layer` would be used: a
 * message costs less client CPU without the stream stages (the benchmark's notes say how much).
 *
 * @since 0.1.0
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { TransportError } from "@effect-mcp/client/McpError"
import { DEFAULT_MAX_MESSAGE_BYTES, LineFramer, probedInPlace, stdioEnvironment } from "@effect-mcp/client/Platform"
import { type StdioOptions, StdioProcess, type StdioProcessService } from "@effect-mcp/client/StdioTransport"
import { makeInbound, parseIncoming, sendFrom, Transport, type TransportService } from "@effect-mcp/client/Transport"
import type { JsonRpc } from "@effect-mcp/protocol"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as PubSub from "effect/PubSub"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

/** How the process ended, as Node reports it. */
interface Ended {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

const endedReason = ({ code, signal }: Ended) =>
  signal === null
    ? { reason: `the server process exited with code ${code ?? "?"}`, ...(code === null ? {} : { exitCode: code }) }
    : { reason: `the server process was killed by ${signal}`, signal }

/** Starts `command` in a process group of its own; fails when it cannot be started. */
const start = (
  options: StdioOptions,
  server: string,
  env: Readonly<Record<string, string | undefined>>
): Effect.Effect<ChildProcessWithoutNullStreams, TransportError> =>
  Effect.async((resume) => {
    const child = spawn(options.command, [...(options.args ?? [])], {
      stdio: ["pipe", "pipe", "pipe"],
      env,
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      detached: process.platform !== "win32"
    })
    const onError = (error: NodeJS.ErrnoException) => {
      child.off("spawn", onSpawn)
      const reason =
        error.code === "ENOENT"
          ? `cannot start ${options.command}: not found (PATH=${env.PATH ?? ""})`
          : `cannot start ${options.command}: ${error.message}`
      resume(Effect.fail(new TransportError({ server, reason, cause: error })))
    }
    const onSpawn = () => {
      child.off("error", onError)
      resume(Effect.succeed(child))
    }
    child.once("error", onError)
    child.once("spawn", onSpawn)
  })

/** Sends `signal` to the process group (POSIX), else to the process. */
const signalGroup = (child: ChildProcessWithoutNullStreams, signal: NodeJS.Signals) => {
  try {
    if (process.platform !== "win32" && child.pid !== undefined) process.kill(-child.pid, signal)
    else child.kill(signal)
  } catch {
    // Already gone.
  }
}

/** Complete lines of a chunk of stdout, as text; `undefined` when a line exceeds the limit. */
const linesOf = (framer: LineFramer, chunk: Buffer): ReadonlyArray<string> | undefined => {
  const framed = framer.push(chunk)
  if (framed._tag === "Overflow") return undefined
  return framed.lines.map((line) => {
    const text = Buffer.from(line.buffer, line.byteOffset, line.byteLength).toString("utf8")
    return text.endsWith("\r") ? text.slice(0, -1) : text
  })
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
): Effect.Effect<readonly [TransportService, StdioProcessService], TransportError, Scope.Scope> =>
  probedInPlace(connect(options))

/** One server process: its transport and process, both ending with the scope. */
const connect = (
  options: StdioOptions
): Effect.Effect<readonly [TransportService, StdioProcessService], TransportError, Scope.Scope> =>
  Effect.gen(function* () {
    const server = options.name ?? options.command
    const maxBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES
    const tailLines = options.stderrTailLines ?? 20
    const { extend, env } = yield* stdioEnvironment(options)
    const childEnv = extend ? { ...process.env, ...env } : env
    const runtime = yield* Effect.runtime<never>()
    const runFork = Runtime.runFork(runtime)

    // Whatever the server started in its process group goes with it: when it exits, or at the end
    // if it has not. Not later: once the group is empty its id may be reused (the pid space wraps
    // around), and a group kill then would reach a stranger's.
    const child = yield* Effect.acquireRelease(start(options, server, childEnv), (child) =>
      Effect.sync(() => {
        if (child.exitCode === null && child.signalCode === null) signalGroup(child, "SIGKILL")
      })
    )
    const inbox = makeInbound()
    let closing = false
    let ended: Ended | undefined
    const exited = Effect.async<Ended>((resume) => {
      if (ended !== undefined) return resume(Effect.succeed(ended))
      const onClose = (code: number | null, signal: NodeJS.Signals | null) => resume(Effect.succeed({ code, signal }))
      child.once("exit", onClose)
      return Effect.sync(() => child.off("exit", onClose))
    })
    child.once("exit", (code, signal) => {
      ended = { code, signal }
      signalGroup(child, "SIGKILL")
    })

    // stderr: always drained, kept as a tail, logged, published.
    const tail: Array<string> = []
    const stderrHub = yield* PubSub.unbounded<string>()
    let stderrPartial = ""
    child.stderr.setEncoding("utf8")
    child.stderr.on("data", (text: string) => {
      const lines = (stderrPartial + text).split(/\r?\n/)
      stderrPartial = lines.pop() ?? ""
      if (lines.length === 0) return
      for (const line of lines) {
        tail.push(line)
        if (tail.length > tailLines) tail.shift()
      }
      runFork(
        Effect.forEach(
          lines,
          (line) =>
            Effect.zipRight(
              Effect.logDebug(line).pipe(Effect.annotateLogs({ "mcp.server": server, stream: "stderr" })),
              PubSub.publish(stderrHub, line)
            ),
          { discard: true }
        )
      )
    })

    // stdout: framed and parsed as it is read, each message handed to the reader at once.
    const framer = new LineFramer(maxBytes)
    child.stdout.on("data", (chunk: Buffer) => {
      const lines = linesOf(framer, chunk)
      if (lines === undefined) {
        inbox.unsafeDone(
          Exit.fail(
            new TransportError({
              server,
              reason: `a message from the server exceeded the maximum size of ${maxBytes} bytes`
            })
          )
        )
        child.stdout.destroy()
        return
      }
      for (const text of lines) {
        if (text.trim() === "") continue
        for (const item of parseIncoming(text)) inbox.unsafeOffer(item)
      }
    })
    // Once stdout and stderr are closed and the process has exited, the connection has ended:
    // cleanly when we closed it, else with how the process ended. A process whose children keep
    // its pipes open has ended a second after its exit; a process that closed its stdout but
    // lives on has ended (badly) three seconds after.
    // How the connection ended, once it has: what a later send fails with.
    let failure: TransportError | undefined
    const finish = (how: Ended | "stdout closed") => {
      if (stderrPartial !== "") {
        tail.push(stderrPartial)
        stderrPartial = ""
      }
      if (closing) return inbox.unsafeDone(Exit.void)
      failure ??=
        how === "stdout closed"
          ? new TransportError({ server, reason: "the server closed its stdout", stderr: tail.join("\n") })
          : new TransportError({ server, ...endedReason(how), stderr: tail.join("\n") })
      inbox.unsafeDone(Exit.fail(failure))
    }
    child.once("close", (code: number | null, signal: NodeJS.Signals | null) => finish({ code, signal }))
    child.once("exit", (code, signal) => {
      setTimeout(() => finish({ code, signal }), 1000).unref()
    })
    child.stdout.once("end", () => {
      setTimeout(() => {
        if (ended === undefined) finish("stdout closed")
      }, 3000).unref()
    })
    child.stdout.on("error", () => {})
    child.stderr.on("error", () => {})
    // A write after the server closed its stdin (EPIPE) is reported by the process ending.
    child.stdin.on("error", () => {})

    // Writes made in one turn of the event loop leave in one system call.
    let corked = false
    const uncork = () => {
      corked = false
      child.stdin.uncork()
    }
    // A message sent after the process exited, before the connection is seen to end, is not
    // refused here: the request fails when it ends, with how the process ended (exit code, stderr).
    const write = (message: JsonRpc.JSONRPCMessage): TransportError | undefined => {
      if (failure !== undefined) return failure
      if (closing || child.stdin.writableEnded) return new TransportError({ server, reason: "the transport is closed" })
      if (ended !== undefined || child.stdin.destroyed) return undefined
      if (!corked) {
        corked = true
        child.stdin.cork()
        process.nextTick(uncork)
      }
      child.stdin.write(`${JSON.stringify(message)}\n`)
      return undefined
    }

    const afterStdin = Duration.decode(options.shutdown?.afterStdin ?? "2 seconds")
    const afterTerm = Duration.decode(options.shutdown?.afterTerm ?? "2 seconds")
    // Finalizers run uninterruptibly; each bounded wait must be interruptible for its timeout to work.
    const hasExited = (within: Duration.Duration) =>
      Effect.interruptible(exited).pipe(
        Effect.timeoutOption(within),
        Effect.map((outcome) => outcome._tag === "Some")
      )
    yield* Effect.addFinalizer(() =>
      Effect.gen(function* () {
        closing = true
        child.stdin.end()
        if (!(yield* hasExited(afterStdin))) {
          yield* Effect.logDebug(`${server}: no exit after stdin closed; sending SIGTERM`)
          signalGroup(child, "SIGTERM")
          if (!(yield* hasExited(afterTerm))) {
            yield* Effect.logDebug(`${server}: no exit after SIGTERM; sending SIGKILL`)
            signalGroup(child, "SIGKILL")
            yield* hasExited(Duration.seconds(5))
          }
        }
        // Whatever the server started in its process group goes too (as it exited, or the release
        // of the process above); the connection has ended cleanly.
        inbox.unsafeDone(Exit.void)
      })
    )

    const transport: TransportService = {
      run: inbox.run,
      send: sendFrom(write),
      setProtocolVersion: () => Effect.void
    }
    const info: StdioProcessService = {
      pid: child.pid ?? -1,
      stderr: Stream.fromPubSub(stderrHub),
      stderrTail: Effect.sync(() => tail.join("\n"))
    }
    return [transport, info] as const
  })

/**
 * A stdio `Transport` (and its `StdioProcess`) for a server command, on Node's `child_process`.
 *
 * @example
 * ```ts
 * import { McpClient } from "@effect-mcp/client"
 * import { NodeStdioTransport } from "@effect-mcp/node"
 * import { Effect, Layer } from "effect"
 *
 * // The drop-in for `StdioTransport.layer` on Node: no `CommandExecutor` needed
 * const ClientLive = McpClient.layer({ name: "everything" }).pipe(
 *   Layer.provide(
 *     NodeStdioTransport.layer({
 *       command: "npx",
 *       args: ["-y", "@modelcontextprotocol/server-everything"]
 *     })
 *   )
 * )
 *
 * const tools = Effect.gen(function* () {
 *   const client = yield* McpClient.McpClient
 *   return yield* client.tools
 * }).pipe(Effect.provide(ClientLive))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: StdioOptions): Layer.Layer<Transport | StdioProcess, TransportError> =>
  Layer.scopedContext(
    Effect.map(make(options), ([transport, info]) =>
      Context.make(Transport, transport).pipe(Context.add(StdioProcess, info))
    )
  )
