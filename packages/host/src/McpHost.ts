/**
 * A host: one client per configured server, all connected concurrently, presented as one
 * aggregated and namespaced set of tools, resources and prompts. A server that fails to start
 * does not fail the host (its status says why); one that crashes is restarted on a backoff
 * `Schedule`; calls route by namespaced name or URI to the right client and wait (up to their
 * timeout) for a server that is recovering. Servers can be added, removed, enabled, disabled
 * and reloaded while the host runs. Closing the host's scope closes every client in parallel.
 *
 * The handler services (`Sampling`, `Elicitation`, `Roots`) provided to the host's layer are
 * shared by every client; each request's context names the server that asked.
 */
import type * as CommandExecutor from "@effect/platform/CommandExecutor"
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as HttpClient from "@effect/platform/HttpClient"
import type * as Path from "@effect/platform/Path"
import type { McpClient, McpError, Retry, Skills } from "@effect-mcp/client"
import type { McpSchema, ProtocolVersion } from "@effect-mcp/protocol"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import * as Aggregate from "./Aggregate.js"
import * as ConfigLoader from "./config/ConfigLoader.js"
import type * as Expand from "./config/Expand.js"
import type { ServerEntry, Target } from "./config/ServerEntry.js"
import {
  type ConfigError,
  DuplicateServer,
  type NotFound,
  type ServerUnavailable,
  type ToolNotAllowed,
  type UnknownServer
} from "./HostError.js"
import * as Registry from "./internal/registry.js"
import * as Router from "./internal/router.js"
import * as Supervisor from "./internal/supervisor.js"
import type { ServerStatus } from "./ServerStatus.js"

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
  /** A disabled server is configured but not started. Default: true. */
  readonly enabled?: boolean
  /** Which of the host's environment variables a stdio server sees. Default: `"safe"`. */
  readonly inheritEnv?: "safe" | "all"
  /**
   * The protocol revision: `auto` (default) probes the server once and remembers the era for
   * its restarts; a revision pins it.
   */
  readonly protocolVersion?: ProtocolVersion.ProtocolVersion | "auto"
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
  readonly config: ServerConfig
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

/** Per-call options of routed calls. */
export type CallOptions = McpClient.CallOptions

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
  ) => Effect.Effect<McpSchema.CallToolResult, HostCallError | McpError.ToolOutputInvalid>
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
  /** One server's client, once it is ready (waiting up to its request timeout). */
  readonly client: (server: string) => Effect.Effect<McpClient.McpClientService, UnknownServer | ServerUnavailable>
  /** Adds and starts a server; succeeds once its first connection attempt has ended either way. */
  readonly add: (config: ServerConfig) => Effect.Effect<void, DuplicateServer>
  /** Stops and forgets a server. */
  readonly remove: (server: string) => Effect.Effect<void, UnknownServer>
  /** Starts a disabled (or failed) server again. */
  readonly enable: (server: string) => Effect.Effect<void, UnknownServer>
  /** Stops a server but keeps its configuration. */
  readonly disable: (server: string) => Effect.Effect<void, UnknownServer>
  /** Makes the running servers match these: only servers whose configuration changed are touched. */
  readonly reload: (servers: ReadonlyArray<ServerConfig>) => Effect.Effect<ReloadSummary>
}

/** The host. */
export class McpHost extends Context.Tag("@effect-mcp/host/McpHost")<McpHost, McpHostService>() {}

/** What the host needs from the platform: a process launcher and an HTTP client. */
export type Platform = CommandExecutor.CommandExecutor | HttpClient.HttpClient

/** The default restart schedule: exponential from 250 ms, capped at 5 s, 5 restarts. */
export const defaultRestart: Schedule.Schedule<unknown, McpError.InitializeError> = Schedule.exponential(
  "250 millis"
).pipe(Schedule.union(Schedule.spaced("5 seconds")), Schedule.intersect(Schedule.recurs(5)))

/**
 * Starts a host; its servers stop with the scope. This is wiring: the registry
 * (`internal/registry.ts`, an immutable value swapped in one step), one supervisor per server
 * (`internal/supervisor.ts`) and the router (`internal/router.ts`).
 */
export const make = (options: HostOptions): Effect.Effect<McpHostService, never, Scope.Scope | Platform> =>
  Effect.gen(function* () {
    const scope = yield* Effect.scope
    const events: Supervisor.Events = {
      changes: yield* PubSub.unbounded<HostChange>(),
      // Every status change of every server, for statusChanges (replayed: current statuses first).
      statuses: yield* PubSub.unbounded<StatusEvent>()
    }
    const settings: Supervisor.Settings = {
      restart: options.restart ?? defaultRestart,
      resetAfter: Duration.decode(options.restartResetAfter ?? "60 seconds"),
      clientInfo: options.clientInfo,
      platform: yield* Effect.context<Platform>(),
      events
    }
    const registry = yield* SubscriptionRef.make(Registry.empty)
    // Writers take turns; readers never wait: they read whichever registry is current.
    const writer = yield* Effect.makeSemaphore(1)
    const router = Router.make(registry, options.namespace ?? Aggregate.defaultNamespace)

    const entryFor = (config: ServerConfig): Effect.Effect<Registry.Entry> =>
      Effect.map(Supervisor.make(settings, config).pipe(Scope.extend(scope)), (supervisor) => ({ config, supervisor }))
    const enabled = (entry: Registry.Entry) => entry.config.options?.enabled !== false
    const startAll = (started: ReadonlyArray<Registry.Entry>) =>
      Effect.forEach(started.filter(enabled), (entry) => entry.supervisor.start(entry.config), {
        concurrency: "unbounded",
        discard: true
      })
    const stopAll = (stopped: ReadonlyArray<Registry.Entry>) =>
      Effect.forEach(stopped, (entry) => entry.supervisor.stop, { concurrency: "unbounded", discard: true })

    /** Records the server as enabled or not; stops it, and starts it again when enabled. */
    const setEnabled = (server: string, on: boolean) =>
      writer.withPermits(1)(
        Effect.gen(function* () {
          const entry = yield* router.lookup(server)
          const updated = { ...entry, config: { ...entry.config, options: { ...entry.config.options, enabled: on } } }
          yield* SubscriptionRef.update(registry, (current) => Registry.put(current, updated))
          yield* entry.supervisor.stop
          if (on) yield* entry.supervisor.start(updated.config)
        })
      )

    const reload = (configs: ReadonlyArray<ServerConfig>) =>
      writer.withPermits(1)(
        Effect.gen(function* () {
          const before = yield* SubscriptionRef.get(registry)
          const plan = Registry.plan(before, configs)
          const kept = new Set(plan.unchanged)
          // The new registry, built beside the old one, then swapped in one step.
          const next = yield* Effect.forEach(configs, (config) =>
            kept.has(config.name)
              ? Effect.succeed(Option.getOrThrow(Registry.get(before, config.name)))
              : entryFor(config)
          )
          yield* SubscriptionRef.set(registry, Registry.fromEntries(next))
          const replaced = [...plan.removed, ...plan.restarted].flatMap((name) =>
            Option.toArray(Registry.get(before, name))
          )
          yield* stopAll(replaced)
          yield* startAll(next.filter((entry) => !kept.has(entry.config.name)))
          return plan
        })
      )

    const servers = Effect.flatMap(SubscriptionRef.get(registry), (current) =>
      Effect.forEach(Registry.entries(current), (entry) =>
        Effect.map(SubscriptionRef.get(entry.supervisor.live), (live) => ({
          name: entry.config.name,
          config: entry.config,
          status: live.status
        }))
      )
    )

    const service: McpHostService = {
      ...router,
      servers,
      status: (server) =>
        Effect.flatMap(router.lookup(server), (entry) =>
          Effect.map(SubscriptionRef.get(entry.supervisor.live), (live) => live.status)
        ),
      statusChanges: Stream.unwrapScoped(
        Effect.gen(function* () {
          const subscription = yield* PubSub.subscribe(events.statuses)
          const current = yield* servers
          return Stream.concat(
            Stream.fromIterable(current.map((info) => ({ server: info.name, status: info.status }))),
            Stream.fromQueue(subscription)
          )
        })
      ),
      changes: Stream.fromPubSub(events.changes),
      add: (config) =>
        writer.withPermits(1)(
          Effect.gen(function* () {
            if (Option.isSome(Registry.get(yield* SubscriptionRef.get(registry), config.name))) {
              return yield* new DuplicateServer({ server: config.name })
            }
            const entry = yield* entryFor(config)
            yield* SubscriptionRef.update(registry, (current) => Registry.put(current, entry))
            yield* startAll([entry])
          })
        ),
      remove: (server) =>
        writer.withPermits(1)(
          Effect.gen(function* () {
            const entry = yield* router.lookup(server)
            yield* SubscriptionRef.update(registry, (current) => Registry.remove(current, server))
            yield* entry.supervisor.stop
          })
        ),
      enable: (server) => setEnabled(server, true),
      disable: (server) => setEnabled(server, false),
      reload
    }

    // Closing the host closes every server in parallel.
    yield* Effect.addFinalizer(() =>
      Effect.flatMap(SubscriptionRef.get(registry), (current) => stopAll(Registry.entries(current)))
    )
    // All servers connect concurrently; the host is ready when each has succeeded or failed.
    const initial = yield* Effect.forEach(options.servers, entryFor)
    yield* SubscriptionRef.set(registry, Registry.fromEntries(initial))
    yield* startAll(initial)
    return service
  })

/** The servers of a config load, as host servers; entries that cannot be resolved are returned as problems. */
export const serversFromConfig = (
  location: ConfigLoader.Location,
  context: Expand.ExpandContext,
  options: (entry: ServerEntry) => ServerOptions | undefined = () => undefined
) =>
  Effect.gen(function* () {
    const loaded = yield* ConfigLoader.load(location)
    const { resolved, problems } = yield* ConfigLoader.resolveAll(loaded, context)
    const servers = resolved.map(({ entry, target }): ServerConfig => {
      // The entry's own `retry` key, unless the caller's options say otherwise.
      const fromEntry: ServerOptions | undefined =
        entry.retry === undefined
          ? undefined
          : { retry: { reads: { times: entry.retry }, tools: { times: entry.retry } } }
      const given = options(entry)
      const extra = fromEntry === undefined ? given : { ...fromEntry, ...given }
      return extra === undefined ? { name: entry.name, target } : { name: entry.name, target, options: extra }
    })
    return { servers, problems, warnings: loaded.warnings, files: loaded.files }
  })

/**
 * Reads the config again and applies it to a running host: only servers whose entries changed
 * restart. Entries that cannot be resolved are logged and left out.
 */
export const reloadConfig = (
  host: McpHostService,
  location: ConfigLoader.Location,
  context: Expand.ExpandContext,
  options?: (entry: ServerEntry) => ServerOptions | undefined
) =>
  Effect.gen(function* () {
    const { servers, problems } = yield* serversFromConfig(location, context, options)
    for (const problem of problems) yield* Effect.logWarning(problem.message)
    return yield* host.reload(servers)
  })

/** A host of the servers in config files (see {@link serversFromConfig}); unresolvable entries are logged. */
export const layerFromConfig = (
  location: ConfigLoader.Location,
  context: Expand.ExpandContext,
  options: Omit<HostOptions, "servers"> & { readonly server?: (entry: ServerEntry) => ServerOptions | undefined } = {}
): Layer.Layer<McpHost, ConfigError, Platform | FileSystem.FileSystem | Path.Path> =>
  Layer.scoped(
    McpHost,
    Effect.gen(function* () {
      const { servers, problems, warnings } = yield* serversFromConfig(location, context, options.server)
      for (const warning of warnings) yield* Effect.logWarning(warning)
      for (const problem of problems) yield* Effect.logWarning(problem.message)
      return yield* make({ ...options, servers })
    })
  )

/** A host layer; building it connects every enabled server (failures show in their status, not here). */
export const layer = (options: HostOptions): Layer.Layer<McpHost, never, Platform> =>
  Layer.scoped(McpHost, make(options))
