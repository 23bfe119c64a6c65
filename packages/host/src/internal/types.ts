/**
 * The host's types: its options, a server's configuration, status events, and the service. The
 * public `McpHost` module re-exports them; the host's internal parts build on them.
 */
import type { McpClient, McpError, Retry, Skills, Transports } from "@effect-mcp/client"
import type { McpSchema, ProtocolVersion } from "@effect-mcp/protocol"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import type * as Aggregate from "../Aggregate.js"
import type { Target } from "../config/ServerEntry.js"
import type { DuplicateServer, NotFound, ServerUnavailable, ToolNotAllowed, UnknownServer } from "../HostError.js"
import type { ServerStatus } from "../ServerStatus.js"

/** Per-server options. */
export interface ServerOptions {
  /** The default timeout of this server's requests (also how long a call waits for it to recover). Default: 60 seconds. */
  readonly requestTimeout?: Duration.DurationInput
  /**
   * At most this many requests in flight to this server at once (the client's `maxInFlight`;
   * more wait their turn). Default: unlimited.
   */
  readonly concurrency?: number
  /** Retries of this server's failed requests, by what is safe to repeat. Default: none. */
  readonly retry?: Retry.RetrySettings
  /** This server's lists answer from their last good value when a refresh fails. Default: false. */
  readonly serveStaleLists?: boolean
  /** Only these tools are shown and callable. */
  readonly allowTools?: ReadonlyArray<string>
  /** These tools are hidden and refused. */
  readonly denyTools?: ReadonlyArray<string>
  /**
   * A tool result whose JSON is larger than this many bytes is cut: its text at a boundary near
   * the budget, the blocks after it and a structured content that does not fit left out, and a
   * closing text block saying what was left out. Default: unlimited.
   */
  readonly maxResultBytes?: number
  /** A disabled server is configured but not started. Default: true. */
  readonly enabled?: boolean
  /** Which of the host's environment variables a stdio server sees. Default: `"safe"`. */
  readonly inheritEnv?: "safe" | "all"
  /**
   * The protocol revision: `auto` (default) probes the server once and remembers the era for
   * its restarts; a revision pins it.
   */
  readonly protocolVersion?: ProtocolVersion.ProtocolVersion | "auto"
  /**
   * Ping this server's session on a schedule: a ping that fails marks the session dead, so the
   * host restarts it; over HTTP a ping that finds the session forgotten (the server restarted)
   * re-initializes it first. Overrides the host's `keepAlive`; `false` turns it off. Default: the host's.
   */
  readonly keepAlive?: McpClient.KeepAliveOptions | false
}

/** One server the host runs. */
export interface ServerConfig {
  readonly name: string
  readonly target: Target
  readonly options?: ServerOptions
}

/** Options of a host. */
export interface HostOptions {
  readonly servers: ReadonlyArray<ServerConfig>
  /** How names are made host-wide. Default: `<server>__<name>`. */
  readonly namespace?: Aggregate.Namespace
  /**
   * Delays between restarts of a server whose session died; when the schedule ends the server
   * is `Failed`. Default: exponential
   * from 250 ms, at most 5 s apart, at most 5 restarts in a row.
   */
  readonly restart?: Schedule.Schedule<unknown, McpError.InitializeError>
  /** A session that stayed up this long starts the restart schedule over. Default: 60 seconds. */
  readonly restartResetAfter?: Duration.DurationInput
  /** This client's name and version, sent to every server. */
  readonly clientInfo?: McpSchema.Implementation
  /**
   * Keepalive for every server reached over HTTP (a stdio server's death is seen without one):
   * pings on the schedule, and a dead session is restarted. A server's own `keepAlive` wins. Default: none.
   */
  readonly keepAlive?: McpClient.KeepAliveOptions
  /**
   * Declare the MCP Apps extension to every server (the client's `mcpApps`): only for a host that
   * shows the servers' views. Default: not declared.
   */
  readonly mcpApps?: McpClient.McpClientOptions["mcpApps"]
  /**
   * Whether building the host waits for each server's first connection attempt to end. `false`:
   * the host is there at once and its servers connect behind it (their statuses say how far), as a
   * page that must come up while a server waits for a login wants. Default: true.
   */
  readonly awaitServers?: boolean
}

/** A server's status, as published on {@link McpHostService.statusChanges}. */
export interface StatusEvent {
  readonly server: string
  readonly status: ServerStatus
}

/** Something in the aggregate changed: a server's status, or one of its lists. */
export type HostChange =
  | { readonly _tag: "Status"; readonly server: string; readonly status: ServerStatus }
  | { readonly _tag: "List"; readonly server: string; readonly list: "tools" | "resources" | "prompts" }

/** A server as the host has it. */
export interface ServerInfo {
  readonly name: string
  /** Its configuration, as given. */
  readonly config: ServerConfig
  /** Whether it is meant to run: as `enable`/`disable` last said, else as its configuration's `enabled`. */
  readonly enabled: boolean
  readonly status: ServerStatus
}

/** What {@link McpHostService.reload} did. */
export interface ReloadSummary {
  readonly added: ReadonlyArray<string>
  readonly removed: ReadonlyArray<string>
  readonly restarted: ReadonlyArray<string>
  readonly unchanged: ReadonlyArray<string>
}

/** What a routed call can fail with. */
export type HostCallError =
  | McpError.RequestError
  | McpError.TaskRequired
  | NotFound
  | ServerUnavailable
  | ToolNotAllowed

/** What loading a skill through the host can fail with. */
export type HostSkillError = McpError.RequestError | McpError.SkillError | ServerUnavailable

/**
 * A session of one server's own, beside the one the host shares (`McpHostService.openSession`):
 * a new process or connection, for one caller.
 */
export interface OwnSession {
  readonly server: string
  readonly client: McpClient.McpClientService
}

/** Per-call options of routed calls. */
export type CallOptions = McpClient.CallOptions & {
  /** The call goes over this session of its server instead of the shared one (ignored for another server). */
  readonly session?: OwnSession
}

/** Options of a tool called as a task: its retention (`ttl`) and each request's timeout. */
export type TaskOptions = NonNullable<Parameters<McpClient.McpClientService["tasks"]["callTool"]>[2]>

/** A tool task started through the host: the server running it, the tool's name there, and the task. */
export interface HostTask {
  readonly server: string
  readonly tool: string
  readonly task: McpSchema.Task
}

/** The host service. */
export interface McpHostService {
  /** Every server, in configuration order, with its status. */
  readonly servers: Effect.Effect<ReadonlyArray<ServerInfo>>
  /** One server's status. */
  readonly status: (server: string) => Effect.Effect<ServerStatus, UnknownServer>
  /** Every server's status, now and on every change. */
  readonly statusChanges: Stream.Stream<StatusEvent>
  /** Every change to the aggregate (statuses and lists), from the moment the stream runs. */
  readonly changes: Stream.Stream<HostChange>
  /** The aggregated view of every ready server (and of those restarting, whose calls wait for them). */
  readonly aggregate: Effect.Effect<Aggregate.Aggregate>
  /** Every ready server's tools (allow and deny lists applied), under host-wide names. */
  readonly tools: Effect.Effect<ReadonlyArray<Aggregate.HostTool>>
  /** Every ready server's resources. */
  readonly resources: Effect.Effect<ReadonlyArray<Aggregate.HostResource>>
  /** Every ready server's resource templates. */
  readonly resourceTemplates: Effect.Effect<ReadonlyArray<Aggregate.HostResourceTemplate>>
  /** Every ready server's prompts, under host-wide names. */
  readonly prompts: Effect.Effect<ReadonlyArray<Aggregate.HostPrompt>>
  /**
   * Every ready server's skills (the skills extension), from the listings alone: no skill file is
   * read. A server that does not declare the extension has none; one whose listing fails is
   * logged and left out.
   */
  readonly skills: Effect.Effect<ReadonlyArray<Aggregate.HostSkill>>
  /**
   * Loads one of a server's skills (by name, path or `SKILL.md` URI) with that server's client,
   * which verifies it first (`SkillVerificationFailed`; `SkillNotFound` for a name that matches
   * no skill or several).
   */
  readonly loadSkill: (
    server: string,
    nameOrUri: string,
    options?: CallOptions
  ) => Effect.Effect<Skills.LoadedSkill, HostSkillError>
  /** Calls a tool by its host-wide name on the server that offers it. */
  readonly callTool: (
    name: string,
    args?: { readonly [key: string]: unknown },
    options?: CallOptions
  ) => Effect.Effect<McpClient.CallToolResult, HostCallError | McpError.ToolOutputInvalid>
  /**
   * Calls a tool by its host-wide name as a task (2025-11-25): the task as its server created it.
   * Follow it with that server's client (`client`), and fetch its result with `taskResult`.
   */
  readonly callToolAsTask: (
    name: string,
    args?: { readonly [key: string]: unknown },
    options?: TaskOptions
  ) => Effect.Effect<HostTask, HostCallError | McpError.TaskNotAllowed>
  /** Waits for a task's result (`tasks/result`), cut to its server's result budget. */
  readonly taskResult: (
    task: HostTask,
    options?: TaskOptions
  ) => Effect.Effect<McpClient.CallToolResult, McpError.RequestError | McpError.ToolOutputInvalid | ServerUnavailable>
  /** Reads a resource from the server that listed its URI (or whose template matches it). */
  readonly readResource: (
    uri: string,
    options?: CallOptions
  ) => Effect.Effect<typeof McpSchema.ReadResourceResult.Type, HostCallError>
  /** Gets a prompt by its host-wide name. */
  readonly getPrompt: (
    name: string,
    args?: { readonly [key: string]: string },
    options?: CallOptions
  ) => Effect.Effect<typeof McpSchema.GetPromptResult.Type, HostCallError>
  /**
   * A session of the server's own, for one caller, ending with the scope: a new process or
   * connection, initialized as the shared one is, with the host's handlers. A caller's calls go over
   * it with `CallOptions.session`: a gateway gives one to a caller whose calls the server could not
   * tell from another caller's on the shared session (its requests say no call).
   */
  readonly openSession: (
    server: string
  ) => Effect.Effect<OwnSession, UnknownServer | McpError.InitializeError, Scope.Scope>
  /** One server's client, once it is ready (waiting up to its request timeout). */
  readonly client: (server: string) => Effect.Effect<McpClient.McpClientService, UnknownServer | ServerUnavailable>
  /** Adds and starts a server; succeeds once its first connection attempt has ended either way. */
  readonly add: (config: ServerConfig) => Effect.Effect<void, DuplicateServer>
  /** Stops and forgets a server. */
  readonly remove: (server: string) => Effect.Effect<void, UnknownServer>
  /**
   * Starts a disabled (or failed) server again. Like `disable`, this overrides the configuration's
   * `enabled` until a reload changes the server's configuration (a reload that leaves it unchanged keeps it).
   */
  readonly enable: (server: string) => Effect.Effect<void, UnknownServer>
  /**
   * Stops a server but keeps its configuration. It stays stopped across reloads that leave its
   * configuration unchanged; a reload that changes it starts it as the new configuration says.
   */
  readonly disable: (server: string) => Effect.Effect<void, UnknownServer>
  /**
   * Makes the running servers match these: only servers whose configuration changed are touched
   * (restarted, as their new configuration says); the others keep running or stay stopped.
   */
  readonly reload: (servers: ReadonlyArray<ServerConfig>) => Effect.Effect<ReloadSummary>
}

/**
 * What the host needs from the platform: its transports (`Transports.layer`, the generic ones
 * over a `CommandExecutor` and an `HttpClient`, or a platform package's, such as Node's).
 */
export type Platform = Transports.Transports
