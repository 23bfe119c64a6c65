/**
 * effect-mcp for Promise programs: a client built from its layer (or its scoped effect) whose calls return Promises and
 * reject with the client's own tagged errors (`RpcError`, `RequestTimeout`, `InvalidInput`, …;
 * an aborted call with its signal's reason).
 *
 * A tool call or request that needs no effect on its way (a ready session that speaks a stateful
 * revision, over a transport that writes at once such as `NodeStdioTransport`, its tool list
 * cached, no retry policy, middleware or tracer) starts with no fiber: its pending cost is one
 * entry in the peer's map and a Promise. Every other call runs the client's effect, with the
 * same outcome.
 */
import type { McpSchema, Methods } from "@effect-mcp/protocol"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Scope from "effect/Scope"
import * as Begin from "./internal/begin.js"
import { McpClient, type McpClientService, type Progress, type ToolCallOptions } from "./McpClient.js"
import { SessionUnavailable } from "./McpError.js"

/** Options of one call: the client's, with progress as a plain callback and an `AbortSignal`. */
export interface PromiseCallOptions extends Omit<ToolCallOptions, "onProgress"> {
  /** Aborting gives the call up (it is cancelled on the server) and rejects it with the signal's reason. */
  readonly signal?: AbortSignal
  /** Asks for progress and receives it. */
  readonly onProgress?: (progress: Progress) => void
}

/** A connected client, for Promise programs. */
export interface PromiseClient {
  /** The client service, for what this interface does not wrap (run its effects with `run`). */
  readonly client: McpClientService
  /** `McpClient.callTool`. */
  readonly callTool: (
    tool: string,
    args?: { readonly [key: string]: unknown },
    options?: PromiseCallOptions
  ) => Promise<McpSchema.CallToolResult>
  /** `McpClient.request`: any request of the method table. */
  readonly request: <M extends Methods.RequestMethodName>(
    method: M,
    params?: Methods.RequestParamsOf<M>,
    options?: PromiseCallOptions
  ) => Promise<Methods.ResultOf<M>>
  /** `McpClient.tools`: every tool (cached until the server says the list changed). */
  readonly listTools: () => Promise<ReadonlyArray<McpSchema.Tool>>
  /** Runs any effect of the client (`(client) => client.readResource(uri)`). */
  readonly run: <A, E>(
    f: (client: McpClientService) => Effect.Effect<A, E>,
    options?: { readonly signal?: AbortSignal }
  ) => Promise<A>
  /** Ends the session and frees everything it holds; later calls reject with `SessionUnavailable`. */
  readonly close: () => Promise<void>
}

/** Effect's default tracer: with it, nobody traces and a call needs no span. */
const nativeTracer = Effect.runSync(Effect.tracer)

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
  const { signal: _signal, onProgress, ...rest } = options
  return onProgress === undefined
    ? rest
    : { ...rest, onProgress: (progress: Progress) => Effect.sync(() => onProgress(progress)) }
}

/** Where a client's effects run and how it ends: a `ManagedRuntime`, or the default runtime and a scope. */
interface Host<R, ER> {
  readonly runPromiseExit: <A, E>(
    effect: Effect.Effect<A, E, R>,
    options?: { readonly signal?: AbortSignal }
  ) => Promise<Exit.Exit<A, E | ER>>
  readonly dispose: () => Promise<void>
}

/**
 * Connects: builds the client's layer (the transport and the handshake) in a runtime of its own,
 * which runs every call (so the services and settings the layer provides hold in them). Rejects
 * with the handshake's error; `close` ends the session.
 */
export const connect = <E>(layer: Layer.Layer<McpClient, E>): Promise<PromiseClient> => {
  const runtime = ManagedRuntime.make(layer)
  return start(McpClient, {
    runPromiseExit: (effect, options) => runtime.runPromiseExit(effect, options),
    dispose: () => runtime.dispose()
  })
}

/**
 * Connects with an effect that makes the client in a scope (`McpClient.make` with its transport
 * provided): no layer is built, so a client holds less memory than one of `connect` (some 40 KB).
 * Its calls run in the default runtime: a tracer, logger or other setting meant for them belongs in
 * `connect`'s layer. Rejects with the effect's error; `close` closes the scope.
 */
export const make = <E>(acquire: Effect.Effect<McpClientService, E, Scope.Scope>): Promise<PromiseClient> => {
  const scope = Effect.runSync(Scope.make())
  return start<E, never, never>(Scope.extend(acquire, scope), {
    runPromiseExit: (effect, options) => Effect.runPromiseExit(effect, options),
    dispose: () => Effect.runPromise(Scope.close(scope, Exit.void))
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
  // Someone traces: every call takes its effect, which makes the spans.
  const beginnings = tracer === nativeTracer ? Begin.of(client) : undefined

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

  /** The call begun without a fiber when it can be, else its effect run. */
  const begun = <A, E>(
    begin: Begin.Begin<A, E> | undefined,
    effect: (client: McpClientService) => Effect.Effect<A, E>,
    signal: AbortSignal | undefined
  ): Promise<A> => {
    if (begin === undefined || closed) return run(effect, signal === undefined ? undefined : { signal })
    if (signal?.aborted === true) return Promise.reject(signal.reason)
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
      abandon = begin((outcome) => {
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
      return begun(
        beginnings?.callTool(tool, args, call),
        (client) => client.callTool(tool, args, call),
        options?.signal
      )
    },
    request: (method, params, options) => {
      const call = callOptions(options)
      return begun(
        beginnings?.request(method, params, call),
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
