/**
 * The stdio transport on Node's `child_process` directly, for Node programs: the client's
 * `StdioTransport` (the same options, behaviour and errors, written once there) over a
 * {@link layerSpawner} whose pipes call the transport in their own callbacks, without a stream
 * stage between the pipe and the peer. Bytes read from the server's stdout are framed and parsed
 * in the pipe's callback and handed to the peer there; messages are written straight to stdin,
 * and those written in one turn of the event loop go out in one write.
 *
 * Use it through `NodeStdioTransport.layer` where `StdioTransport.layer` would be used: a
 * message costs less client CPU without the stream stages (the benchmark's notes say how much).
 *
 * @since 0.1.0
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { SystemError, type SystemErrorReason } from "@effect/platform/Error"
import type { TransportError } from "@effect-mcp/client/McpError"
import * as StdioTransport from "@effect-mcp/client/StdioTransport"
import type { Transport, TransportService } from "@effect-mcp/client/Transport"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"

/** The platform's reason for an error of `spawn` (Node's `ENOENT` is `NotFound`). */
const reasonOf = (code: string | undefined): SystemErrorReason =>
  code === "ENOENT" ? "NotFound" : code === "EACCES" || code === "EPERM" ? "PermissionDenied" : "Unknown"

/** Sends `signal` to the process group (POSIX), else to the process. */
const signalGroup = (child: ChildProcessWithoutNullStreams, signal: NodeJS.Signals) => {
  try {
    if (process.platform !== "win32" && child.pid !== undefined) process.kill(-child.pid, signal)
    else child.kill(signal)
  } catch {
    // Already gone.
  }
}

/** Starts `request` in a process group of its own, reporting to `events` once it runs; fails when it cannot start. */
const start = (
  request: StdioTransport.SpawnRequest,
  events: StdioTransport.ProcessEvents
): Effect.Effect<ChildProcessWithoutNullStreams, SystemError> =>
  Effect.async((resume) => {
    const child = spawn(request.command, [...request.args], {
      stdio: ["pipe", "pipe", "pipe"],
      env: request.extendEnv ? { ...process.env, ...request.env } : request.env,
      ...(request.cwd === undefined ? {} : { cwd: request.cwd }),
      detached: process.platform !== "win32"
    })
    const onError = (error: NodeJS.ErrnoException) => {
      child.off("spawn", onSpawn)
      resume(
        Effect.fail(
          new SystemError({
            reason: reasonOf(error.code),
            module: "Command",
            method: "spawn",
            pathOrDescriptor: request.command,
            ...(error.syscall === undefined ? {} : { syscall: error.syscall }),
            description: error.message,
            cause: error
          })
        )
      )
    }
    // Nothing is read and nothing exits before the process has started: the events begin here.
    const onSpawn = () => {
      child.off("error", onError)
      child.stdout.on("data", events.stdout)
      child.stdout.once("close", events.stdoutEnd)
      child.stderr.on("data", events.stderr)
      child.stderr.once("close", events.stderrEnd)
      child.once("exit", (code, signal) => events.exit({ code, signal }))
      child.stdout.on("error", () => {})
      child.stderr.on("error", () => {})
      // A write after the server closed its stdin (EPIPE) is reported by the process ending.
      child.stdin.on("error", () => {})
      resume(Effect.succeed(child))
    }
    child.once("error", onError)
    child.once("spawn", onSpawn)
  })

/** The process as the transport drives it. Writes made in one turn of the event loop leave in one system call. */
const spawned = (child: ChildProcessWithoutNullStreams): StdioTransport.SpawnedProcess => {
  let corked = false
  const uncork = () => {
    corked = false
    child.stdin.uncork()
  }
  return {
    pid: child.pid ?? -1,
    write: (text) => {
      if (child.stdin.destroyed || child.stdin.writableEnded) return
      if (!corked) {
        corked = true
        child.stdin.cork()
        process.nextTick(uncork)
      }
      child.stdin.write(text)
    },
    endStdin: () => {
      child.stdin.end()
    },
    kill: (signal) => signalGroup(child, signal)
  }
}

/** Node's spawner. The scope's end kills the process group if the process is still running. */
const spawner: StdioTransport.SpawnerService = {
  writesInCaller: true,
  spawn: (request, events) =>
    Effect.map(
      Effect.acquireRelease(start(request, events), (child) =>
        Effect.sync(() => {
          if (child.exitCode === null && child.signalCode === null) signalGroup(child, "SIGKILL")
        })
      ),
      spawned
    )
}

/**
 * The {@link StdioTransport.Spawner} on `node:child_process`, for `StdioTransport.layerWithSpawner`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSpawner: Layer.Layer<StdioTransport.Spawner> = Layer.succeed(StdioTransport.Spawner, spawner)

/**
 * Starts the server and returns its transport and process; both end with the scope. The era
 * probe runs on that process (a server that exits on it is started again, once).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: StdioTransport.StdioOptions
): Effect.Effect<readonly [TransportService, StdioTransport.StdioProcessService], TransportError, Scope.Scope> =>
  Effect.provideService(StdioTransport.makeWithSpawner(options), StdioTransport.Spawner, spawner)

/**
 * A stdio `Transport` (and its `StdioProcess`) for a server command, on Node's `child_process`.
 *
 * *When to use*: a server started as a child process from a Node program: the fastest transport
 * here, and the one `NodePromiseClient` and `NodeTransports` use.
 *
 * *Gotchas*: the same environment, stderr and close rules as `StdioTransport.layer` (it is that
 * behaviour over a Node spawner); a command that is not found fails the layer with a
 * `TransportError` naming the PATH searched.
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
export const layer = (
  options: StdioTransport.StdioOptions
): Layer.Layer<Transport | StdioTransport.StdioProcess, TransportError> =>
  StdioTransport.layerWithSpawner(options).pipe(Layer.provide(layerSpawner))
