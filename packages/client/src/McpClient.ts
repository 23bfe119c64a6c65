/**
 * The client: a typed, Effect-returning API over one MCP server. `McpClient.layer(options)`
 * needs a {@link Transport}; the handler services a host provides (`Sampling`, `Elicitation`,
 * `Roots`) become the client's capabilities. Building the layer performs the handshake;
 * closing its scope ends the session and the connection.
 */
import { type JsonRpc, McpSchema, Methods, ProtocolVersion, Revision } from "@effect-mcp/protocol"
import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Mailbox from "effect/Mailbox"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import { clientCapabilities, Elicitation, Roots, Sampling } from "./Capabilities.js"
import * as ClientTasks from "./internal/clientTasks.js"
import { validate } from "./internal/jsonSchema.js"
import * as Lists from "./internal/lists.js"
import * as ServerRequests from "./internal/serverRequests.js"
import * as Tasks from "./internal/tasks.js"
import {
  CapabilityNotSupported,
  DecodeError,
  type InitializeError,
  InvalidInput,
  type RequestError,
  SessionUnavailable,
  type TaskNotAllowed,
  type TaskRequired,
  ToolOutputInvalid,
  TransportError
} from "./McpError.js"
import * as Peer from "./Peer.js"
import { canMove, SessionState } from "./SessionState.js"
import { Transport } from "./Transport.js"

/** Options of a client. */
export interface McpClientOptions {
  /** The server's name in errors, logs and spans. Default: `"mcp"`. */
  readonly name?: string
  /** This client's name and version, sent in `initialize`. */
  readonly clientInfo?: McpSchema.Implementation
  /** The default timeout of every request. Default: 60 seconds. */
  readonly requestTimeout?: Duration.DurationInput
  /** The revision to request. Default: the newest supported. */
  readonly protocolVersion?: ProtocolVersion.ProtocolVersion
  /** How many times a request is retried after re-initializing an expired HTTP session. Default: 1. */
  readonly sessionRetries?: number
  /** Ping the server every `interval`; no answer within `timeout` marks the session `Failed`. */
  readonly keepAlive?: { readonly interval: Duration.DurationInput; readonly timeout?: Duration.DurationInput }
  /**
   * Serve task-augmented sampling and elicitation requests (2025-11-25): declared as the `tasks`
   * capability; the handler runs as a task the server polls. Off by default.
   */
  readonly clientTasks?: ClientTasks.ClientTaskOptions
}

/** Progress reported by the server for one request. */
export interface Progress {
  readonly progress: number
  readonly total?: number
  readonly message?: string
}

/** Per-call options. */
export interface CallOptions {
  /** Overrides the client's request timeout. */
  readonly timeout?: Duration.DurationInput
  /** Progress restarts the timeout. */
  readonly resetTimeoutOnProgress?: boolean
  /** The longest the call may take, progress or not. */
  readonly maxTotalTimeout?: Duration.DurationInput
  /** Asks for progress and receives it. */
  readonly onProgress?: (progress: Progress) => Effect.Effect<void>
}

/** An event of {@link McpClientService.callToolStream}: progress, then the result. */
export type ToolCallEvent =
  | ({ readonly _tag: "Progress" } & Progress)
  | { readonly _tag: "Result"; readonly result: McpSchema.CallToolResult }

/** An event of {@link McpClientService.runToolAsTaskStream}: the task's status changes, then the result. */
export type TaskRunEvent =
  | { readonly _tag: "Status"; readonly task: McpSchema.Task }
  | { readonly _tag: "Result"; readonly result: McpSchema.CallToolResult }

/** Which cached list a list-changed notification invalidated. */
export type ListKind = "tools" | "resources" | "prompts"

/** The client service. */
export interface McpClientService {
  /** The server's name, as configured. */
  readonly name: string
  /** The server's name, version and other info from `initialize`. */
  readonly serverInfo: McpSchema.Implementation
  /** What the server declared it supports. */
  readonly serverCapabilities: McpSchema.ServerCapabilities
  /** The server's instructions for the model, if it sent any. */
  readonly instructions: Option.Option<string>
  /** The negotiated revision. */
  readonly protocolVersion: ProtocolVersion.ProtocolVersion
  /** The session's current state. */
  readonly state: Effect.Effect<SessionState>
  /** The session's state, now and on every change. */
  readonly stateChanges: Stream.Stream<SessionState>

  /** Sends `ping`; succeeds when the server answers. */
  readonly ping: (options?: CallOptions) => Effect.Effect<void, RequestError>
  /** Every tool, all pages; cached until the server says the list changed. */
  readonly tools: Effect.Effect<ReadonlyArray<McpSchema.Tool>, RequestError>
  /** Every tool, page by page, as the server lists them (not cached). */
  readonly toolsStream: Stream.Stream<McpSchema.Tool, RequestError>
  /** Calls a tool. With an `outputSchema`, `structuredContent` is checked against it. */
  readonly callTool: (
    name: string,
    args?: { readonly [key: string]: unknown },
    options?: CallOptions
  ) => Effect.Effect<McpSchema.CallToolResult, RequestError | ToolOutputInvalid | TaskRequired>
  /** Calls a tool as a task (2025-11-25): the task as created; fetch its result with {@link McpClientService.taskResult}. */
  readonly callToolAsTask: (
    name: string,
    args?: { readonly [key: string]: unknown },
    options?: Tasks.TaskOptions
  ) => Effect.Effect<McpSchema.Task, RequestError | TaskNotAllowed>
  /** Runs a tool as a task to its end: status changes to `onStatus`, polling at the server's interval; interruption cancels the task. */
  readonly runToolAsTask: (
    name: string,
    args?: { readonly [key: string]: unknown },
    options?: Tasks.RunOptions
  ) => Effect.Effect<McpSchema.CallToolResult, RequestError | ToolOutputInvalid | TaskNotAllowed>
  /** {@link McpClientService.runToolAsTask} as a `Stream`: each status change, then the result. Ending it early cancels the task. */
  readonly runToolAsTaskStream: (
    name: string,
    args?: { readonly [key: string]: unknown },
    options?: Omit<Tasks.RunOptions, "onStatus">
  ) => Stream.Stream<TaskRunEvent, RequestError | ToolOutputInvalid | TaskNotAllowed>
  /** A task's current state (`tasks/get`). */
  readonly getTask: (taskId: string) => Effect.Effect<McpSchema.Task, RequestError>
  /** Waits for a tool task's result (`tasks/result`, which blocks until the task is final). */
  readonly taskResult: (
    tool: string,
    taskId: string,
    options?: Tasks.TaskOptions
  ) => Effect.Effect<McpSchema.CallToolResult, RequestError | ToolOutputInvalid>
  /** Every task the server keeps for this client, all pages (`tasks/list`). */
  readonly tasks: Effect.Effect<ReadonlyArray<McpSchema.Task>, RequestError>
  /** Every task, page by page. */
  readonly tasksStream: Stream.Stream<McpSchema.Task, RequestError>
  /** Cancels a task (`tasks/cancel`): its state afterwards. */
  readonly cancelTask: (taskId: string) => Effect.Effect<McpSchema.Task, RequestError>
  /** One task's pushed status changes (`notifications/tasks/status`), until it is final. */
  readonly taskStatus: (taskId: string) => Stream.Stream<McpSchema.Task>
  /** Every pushed task status change. */
  readonly taskStatuses: Stream.Stream<McpSchema.Task>
  /** Calls a tool; its progress and then its result as a `Stream`. Ending the stream early cancels the call. */
  readonly callToolStream: (
    name: string,
    args?: { readonly [key: string]: unknown },
    options?: Omit<CallOptions, "onProgress">
  ) => Stream.Stream<ToolCallEvent, RequestError | ToolOutputInvalid | TaskRequired>
  /** Every resource, all pages; cached until the server says the list changed. */
  readonly resources: Effect.Effect<ReadonlyArray<McpSchema.Resource>, RequestError>
  /** Every resource, page by page (not cached). */
  readonly resourcesStream: Stream.Stream<McpSchema.Resource, RequestError>
  /** Every resource template, all pages. */
  readonly resourceTemplates: Effect.Effect<ReadonlyArray<McpSchema.ResourceTemplate>, RequestError>
  /** Reads a resource. */
  readonly readResource: (
    uri: string,
    options?: CallOptions
  ) => Effect.Effect<typeof McpSchema.ReadResourceResult.Type, RequestError>
  /** Subscribes to updates of a resource (see {@link McpClientService.resourceUpdates}). */
  readonly subscribe: (uri: string) => Effect.Effect<void, RequestError>
  /** Ends a subscription. */
  readonly unsubscribe: (uri: string) => Effect.Effect<void, RequestError>
  /** `notifications/resources/updated`, from the moment the stream runs. */
  readonly resourceUpdates: Stream.Stream<typeof McpSchema.ResourceUpdatedNotificationParams.Type>
  /** Every prompt, all pages; cached until the server says the list changed. */
  readonly prompts: Effect.Effect<ReadonlyArray<McpSchema.Prompt>, RequestError>
  /** Gets a prompt with its arguments filled in. */
  readonly getPrompt: (
    name: string,
    args?: { readonly [key: string]: string },
    options?: CallOptions
  ) => Effect.Effect<typeof McpSchema.GetPromptResult.Type, RequestError>
  /** Asks for completions of a prompt's or resource template's argument. */
  readonly complete: (
    params: Methods.RequestParamsOf<"completion/complete">
  ) => Effect.Effect<Methods.ResultOf<"completion/complete">["completion"], RequestError>
  /** Sets the minimum level of the server's log messages. */
  readonly setLoggingLevel: (level: McpSchema.LoggingLevel) => Effect.Effect<void, RequestError>
  /** The server's log messages, from the moment the stream runs. */
  readonly logMessages: Stream.Stream<typeof McpSchema.LoggingMessageNotificationParams.Type>
  /** Which list changed, each time the server says one did (the cache is already invalidated). */
  readonly listChanged: Stream.Stream<ListKind>
  /** Every notification from the server, as received. */
  readonly notifications: Stream.Stream<JsonRpc.JSONRPCNotification>
  /** Any request of the method table, typed by its method (capability-checked, encoded for the revision). */
  readonly request: <M extends Methods.RequestMethodName>(
    method: M,
    params: Methods.RequestParamsOf<M> | undefined,
    options?: CallOptions
  ) => Effect.Effect<Methods.ResultOf<M>, RequestError>
  /** Sends a notification of the method table. */
  readonly notify: <M extends Methods.NotificationMethodName>(
    method: M,
    params: Methods.NotificationParamsOf<M> | undefined
  ) => Effect.Effect<void, RequestError>
  /** Counters of the underlying peer (pending requests, in-flight server requests, violations). */
  readonly stats: Peer.Peer["stats"]
}

/** The client of one MCP server. */
export class McpClient extends Context.Tag("@effect-mcp/client/McpClient")<McpClient, McpClientService>() {}

const DEFAULT_CLIENT_INFO: McpSchema.Implementation = { name: "effect-mcp", version: "0.1.0" }

/** Runs `run` (which emits events) as a Stream of its events, then its result; ending the stream early interrupts it. */
const eventStream = <Event, A, E>(
  run: (emit: (event: Event) => Effect.Effect<void>) => Effect.Effect<A, E>,
  last: (result: A) => Event
): Stream.Stream<Event, E> =>
  Stream.unwrapScoped(
    Effect.gen(function* () {
      const events = yield* Mailbox.make<Event, E>()
      yield* run((event) => Effect.asVoid(events.offer(event))).pipe(
        Effect.flatMap((result) => events.offer(last(result))),
        Mailbox.into(events),
        Effect.forkScoped
      )
      return Mailbox.toStream(events)
    })
  )

/**
 * Starts a session over the transport in context: the handshake, then a client. Fails
 * with the handshake's error; the session ends with the scope.
 */
export const make = (
  options: McpClientOptions = {}
): Effect.Effect<McpClientService, InitializeError, Transport | Scope.Scope> =>
  Effect.gen(function* () {
    const name = options.name ?? "mcp"
    const transport = yield* Transport
    const state = yield* SubscriptionRef.make<SessionState>(SessionState.Disconnected())
    // Only legal transitions happen; a refused one (a late failure after closing) changes and
    // publishes nothing (a SubscriptionRef publishes on every write, so check before writing).
    const moveLock = yield* Effect.makeSemaphore(1)
    // `current` mirrors the state for the request path, which reads it on every request.
    let current: SessionState = SessionState.Disconnected()
    const move = (next: SessionState) =>
      moveLock.withPermits(1)(
        Effect.flatMap(SubscriptionRef.get(state), (now) =>
          canMove(now, next)
            ? Effect.zipRight(
                Effect.sync(() => {
                  current = next
                }),
                SubscriptionRef.set(state, next)
              )
            : Effect.void
        )
      )
    yield* move(SessionState.Connecting())

    const peer = yield* Peer.make(transport, { server: name, requestTimeout: options.requestTimeout ?? "60 seconds" })
    yield* Effect.addFinalizer(() => Effect.zipRight(move(SessionState.Closing()), move(SessionState.Closed())))

    const handlers = {
      sampling: yield* Effect.serviceOption(Sampling),
      elicitation: yield* Effect.serviceOption(Elicitation),
      roots: yield* Effect.serviceOption(Roots)
    }
    let version: ProtocolVersion.ProtocolVersion = options.protocolVersion ?? ProtocolVersion.LATEST

    const callOptions = (call: CallOptions | undefined): Peer.RequestOptions => {
      if (call === undefined) return {}
      const onProgress = call.onProgress
      return {
        ...(call.timeout === undefined ? {} : { timeout: call.timeout }),
        ...(call.resetTimeoutOnProgress === undefined ? {} : { resetTimeoutOnProgress: call.resetTimeoutOnProgress }),
        ...(call.maxTotalTimeout === undefined ? {} : { maxTotalTimeout: call.maxTotalTimeout }),
        ...(onProgress === undefined
          ? {}
          : {
              onProgress: (raw: Peer.WireObject) => {
                const decoded = Methods.decodeNotificationParams("notifications/progress", raw)
                if (Either.isLeft(decoded)) return Effect.void
                const { progress, total, message } = decoded.right
                return onProgress({
                  progress,
                  ...(total === undefined ? {} : { total }),
                  ...(message === undefined ? {} : { message })
                })
              }
            })
      }
    }

    const encodeParams = <M extends Methods.RequestMethodName>(
      method: M,
      params: Methods.RequestParamsOf<M> | undefined
    ): Either.Either<Peer.WireObject | undefined, InvalidInput | Revision.UnrepresentableMessage> => {
      if (params === undefined) return Revision.requestParams(version, method, undefined)
      const encoded = Methods.encodeRequestParams(method, params)
      if (Either.isLeft(encoded)) {
        return Either.left(
          new InvalidInput({ server: name, method, reason: ParseResult.TreeFormatter.formatErrorSync(encoded.left) })
        )
      }
      if (!McpSchema.isJsonObject(encoded.right)) {
        return Either.left(new InvalidInput({ server: name, method, reason: "params must be an object" }))
      }
      return Revision.requestParams(version, method, encoded.right)
    }

    // The hot path: no generator, one effect for the wire and one step to decode.
    const sendRaw = <M extends Methods.RequestMethodName>(
      method: M,
      params: Methods.RequestParamsOf<M> | undefined,
      options?: Peer.RequestOptions
    ): Effect.Effect<Peer.WireObject, RequestError> =>
      Effect.suspend((): Effect.Effect<Peer.WireObject, RequestError> => {
        const wire = encodeParams(method, params)
        return Either.isLeft(wire) ? Effect.fail(wire.left) : peer.request(method, wire.right, options)
      })
    const send = <M extends Methods.RequestMethodName>(
      method: M,
      params: Methods.RequestParamsOf<M> | undefined,
      options?: Peer.RequestOptions
    ): Effect.Effect<Methods.ResultOf<M>, RequestError> =>
      Effect.flatMap(sendRaw(method, params, options), (raw) => {
        const decoded = Methods.decodeResult(method, raw)
        return Either.isLeft(decoded)
          ? Effect.fail(
              new DecodeError({ server: name, method, issue: ParseResult.TreeFormatter.formatErrorSync(decoded.left) })
            )
          : Effect.succeed(decoded.right)
      })

    // Server-to-client requests, for the capabilities the provided handlers declare. Registered
    // before the handshake: a server may ask as soon as it has seen notifications/initialized.
    const clientTasks =
      options.clientTasks === undefined ? undefined : yield* ClientTasks.make(peer, options.clientTasks)
    yield* ServerRequests.register(
      {
        server: name,
        peer,
        version: () => version,
        rootsChanged: Effect.suspend(() => Effect.ignore(notify("notifications/roots/list_changed", undefined))),
        ...(clientTasks === undefined ? {} : { tasks: clientTasks })
      },
      handlers
    )

    // The handshake. Nothing else goes out before it completes.
    const clientInfo = options.clientInfo ?? DEFAULT_CLIENT_INFO
    const handshake = send(
      "initialize",
      { protocolVersion: version, capabilities: clientCapabilities(handlers, clientTasks !== undefined), clientInfo },
      { cancellable: false }
    ).pipe(
      Effect.flatMap((result) =>
        Either.map(ProtocolVersion.negotiate(version, result.protocolVersion), (negotiated) => ({ result, negotiated }))
      ),
      Effect.tap(({ negotiated }) =>
        Effect.gen(function* () {
          version = negotiated
          yield* transport.setProtocolVersion(negotiated)
          yield* peer.notify("notifications/initialized")
        })
      )
    )
    yield* move(SessionState.Initializing())
    const init = yield* handshake.pipe(Effect.tapError((cause) => move(SessionState.Failed({ cause }))))
    const serverCapabilities = init.result.capabilities
    yield* move(SessionState.Ready({ version, serverInfo: init.result.serverInfo }))

    // An HTTP server that forgot the session: initialize again (once for all requests that
    // noticed), then retry the request.
    const sessionRetries = options.sessionRetries ?? 1
    const reinitLock = yield* Effect.makeSemaphore(1)
    let sessionGeneration = 0
    const reinitialize = (seen: number): Effect.Effect<void, RequestError> =>
      reinitLock
        .withPermits(1)(
          Effect.suspend(() =>
            seen !== sessionGeneration
              ? Effect.void
              : Effect.logWarning(`${name}: the server lost the session; initializing a new one`).pipe(
                  Effect.zipRight(handshake),
                  Effect.tap(() => Effect.sync(() => sessionGeneration++)),
                  Effect.asVoid
                )
          )
        )
        .pipe(
          Effect.catchTag(
            "UnsupportedProtocolVersion",
            (error) => new SessionUnavailable({ server: name, reason: error.message })
          )
        )
    const sendWithSession = <M extends Methods.RequestMethodName>(
      method: M,
      params: Methods.RequestParamsOf<M> | undefined,
      requestOptions: Peer.RequestOptions,
      retriesLeft = sessionRetries
    ): Effect.Effect<Methods.ResultOf<M>, RequestError> =>
      Effect.suspend(() => {
        const seen = sessionGeneration
        return send(method, params, requestOptions).pipe(
          Effect.catchIf(
            (error): error is TransportError =>
              error._tag === "TransportError" && error.sessionExpired === true && retriesLeft > 0,
            () => Effect.zipRight(reinitialize(seen), sendWithSession(method, params, requestOptions, retriesLeft - 1))
          )
        )
      })

    /** Fails unless the session is ready (read from the state's mirror, without an effect). */
    const unavailable = (): SessionUnavailable | undefined =>
      current._tag === "Ready"
        ? undefined
        : new SessionUnavailable({
            server: name,
            reason: current._tag === "Failed" ? current.cause.message : `the session is ${current._tag}`
          })
    const availability = Effect.suspend(() => {
      const error = unavailable()
      return error === undefined ? Effect.void : Effect.fail(error)
    })

    const request = <M extends Methods.RequestMethodName>(
      method: M,
      params: Methods.RequestParamsOf<M> | undefined,
      call?: CallOptions,
      spanAttributes?: Peer.RequestOptions["spanAttributes"]
    ): Effect.Effect<Methods.ResultOf<M>, RequestError> =>
      Effect.suspend((): Effect.Effect<Methods.ResultOf<M>, RequestError> => {
        const error = unavailable()
        if (error !== undefined) return Effect.fail(error)
        const capability = Methods.requestCapability(method)
        if (capability?.side === "server" && !Methods.declares(serverCapabilities, capability, version)) {
          return Effect.fail(
            new CapabilityNotSupported({ server: name, method, capability: capability.path.join(".") })
          )
        }
        const requestOptions = callOptions(call)
        return sendWithSession(
          method,
          params,
          spanAttributes === undefined ? requestOptions : { ...requestOptions, spanAttributes }
        )
      })

    const notify = <M extends Methods.NotificationMethodName>(
      method: M,
      params: Methods.NotificationParamsOf<M> | undefined
    ): Effect.Effect<void, RequestError> =>
      Effect.gen(function* () {
        yield* availability
        const encoded =
          params === undefined ? Either.right(undefined) : Methods.encodeNotificationParams(method, params)
        if (Either.isLeft(encoded)) {
          return yield* new InvalidInput({
            server: name,
            method,
            reason: ParseResult.TreeFormatter.formatErrorSync(encoded.left)
          })
        }
        const wire = yield* Revision.notificationParams(
          version,
          method,
          McpSchema.isJsonObject(encoded.right) ? encoded.right : undefined
        )
        yield* peer.notify(method, wire)
      })

    // Cached lists, invalidated by list-changed notifications.
    const listChanged = yield* Mailbox.make<ListKind>()
    const listChangedHub = yield* Stream.broadcastDynamic(Mailbox.toStream(listChanged), { capacity: "unbounded" })

    // Every list method takes PaginatedRequestParams; TypeScript cannot see that through M.
    const page =
      <M extends Lists.ListMethod>(method: M) =>
      (cursor: string | undefined) =>
        request(method, (cursor === undefined ? undefined : { cursor }) as Methods.RequestParamsOf<M> | undefined)
    const toolsStream = Lists.paginate(name, "tools/list", page("tools/list"), (result) => result.tools)
    const resourcesStream = Lists.paginate(name, "resources/list", page("resources/list"), (result) => result.resources)
    const tools = yield* Lists.cachedList(toolsStream)
    const resources = yield* Lists.cachedList(resourcesStream)
    const prompts = yield* Lists.cachedList(
      Lists.paginate(name, "prompts/list", page("prompts/list"), (result) => result.prompts)
    )

    const invalidations: Record<string, readonly [ListKind, Effect.Effect<void>]> = {
      "notifications/tools/list_changed": ["tools", tools.invalidate],
      "notifications/resources/list_changed": ["resources", resources.invalidate],
      "notifications/prompts/list_changed": ["prompts", prompts.invalidate]
    }
    const subscription = yield* peer.subscribe
    yield* Stream.fromQueue(subscription).pipe(
      Stream.runForEach((notification) => {
        const hit = invalidations[notification.method]
        return hit === undefined ? Effect.void : Effect.zipRight(hit[1], listChanged.offer(hit[0]))
      }),
      Effect.forkScoped
    )

    const notificationsOf = <M extends Methods.NotificationMethodName>(method: M) =>
      peer.notifications.pipe(
        Stream.filter((notification) => notification.method === method),
        Stream.filterMap((notification) =>
          Either.getRight(Methods.decodeNotificationParams(method, notification.params ?? {}))
        )
      )

    /** The tool's definition from the cached list (listed once if needed; a failure to list is logged, not fatal). */
    const knownTool = (tool: string): Effect.Effect<Option.Option<McpSchema.Tool>> =>
      Effect.flatMap(tools.peek, (known) =>
        Option.isSome(known)
          ? Effect.succeed(known)
          : tools.get.pipe(
              Effect.tapError((error) =>
                Effect.logDebug(`${name}: cannot list tools to check ${tool}: ${error.message}`)
              ),
              Effect.option
            )
      ).pipe(Effect.map(Option.flatMap((list) => Option.fromNullable(list.find((entry) => entry.name === tool)))))

    // Validation needs the tool's definition; a server that cannot list its tools does not make a
    // successful call fail (the check is skipped, and the log says so).
    const checkOutput = (
      tool: string,
      result: McpSchema.CallToolResult
    ): Effect.Effect<McpSchema.CallToolResult, RequestError | ToolOutputInvalid> =>
      result.isError === true
        ? Effect.succeed(result)
        : Effect.flatMap(knownTool(tool), (definition) => {
            const outputSchema = Option.getOrUndefined(definition)?.outputSchema
            if (outputSchema === undefined) return Effect.succeed(result)
            if (result.structuredContent === undefined) {
              return Effect.fail(new ToolOutputInvalid({ server: name, tool, reason: "structuredContent is missing" }))
            }
            const problem = validate(outputSchema, result.structuredContent)
            return problem === undefined
              ? Effect.succeed(result)
              : Effect.fail(new ToolOutputInvalid({ server: name, tool, reason: problem }))
          })

    const taskStatuses = notificationsOf("notifications/tasks/status").pipe(Stream.map(({ _meta: _, ...task }) => task))

    const tasks = Tasks.make({
      server: name,
      serverCapabilities,
      request,
      callToolRaw: (params, requestOptions) =>
        Effect.suspend(() => {
          const error = unavailable()
          return error === undefined ? sendRaw("tools/call", params, requestOptions) : Effect.fail(error)
        }),
      tool: knownTool,
      checkOutput,
      statuses: taskStatuses
    })

    const callTool: McpClientService["callTool"] = (tool, args, call) =>
      Effect.zipRight(
        tasks.checkPlainCall(tool),
        request("tools/call", args === undefined ? { name: tool } : { name: tool, arguments: args }, call, {
          "mcp.tool": tool
        }).pipe(Effect.flatMap((result) => checkOutput(tool, result)))
      )

    if (options.keepAlive !== undefined) {
      const { interval, timeout } = options.keepAlive
      yield* request("ping", undefined, { timeout: timeout ?? interval }).pipe(
        Effect.repeat(Schedule.spaced(interval)),
        Effect.catchAll((cause) => move(SessionState.Failed({ cause }))),
        Effect.delay(interval),
        Effect.forkScoped
      )
    }

    // The connection ending on its own (the server went away or broke it) fails the session.
    yield* peer.closed.pipe(
      Effect.flatMap((error) =>
        move(
          SessionState.Failed({
            cause: Option.getOrElse(
              error,
              () => new TransportError({ server: name, reason: "the server closed the connection" })
            )
          })
        )
      ),
      Effect.forkScoped
    )

    return {
      name,
      serverInfo: init.result.serverInfo,
      serverCapabilities,
      instructions: Option.fromNullable(init.result.instructions),
      protocolVersion: version,
      state: SubscriptionRef.get(state),
      stateChanges: state.changes,
      ping: (call) => Effect.asVoid(request("ping", undefined, call)),
      tools: tools.get,
      toolsStream,
      callTool,
      callToolAsTask: tasks.callToolAsTask,
      runToolAsTask: tasks.runToolAsTask,
      getTask: tasks.getTask,
      taskResult: tasks.toolTaskResult,
      tasks: Tasks.collect(tasks.tasksStream),
      tasksStream: tasks.tasksStream,
      cancelTask: tasks.cancelTask,
      taskStatus: tasks.taskStatus,
      taskStatuses,
      callToolStream: (tool, args, call) =>
        eventStream(
          (emit) =>
            callTool(tool, args, { ...call, onProgress: (progress) => emit({ _tag: "Progress", ...progress }) }),
          (result): ToolCallEvent => ({ _tag: "Result", result })
        ),
      runToolAsTaskStream: (tool, args, options) =>
        eventStream(
          (emit) => tasks.runToolAsTask(tool, args, { ...options, onStatus: (task) => emit({ _tag: "Status", task }) }),
          (result): TaskRunEvent => ({ _tag: "Result", result })
        ),
      resources: resources.get,
      resourcesStream,
      resourceTemplates: Stream.runCollect(
        Lists.paginate(
          name,
          "resources/templates/list",
          page("resources/templates/list"),
          (result) => result.resourceTemplates
        )
      ).pipe(Effect.map(Chunk.toReadonlyArray)),
      readResource: (uri, call) => request("resources/read", { uri }, call),
      subscribe: (uri) => Effect.asVoid(request("resources/subscribe", { uri })),
      unsubscribe: (uri) => Effect.asVoid(request("resources/unsubscribe", { uri })),
      resourceUpdates: notificationsOf("notifications/resources/updated"),
      prompts: prompts.get,
      getPrompt: (prompt, args, call) =>
        request("prompts/get", args === undefined ? { name: prompt } : { name: prompt, arguments: args }, call),
      complete: (params) => Effect.map(request("completion/complete", params), (result) => result.completion),
      setLoggingLevel: (level) => Effect.asVoid(request("logging/setLevel", { level })),
      logMessages: notificationsOf("notifications/message"),
      listChanged: listChangedHub,
      notifications: peer.notifications,
      request,
      notify,
      stats: peer.stats
    } satisfies McpClientService
  })

/** A client layer over the transport in context; building it performs the handshake. */
export const layer = (options: McpClientOptions = {}): Layer.Layer<McpClient, InitializeError, Transport> =>
  Layer.scoped(McpClient, make(options))
