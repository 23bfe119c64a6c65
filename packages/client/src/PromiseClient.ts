/**
 * effect-mcp for Promise programs: a client whose calls return Promises and reject with the
 * client's own tagged errors (`RpcError`, `RequestTimeout`, `InvalidInput`, …; an aborted call
 * with its signal's reason).
 *
 * It adapts at the bottom only. A call takes the client's own steps (the tool's checks, the
 * session's gate and encoding, then decoding and the output check). When the client's
 * `callTool` (or `request`) has a plain form (`PlainForm`) and nobody traces, the call starts
 * there, from plain code with no fiber: its pending cost is one entry in the peer's map and a
 * Promise. A decorated client, session or transport has none where the decoration stands, so
 * the call's effect runs, through the decoration, with the same outcome.
 *
 * @since 0.1.0
 */

import * as PlainForm from "@effect-mcp/jsonrpc/PlainForm"
import * as Tracing from "@effect-mcp/jsonrpc/Tracing"
import { Transport, type TransportService } from "@effect-mcp/jsonrpc/Transport"
import type { Methods } from "@effect-mcp/protocol"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Scope from "effect/Scope"
import type {
  CallToolResult,
  LogMessage,
  McpClientOptions,
  McpClientService,
  Progress,
  Tool,
  ToolCallOptions
} from "./internal/api.js"
import * as Client from "./internal/client.js"
import { McpClient } from "./McpClient.js"
import { SessionUnavailable } from "./McpError.js"

/**
 * Options of one call: the client's, with progress as a plain callback and an `AbortSignal`.
 *
 * @since 0.1.0
 * @category options
 */
export interface PromiseCallOptions extends Omit<ToolCallOptions, "onProgress" | "onLog"> {
  /** Aborting gives the call up (it is cancelled on the server) and rejects it with the signal's reason. */
  readonly signal?: AbortSignal
  /** Asks for progress and receives it. */
  readonly onProgress?: (progress: Progress) => void
  /** Receives the call's own log messages (`McpClient.CallOptions.onLog`). */
  readonly onLog?: (message: LogMessage) => void
}

/**
 * A connected client, for Promise programs.
 *
 * @since 0.1.0
 * @category models
 */
export interface PromiseClient {
  /** The client service, for what this interface does not wrap (run its effects with `run`). */
  readonly client: McpClientService
  /** `McpClient.callTool`. */
  readonly callTool: (
    tool: string,
    args?: { readonly [key: string]: unknown },
    options?: PromiseCallOptions
  ) => Promise<CallToolResult>
  /** `McpClient.request`: any request of the method table. */
  readonly request: <M extends Methods.RequestMethodName>(
    method: M,
    params?: Methods.RequestParamsOf<M>,
    options?: PromiseCallOptions
  ) => Promise<Methods.ResultOf<M>>
  /** `McpClient.tools`: every tool (cached until the server says the list changed). */
  readonly listTools: () => Promise<ReadonlyArray<Tool>>
  /** Runs any effect of the client (`(client) => client.readResource(uri)`). */
  readonly run: <A, E>(
    f: (client: McpClientService) => Effect.Effect<A, E>,
    options?: { readonly signal?: AbortSignal }
  ) => Promise<A>
  /** Ends the session and frees everything it holds; later calls reject with `SessionUnavailable`. */
  readonly close: () => Promise<void>
}

/** What interrupted a call, when it was not a failure of its own. */
interface Interrupter {
  readonly signal: AbortSignal | undefined
  readonly closed: boolean
  readonly server: string
}

/**
 * What a Promise rejects with: the typed error; when interrupted, the signal's reason if it was
 * aborted, or `SessionUnavailable` if the client was closed under it; else the defect.
 */
const rejection = <E>(cause: Cause.Cause<E>, by: Interrupter): unknown => {
  const failure = Cause.failureOption(cause)
  if (failure._tag === "Some") return failure.value
  if (Cause.isInterruptedOnly(cause)) {
    if (by.signal?.aborted === true) return by.signal.reason
    if (by.closed) return new SessionUnavailable({ server: by.server, reason: "the client was closed" })
  }
  return Cause.squash(cause)
}

const callOptions = (options: PromiseCallOptions | undefined): ToolCallOptions | undefined => {
  if (options === undefined) return undefined
  const { signal: _signal, onProgress, onLog, ...rest } = options
  return {
    ...rest,
    ...(onProgress === undefined
      ? {}
      : { onProgress: (progress: Progress) => Effect.sync(() => onProgress(progress)) }),
    ...(onLog === undefined ? {} : { onLog: (message: LogMessage) => Effect.sync(() => onLog(message)) })
  }
}

/** Where a client's effects run and how it ends: a `ManagedRuntime`, or the default runtime. */
interface Host<R, ER> {
  readonly runPromiseExit: <A, E>(
    effect: Effect.Effect<A, E, R>,
    options?: { readonly signal?: AbortSignal }
  ) => Promise<Exit.Exit<A, E | ER>>
  readonly dispose: () => Promise<void>
}

/**
 * Connects over a transport layer: builds it in a runtime of its own, which runs every call (so
 * a tracer, logger or other service merged into the layer holds in them), then the handshake.
 * Rejects with the transport's or the handshake's error; `close` ends the session.
 *
 * *When to use*: a Promise program that has a transport layer. On Node with no layers at hand,
 * `NodePromiseClient.connect({ command, args } | { url })`; over layers it decorates, `fromLayer`.
 *
 * *Gotchas*: call `close()`: the server's process or connection lives until then. Rejections are
 * the client's tagged errors: tell them with `McpError.isMcpError(u)` and `_tag`, not `instanceof`
 * (a bundle may carry its own copy). A tracer in the layer makes every call run its effect, for
 * its spans.
 *
 * @example
 * ```ts
 * import { PromiseClient, StdioTransport } from "@effect-mcp/client"
 * import { NodeContext } from "@effect/platform-node"
 * import { Layer } from "effect"
 *
 * const transport = StdioTransport.layer({
 *   command: "npx",
 *   args: ["-y", "@modelcontextprotocol/server-everything"]
 * }).pipe(Layer.provide(NodeContext.layer))
 *
 * // Calls are Promises; they reject with the client's tagged errors (`RpcError`, …)
 * export const echo = async (message: string) => {
 *   const mcp = await PromiseClient.connect(transport, {
 *     name: "everything",
 *     requestTimeout: "30 seconds"
 *   })
 *   try {
 *     const result = await mcp.callTool(
 *       "echo",
 *       { message },
 *       { onProgress: (p) => console.log(p.progress) }
 *     )
 *     return result.content
 *   } finally {
 *     await mcp.close()
 *   }
 * }
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const connect = <E>(
  transport: Layer.Layer<Transport, E>,
  options: McpClientOptions = {}
): Promise<PromiseClient> => {
  const runtime = ManagedRuntime.make(transport)
  const scope = Effect.runSync(Scope.make())
  return start(Scope.extend(Client.make(options), scope), {
    runPromiseExit: (effect, run) => runtime.runPromiseExit(effect, run),
    dispose: () => Effect.runPromise(Scope.close(scope, Exit.void)).then(() => runtime.dispose())
  })
}

/**
 * Connects over a transport made by a scoped effect (`@effect-mcp/node`'s `NodeStdioTransport.make`): no layer is
 * built, so a client holds less memory than one of `connect`. Its calls run in the default
 * runtime. Rejects with the transport's or the handshake's error; `close` closes the scope.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <E>(
  transport: Effect.Effect<TransportService, E, Scope.Scope>,
  options: McpClientOptions = {}
): Promise<PromiseClient> => {
  const scope = Effect.runSync(Scope.make())
  const acquire = Effect.flatMap(transport, (made) => Effect.provideService(Client.make(options), Transport, made))
  return start(Scope.extend(acquire, scope), {
    runPromiseExit: (effect, run) => Effect.runPromiseExit(effect, run),
    dispose: () => Effect.runPromise(Scope.close(scope, Exit.void))
  })
}

/**
 * A client for Promise programs over a client layer: `McpClient.layer`, or one whose transport,
 * session, features or client is decorated (`layerFromSession` over a decorated `Session`, a
 * `Layer.effect` that wraps `McpClient`). The layer is built in a runtime of its own, which runs
 * every call, so every call goes through what the layer put there: a call starts from plain code
 * only where nothing decorated stands in its way. Rejects with the layer's error; `close` ends it.
 *
 * @example
 * ```ts
 * import { McpClient, PromiseClient, StdioTransport } from "@effect-mcp/client"
 * import { NodeContext } from "@effect/platform-node"
 * import { Effect, Layer } from "effect"
 *
 * // Every tool call is logged, from Effect programs and Promise programs alike
 * const Logged = Layer.effect(
 *   McpClient.McpClient,
 *   Effect.map(McpClient.McpClient, (client) => ({
 *     ...client,
 *     callTool: (...args: Parameters<typeof client.callTool>) =>
 *       Effect.zipRight(Effect.logInfo(`calling ${args[0]}`), client.callTool(...args))
 *   }))
 * ).pipe(
 *   Layer.provide(McpClient.layer({ name: "everything" })),
 *   Layer.provide(StdioTransport.layer({ command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] })),
 *   Layer.provide(NodeContext.layer)
 * )
 *
 * export const echo = async (message: string) => {
 *   const mcp = await PromiseClient.fromLayer(Logged)
 *   try {
 *     return (await mcp.callTool("echo", { message })).content
 *   } finally {
 *     await mcp.close()
 *   }
 * }
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromLayer = <E>(layer: Layer.Layer<McpClient, E>): Promise<PromiseClient> => {
  const runtime = ManagedRuntime.make(layer)
  return start(McpClient, {
    runPromiseExit: (effect, run) => runtime.runPromiseExit(effect, run),
    dispose: () => runtime.dispose()
  })
}

const start = async <E, R, ER>(
  acquire: Effect.Effect<McpClientService, E, R>,
  host: Host<R, ER>
): Promise<PromiseClient> => {
  const connected = await host.runPromiseExit(Effect.zip(acquire, Effect.tracer))
  if (Exit.isFailure(connected)) {
    await host.dispose()
    throw rejection(connected.cause, { signal: undefined, closed: false, server: "mcp" })
  }
  const [client, tracer] = connected.value
  // Someone traces: every call runs its effect, which makes the spans.
  const traced = !Tracing.isNative(tracer)

  // After close, every call is refused with the client's own error (not the runtime's).
  let closed = false
  const refused = () => Promise.reject(new SessionUnavailable({ server: client.name, reason: "the client was closed" }))

  const run: PromiseClient["run"] = (f, options) => {
    if (closed) return refused()
    const signal = options?.signal
    return host
      .runPromiseExit(
        Effect.suspend(() => f(client)),
        signal === undefined ? undefined : { signal }
      )
      .then((exit) =>
        Exit.isSuccess(exit)
          ? exit.value
          : Promise.reject(rejection(exit.cause, { signal, closed, server: client.name }))
      )
  }

  /**
   * A call started from plain code by `start` (`undefined`: it has no plain form), unless it cannot
   * start so now: then, and when someone traces, its effect runs.
   */
  const adapt = <A, E>(
    start: ((onDone: (outcome: Exit.Exit<A, E>) => void) => (() => void) | undefined) | undefined,
    effect: (client: McpClientService) => Effect.Effect<A, E>,
    signal: AbortSignal | undefined
  ): Promise<A> => {
    if (closed) return refused()
    if (signal?.aborted === true) return Promise.reject(signal.reason)
    if (start === undefined || traced) return run(effect, signal === undefined ? undefined : { signal })
    let resolve: (value: A) => void = () => {}
    let reject: (reason: unknown) => void = () => {}
    const promise = new Promise<A>((onResolve, onReject) => {
      resolve = onResolve
      reject = onReject
    })
    let onAbort: (() => void) | undefined
    let settled = false
    let abandon: (() => void) | undefined
    try {
      abandon = start((outcome) => {
        settled = true
        if (onAbort !== undefined) signal?.removeEventListener("abort", onAbort)
        if (Exit.isSuccess(outcome)) resolve(outcome.value)
        else reject(rejection(outcome.cause, { signal: undefined, closed, server: client.name }))
      })
    } catch (defect) {
      // Arguments the wire cannot carry (a bigint, a cycle): rejected, as the effect's defect would be.
      return Promise.reject(defect)
    }
    if (abandon === undefined) return run(effect, signal === undefined ? undefined : { signal })
    if (signal !== undefined && !settled) {
      const giveUp = abandon
      onAbort = () => {
        reject(signal.reason)
        giveUp()
      }
      signal.addEventListener("abort", onAbort, { once: true })
    }
    return promise
  }

  return {
    client,
    callTool: (tool, args, options) => {
      const call = callOptions(options)
      const startCall = PlainForm.of(client.callTool)
      return adapt(
        startCall === undefined ? undefined : (onDone) => startCall(tool, args, call, onDone),
        (client) => client.callTool(tool, args, call),
        options?.signal
      )
    },
    request: (method, params, options) => {
      const call = callOptions(options)
      const startRequest = PlainForm.of(client.request)
      return adapt(
        startRequest === undefined ? undefined : (onDone) => startRequest(method, params, call, onDone),
        (client) => client.request(method, params, call),
        options?.signal
      )
    },
    listTools: () => run((client) => client.tools),
    run,
    close: () => {
      closed = true
      return host.dispose()
    }
  }
}
