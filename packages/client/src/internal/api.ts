/**
 * The client's API as types: its options, per-call options and events, and the service. The
 * public `McpClient` module re-exports them; the wiring (`client.ts`) and the features build on
 * them without importing the public module.
 */
import type * as PlainForm from "@effect-mcp/jsonrpc/PlainForm"
import type { JsonRpc, McpApps, McpSchema, Methods, ProtocolVersion } from "@effect-mcp/protocol"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import type * as Option from "effect/Option"
import type * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import type { RequestError, SkillError, TaskNotAllowed, TaskRequired, ToolOutputInvalid } from "../McpError.js"
import type * as Retry from "../Retry.js"
import type { SessionState } from "../SessionState.js"
import type { LoadedSkill, Skill } from "../Skills.js"
import type { CallOptions, Progress } from "./features/callOptions.js"
import type * as ClientTasks from "./features/clientTasks.js"
import type * as Tasks from "./features/tasks.js"
import type { CallToolResult, Tool } from "./features/tools.js"
import type { SavedSession } from "./session/saved.js"
import type { Stats } from "./session/types.js"

export type { CallOptions, LogMessage, Progress } from "./features/callOptions.js"
export type { CallToolResult, Tool } from "./features/tools.js"

/** What a tool call can fail with. */
export type CallToolError = RequestError | ToolOutputInvalid | TaskRequired

/**
 * The plain form of a client's `callTool`, for a Promise adapter: the same call started from plain
 * code with no fiber. `onDone` gets its outcome once (at once when its first steps refuse it); the
 * function returned gives it up (cancelled on the server). `undefined`: it cannot start so now
 * (its steps need an effect first, or the session's `execute` cannot start from plain code); run
 * the effect instead. It may throw where the effect would die (arguments JSON cannot encode).
 */
export type StartCallTool = (
  name: string,
  args: { readonly [key: string]: unknown } | undefined,
  options: ToolCallOptions | undefined,
  onDone: (outcome: Exit.Exit<CallToolResult, CallToolError>) => void
) => (() => void) | undefined

/** A client's `callTool`, with its plain form while it has one (a decorated `callTool` has none). */
export interface CallTool extends PlainForm.Carrier<StartCallTool> {
  (
    name: string,
    args?: { readonly [key: string]: unknown },
    options?: ToolCallOptions
  ): Effect.Effect<CallToolResult, CallToolError>
}

/** The plain form of a client's `request`, as {@link StartCallTool} is of `callTool`. */
export type StartRequest = <M extends Methods.RequestMethodName>(
  method: M,
  params: Methods.RequestParamsOf<M> | undefined,
  options: CallOptions | undefined,
  onDone: (outcome: Exit.Exit<Methods.ResultOf<M>, RequestError>) => void
) => (() => void) | undefined

/** A client's `request`, with its plain form while it has one. */
export interface Request extends PlainForm.Carrier<StartRequest> {
  <M extends Methods.RequestMethodName>(
    method: M,
    params: Methods.RequestParamsOf<M> | undefined,
    options?: CallOptions
  ): Effect.Effect<Methods.ResultOf<M>, RequestError>
}

/** Options of a client. */
export interface McpClientOptions {
  /**
   * The server's name in errors, logs and spans. Default: the name the server reports in its
   * `serverInfo` once the handshake has said it (`mcp` before that).
   */
  readonly name?: string
  /** This client's name and version, sent in `initialize`. */
  readonly clientInfo?: McpSchema.Implementation
  /** The default timeout of every request. Default: 60 seconds. */
  readonly requestTimeout?: Duration.DurationInput
  /**
   * The revision to speak. `auto` (the default) probes the server with `server/discover` and
   * speaks 2026-07-28 to a server that has it, else initializes with the newest stateful
   * revision (and negotiates down). A stateful revision skips the probe; `2026-07-28` insists.
   */
  readonly protocolVersion?: ProtocolVersion.ProtocolVersion | "auto"
  /**
   * How long the era probe waits for an answer. Default: over stdio (where silence means a legacy
   * server, initialized after it on the same process) 10 seconds; over HTTP the request timeout (silence there is an
   * outage, not an era, so a slow server's first answer must not be cut short).
   */
  readonly probeTimeout?: Duration.DurationInput
  /** The most rounds of a 2026-07-28 request whose results keep asking for input. Default: 10. */
  readonly maxInputRounds?: number
  /** How many times a request is retried after re-initializing an expired HTTP session. Default: 1. */
  readonly sessionRetries?: number
  /**
   * Ping the server periodically; a ping that fails (no answer within `timeout`, the connection
   * gone) marks the session `Failed`. Over HTTP a ping that finds the session forgotten (a
   * restarted server) initializes a new one first, as any request does.
   */
  readonly keepAlive?: KeepAliveOptions
  /**
   * Serve task-augmented sampling and elicitation requests (2025-11-25): declared as the `tasks`
   * capability; the handler runs as a task the server polls. Off by default.
   */
  readonly clientTasks?: ClientTasks.ClientTaskOptions
  /**
   * Check a tool call's arguments against the tool's `inputSchema` before sending it (failing
   * with `InvalidInput` that names the tool and the JSON pointer). Default: true.
   */
  readonly validateToolInput?: boolean
  /**
   * Retries of failed requests, by what is safe to repeat (see `Retry`): `reads` (lists, reads,
   * prompts, completion, ping) and `tools` (only tools marked read-only or idempotent, or calls
   * marked `idempotent`). Default: none.
   */
  readonly retry?: Retry.RetrySettings
  /**
   * At most this many requests in flight; more wait, first come first served, in a queue of at
   * most `maxQueued` (default: no bound), and beyond it fail with `Overloaded`. Default: no bound.
   */
  readonly maxInFlight?: number
  readonly maxQueued?: number
  /**
   * Serve-stale: `tools`, `resources` and `prompts` answer from the last list fetched when a
   * refresh fails (a warning says so), so a host keeps its toolset through a blip. Default: false.
   */
  readonly serveStaleLists?: boolean
  /**
   * Reattach to a Streamable HTTP session another client saved (`savedSession`, kept as JSON with
   * the `Session.SavedSession` Schema): no handshake; its id goes with the first request, and the
   * client speaks the saved revision to the saved server. A server that forgot the session refuses
   * the first request, and the client initializes a new one (as after a restart, `sessionRetries`).
   * Over a transport that keeps no session (stdio, legacy HTTP+SSE), starting fails with
   * `SessionUnavailable`. Pair it with the transport's `terminateOnClose: false` to leave the
   * session for the next client.
   */
  readonly reattach?: SavedSession
  /**
   * Declare the MCP Apps extension (`io.modelcontextprotocol/ui`): `true` says this host renders
   * `text/html;profile=mcp-app` views; an object gives the settings (its `mimeTypes`). Declared at
   * `initialize` (2025-11-25) and in every request's client capabilities (2026-07-28). Off by
   * default: a server may offer other tools, or tools whose results expect a view, to a client
   * that declares it, so only a host that shows views should. A tool's view is read (`Tool.ui`)
   * whether it is declared or not.
   */
  readonly mcpApps?: boolean | McpApps.ClientCapabilities
}

/** When the client pings its server, and how long each ping may take. */
export interface KeepAliveOptions {
  /** The wait before each ping: a fixed interval, or a `Schedule` (its delays; the pings stop when it ends). */
  readonly interval: Duration.DurationInput | Schedule.Schedule<unknown>
  /** How long one ping may wait for its answer. Default: the interval when it is a duration, else the request timeout. */
  readonly timeout?: Duration.DurationInput
}

/** Options of one tool call. */
export interface ToolCallOptions extends CallOptions {
  /** Overrides the client's `validateToolInput` for this call. */
  readonly validateInput?: boolean
  /** The call may be repeated (it changes nothing twice): transient failures are retried by the tools policy. */
  readonly idempotent?: boolean
}

/** An event of {@link McpClientService.callToolStream}: progress, then the result. */
export type ToolCallEvent =
  | ({ readonly _tag: "Progress" } & Progress)
  | { readonly _tag: "Result"; readonly result: CallToolResult }

/** An event of {@link McpClientService.runToolAsTaskStream}: the task's status changes and progress, then the result. */
export type TaskRunEvent =
  | { readonly _tag: "Status"; readonly task: McpSchema.Task }
  | ({ readonly _tag: "Progress" } & Progress)
  | { readonly _tag: "Result"; readonly result: CallToolResult }

/** Which cached list a list-changed notification invalidated. */
export type ListKind = "tools" | "resources" | "prompts"

/** Tools run as tasks (2025-11-25), and the tasks the server keeps: built at their first use. */
export interface TasksService {
  /** Calls a tool as a task (2025-11-25): the task as created; fetch its result with {@link TasksService.result}. */
  readonly callTool: (
    name: string,
    args?: { readonly [key: string]: unknown },
    options?: Tasks.TaskOptions
  ) => Effect.Effect<McpSchema.Task, RequestError | TaskNotAllowed>
  /** Runs a tool as a task to its end: status changes to `onStatus`, polling at the server's interval; interruption cancels the task. */
  readonly run: (
    name: string,
    args?: { readonly [key: string]: unknown },
    options?: Tasks.RunOptions
  ) => Effect.Effect<CallToolResult, RequestError | ToolOutputInvalid | TaskNotAllowed>
  /**
   * {@link TasksService.run} as a `Stream`: each status change and the progress the
   * server reports, then the result. Ending it early cancels the task.
   */
  readonly runStream: (
    name: string,
    args?: { readonly [key: string]: unknown },
    options?: Omit<Tasks.RunOptions, "onStatus" | "onProgress">
  ) => Stream.Stream<TaskRunEvent, RequestError | ToolOutputInvalid | TaskNotAllowed>
  /** A task's current state (`tasks/get`). */
  readonly get: (taskId: string) => Effect.Effect<McpSchema.Task, RequestError>
  /** Waits for a tool task's result (`tasks/result`, which blocks until the task is final). */
  readonly result: (
    tool: string,
    taskId: string,
    options?: Tasks.TaskOptions
  ) => Effect.Effect<CallToolResult, RequestError | ToolOutputInvalid>
  /** Every task the server keeps for this client, all pages (`tasks/list`). */
  readonly list: Effect.Effect<ReadonlyArray<McpSchema.Task>, RequestError>
  /** Every task, page by page. */
  readonly stream: Stream.Stream<McpSchema.Task, RequestError>
  /** Cancels a task (`tasks/cancel`): its state afterwards. */
  readonly cancel: (taskId: string) => Effect.Effect<McpSchema.Task, RequestError>
  /** One task's pushed status changes (`notifications/tasks/status`), until it is final. */
  readonly status: (taskId: string) => Stream.Stream<McpSchema.Task>
  /** Every pushed task status change. */
  readonly statuses: Stream.Stream<McpSchema.Task>
}

/** The server's skills (the skills extension, SEP-2640): built at their first use. */
export interface SkillsService {
  /**
   * Every skill the server lists (the skills extension, SEP-2640), all pages; cached for the
   * listing's `ttlMs`, or until the resource list changes. Only the listing is read: no skill
   * file. Fails with `CapabilityNotSupported` when the server did not declare the extension.
   */
  readonly list: Effect.Effect<ReadonlyArray<Skill>, RequestError>
  /** One skill's entry by the URI of its `SKILL.md` (`skills/get`), listed or not. */
  readonly get: (uri: string, options?: CallOptions) => Effect.Effect<Skill, RequestError>
  /**
   * Loads a skill, named by its name, its path or its `SKILL.md` URI: reads its `SKILL.md` now
   * (and no other file), checks its size and digest against the listing and its frontmatter
   * field by field, and fails with `SkillVerificationFailed` (naming the file and the field) on
   * any mismatch, `SkillNotFound` when the name matches no skill or several.
   */
  readonly load: (nameOrUri: string, options?: CallOptions) => Effect.Effect<LoadedSkill, RequestError | SkillError>
  /** Drops the cached listing, if one was built. */
  readonly invalidate: Effect.Effect<void>
}

/** The client service. */
export interface McpClientService {
  /** The server's name: as configured, else as the server reports it. */
  readonly name: string
  /** The server's name, version and other info from `initialize`. */
  readonly serverInfo: McpSchema.Implementation
  /** What the server declared it supports. */
  readonly serverCapabilities: McpSchema.ServerCapabilities
  /** The server's instructions for the model, if it sent any. */
  readonly instructions: Option.Option<string>
  /** The negotiated revision. */
  readonly protocolVersion: ProtocolVersion.ProtocolVersion
  /** The protocol era: `stateful` (an initialize handshake, 2024-11-05 … 2025-11-25) or `stateless` (2026-07-28). */
  readonly era: "stateful" | "stateless"
  /** The session's current state. */
  readonly state: Effect.Effect<SessionState>
  /** The session's state, now and on every change. */
  readonly stateChanges: Stream.Stream<SessionState>
  /**
   * The session as a value to keep, for another client to reattach to (`reattach`): the server's
   * session id and what `initialize` negotiated, now (a session initialized again has a new id).
   * None before the session is ready, at 2026-07-28 (no sessions), and over stdio or HTTP+SSE.
   */
  readonly savedSession: Effect.Effect<Option.Option<SavedSession>>

  /** Sends `ping`; succeeds when the server answers. */
  readonly ping: (options?: CallOptions) => Effect.Effect<void, RequestError>
  /** Every tool, all pages; cached until the server says the list changed. */
  readonly tools: Effect.Effect<ReadonlyArray<Tool>, RequestError>
  /** Every tool, page by page, as the server lists them (not cached). */
  readonly toolsStream: Stream.Stream<Tool, RequestError>
  /**
   * Calls a tool. The arguments are checked against its `inputSchema` first (`InvalidInput`,
   * nothing sent; see `validateToolInput`); with an `outputSchema`, `structuredContent` is
   * checked against it.
   */
  readonly callTool: CallTool
  /** Tools run as tasks (2025-11-25), and the tasks the server keeps (`Features.Tasks`). */
  readonly tasks: TasksService
  /** Calls a tool; its progress and then its result as a `Stream`. Ending the stream early cancels the call. */
  readonly callToolStream: (
    name: string,
    args?: { readonly [key: string]: unknown },
    options?: Omit<ToolCallOptions, "onProgress">
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
  /** The server's skills (the skills extension, SEP-2640; `Features.Skills`). */
  readonly skills: SkillsService
  /** Asks for completions of a prompt's or resource template's argument. */
  readonly complete: (
    params: Methods.RequestParamsOf<"completion/complete">
  ) => Effect.Effect<Methods.ResultOf<"completion/complete">["completion"], RequestError>
  /** Sets the minimum level of the server's log messages. */
  readonly setLoggingLevel: (level: McpSchema.LoggingLevel) => Effect.Effect<void, RequestError>
  /** The server's log messages, from the moment the stream runs (not those a call took: `CallOptions.onLog`). */
  readonly logMessages: Stream.Stream<typeof McpSchema.LoggingMessageNotificationParams.Type>
  /** Which list changed, each time the server says one did (the cache is already invalidated). */
  readonly listChanged: Stream.Stream<ListKind>
  /** Every notification from the server, as received (but the log messages a call took: `CallOptions.onLog`). */
  readonly notifications: Stream.Stream<JsonRpc.JSONRPCNotification>
  /**
   * Runs `f` on each notification of `method` (its params decoded) as it is dispatched, for as long
   * as the scope is open: in order, before any stream sees it, and before a response the server
   * sent after it reaches its caller. For relays that must keep that order (a log message sent
   * during a call, passed on before the call's result); `f` holds up the connection's reader, so
   * it should be quick. The log messages a call took (`CallOptions.onLog`) do not come here.
   */
  readonly observe: <M extends Methods.NotificationMethodName>(
    method: M,
    f: (params: Methods.NotificationParamsOf<M>) => Effect.Effect<void>
  ) => Effect.Effect<void, never, Scope.Scope>
  /** Any request of the method table, typed by its method (capability-checked, encoded for the revision). */
  readonly request: Request
  /** Sends a notification of the method table. */
  readonly notify: <M extends Methods.NotificationMethodName>(
    method: M,
    params: Methods.NotificationParamsOf<M> | undefined
  ) => Effect.Effect<void, RequestError>
  /** Counters of the underlying peer (pending requests, in-flight server requests, violations). */
  readonly stats: Effect.Effect<Stats>
}
