/**
 * The stdio transport: spawns the server as a child process and speaks newline-delimited JSON over
 * its stdin and stdout. The process comes from a {@link Spawner}: `layer` and `make` use any
 * platform's `CommandExecutor`; `layerWithSpawner` and `makeWithSpawner` take a platform's own
 * (`@effect-mcp/node`'s `NodeStdioTransport` is this transport over `node:child_process`).
 *
 * - The child gets only a safe set of the parent's environment variables plus `env`, unless
 *   `inheritEnv: "all"`.
 * - stdout is framed in linear time with a maximum message size; a line that is not JSON is a
 *   logged, counted protocol violation and is skipped.
 * - stderr is drained continuously, logged at debug level, offered as a `Stream`, and its last
 *   lines are attached to the error when the process dies.
 * - The child exiting or crashing ends the transport with a `TransportError` carrying the exit
 *   code or signal and the stderr tail; every pending request then fails at once. Whatever it
 *   started in its process group is killed as it exits (servers started through `npx` or a shell
 *   are process trees).
 * - Close: end stdin, wait; SIGTERM to the process group, wait; SIGKILL. Every wait is on
 *   Effect's clock.
 *
 * @since 0.1.0
 */
import * as CommandExecutor from "@effect/platform/CommandExecutor"
import { Transport, type TransportService } from "@effect-mcp/jsonrpc/Transport"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as CommandSpawner from "./internal/transport/commandSpawner.js"
import type { SpawnerService } from "./internal/transport/spawner.js"
import type { StdioOptions, StdioProcessService } from "./internal/transport/stdio.js"
import { connect } from "./internal/transport/stdioConnection.js"
import { probedInPlace } from "./internal/transport/stdioProbe.js"
import type { TransportError } from "./McpError.js"

export type {
  /**
   * What a started process does, as it happens: plain callbacks from the platform's own.
   *
   * @since 0.1.0
   * @category models
   */
  ProcessEvents,
  /**
   * How a process ended: its exit code, or the signal that ended it.
   *
   * @since 0.1.0
   * @category models
   */
  ProcessExit,
  /**
   * A started process: its pid, a plain write to stdin, the end of stdin, signals to its group.
   *
   * @since 0.1.0
   * @category models
   */
  SpawnedProcess,
  /**
   * Starts processes for the stdio transport, each in a process group of its own.
   *
   * @since 0.1.0
   * @category models
   */
  SpawnerService,
  /**
   * What to start: the program, its arguments, its environment and its working directory.
   *
   * @since 0.1.0
   * @category models
   */
  SpawnRequest,
  /**
   * The signals the stdio transport sends.
   *
   * @since 0.1.0
   * @category models
   */
  StopSignal
} from "./internal/transport/spawner.js"
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

/**
 * What starts the server process: {@link layerSpawner} on any platform's `CommandExecutor`, or a
 * platform's own (`@effect-mcp/node`'s `NodeStdioTransport.layerSpawner`). The transport's
 * behaviour is the same over either.
 *
 * @since 0.1.0
 * @category services
 */
export class Spawner extends Context.Tag("@effect-mcp/client/StdioTransport/Spawner")<Spawner, SpawnerService>() {}

/**
 * The {@link Spawner} over `@effect/platform`'s `CommandExecutor`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSpawner: Layer.Layer<Spawner, never, CommandExecutor.CommandExecutor> = Layer.effect(
  Spawner,
  Effect.map(CommandExecutor.CommandExecutor, CommandSpawner.make)
)

/**
 * Starts the server through the {@link Spawner} and returns its transport and process; both end
 * with the scope. The era probe runs on that process (a server that exits on it is started again,
 * once).
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeWithSpawner = (
  options: StdioOptions
): Effect.Effect<readonly [TransportService, StdioProcessService], TransportError, Spawner | Scope.Scope> =>
  Effect.flatMap(Spawner, (spawner) => probedInPlace(connect(options, spawner)))

/**
 * Starts the server (through `CommandExecutor`) and returns its transport and process; both end
 * with the scope. The era probe runs on that process (a server that exits on it is started again,
 * once).
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
    Effect.provideService(makeWithSpawner(options), Spawner, CommandSpawner.make(executor))
  )

/**
 * A stdio `Transport` (and its `StdioProcess`) for a server command, started through the
 * {@link Spawner}.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerWithSpawner = (
  options: StdioOptions
): Layer.Layer<Transport | StdioProcess, TransportError, Spawner> =>
  Layer.scopedContext(
    Effect.map(makeWithSpawner(options), ([transport, info]) =>
      Context.make(Transport, transport).pipe(Context.add(StdioProcess, info))
    )
  )

/**
 * A stdio `Transport` (and its `StdioProcess`) for a server command.
 *
 * *When to use*: a server started as a child process, on any platform that provides a
 * `CommandExecutor`. On Node prefer `NodeStdioTransport.layer`: the same behaviour over
 * `node:child_process`, whose writes happen in the caller (faster, and a Promise client's calls
 * need no fiber).
 *
 * *Gotchas*: the child gets only a safe set of this process's environment variables plus `env`
 * (`inheritEnv: "all"` passes everything). Its stderr is not the protocol: read it through
 * `StdioProcess`. Closing ends stdin, then sends SIGTERM after `shutdown.afterStdin` and SIGKILL
 * after `shutdown.afterTerm`, to the whole process group.
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
  layerWithSpawner(options).pipe(Layer.provide(layerSpawner))
