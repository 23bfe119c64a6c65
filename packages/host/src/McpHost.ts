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
import { type McpClient, McpError } from "@effect-mcp/client"
import type { McpSchema } from "@effect-mcp/protocol"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
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
  NotFound,
  ServerUnavailable,
  ToolNotAllowed,
  UnknownServer
} from "./HostError.js"
import { type Connected, connect } from "./internal/connect.js"
import { ServerStatus } from "./ServerStatus.js"

/** Per-server options. */
export interface ServerOptions {
  /** The default timeout of this server's requests (also how long a call waits for it to recover). Default: 60 seconds. */
  readonly requestTimeout?: Duration.DurationInput
  /** At most this many requests through the host in flight to this server at once. Default: unlimited. */
  readonly concurrency?: number
  /** Only these tools are shown and callable. */
  readonly allowTools?: ReadonlyArray<string>
  /** These tools are hidden and refused. */
  readonly denyTools?: ReadonlyArray<string>
  /** A disabled server is configured but not started. Default: true. */
  readonly enabled?: boolean
  /** Which of the host's environment variables a stdio server sees. Default: `"safe"`. */
  readonly inheritEnv?: "safe" | "all"
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

const DEFAULT_TIMEOUT = Duration.seconds(60)

/** The default restart schedule: exponential from 250 ms, capped at 5 s, 5 restarts. */
export const defaultRestart: Schedule.Schedule<unknown, McpError.InitializeError> = Schedule.exponential(
  "250 millis"
).pipe(Schedule.union(Schedule.spaced("5 seconds")), Schedule.intersect(Schedule.recurs(5)))

/** The internal state of one server: its public status, and its client while ready. */
interface Live {
  readonly status: ServerStatus
  readonly connected: Option.Option<Connected>
  readonly lists: Aggregate.ServerLists
}

/** One managed server. */
interface Managed {
  config: ServerConfig
  readonly live: SubscriptionRef.SubscriptionRef<Live>
  readonly permits: Effect.Semaphore | undefined
  scope: Scope.CloseableScope | undefined
}

const emptyLists = (server: string): Aggregate.ServerLists => ({
  server,
  tools: [],
  resources: [],
  resourceTemplates: [],
  prompts: []
})

const sameConfig = (a: ServerConfig, b: ServerConfig) => JSON.stringify(a) === JSON.stringify(b)

/** Matches a URI against an RFC 6570 template's literal parts (each expression matches one or more characters). */
const templateMatches = (template: string, uri: string): boolean => {
  const pattern = template
    .split(/\{[^}]*\}/)
    .map((literal) => literal.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join(".+")
  return new RegExp(`^${pattern}$`).test(uri)
}

/** Starts a host; its servers stop with the scope. */
export const make = (options: HostOptions): Effect.Effect<McpHostService, never, Scope.Scope | Platform> =>
  Effect.gen(function* () {
    const namespace = options.namespace ?? Aggregate.defaultNamespace
    const restart = options.restart ?? defaultRestart
    const resetAfter = Duration.decode(options.restartResetAfter ?? "60 seconds")
    const context = yield* Effect.context<Platform>()
    const servers = new Map<string, Managed>()
    const registry = yield* Effect.makeSemaphore(1)
    const changes = yield* PubSub.unbounded<HostChange>()
    // Every status change of every server, for statusChanges (replayed: current statuses first).
    const statusHub = yield* PubSub.unbounded<StatusEvent>()

    const publishStatus = (server: string, status: ServerStatus) =>
      Effect.zipRight(
        PubSub.publish(statusHub, { server, status }),
        PubSub.publish(changes, { _tag: "Status", server, status })
      )

    const setStatus = (managed: Managed, status: ServerStatus, connected: Option.Option<Connected>) =>
      Effect.zipRight(
        SubscriptionRef.update(managed.live, (live) => ({
          status,
          connected,
          // A restarting server keeps its lists, so calls by name can wait for it.
          lists:
            Option.isSome(connected) || status._tag === "Reconnecting" ? live.lists : emptyLists(managed.config.name)
        })),
        publishStatus(managed.config.name, status)
      )

    const refresh = (managed: Managed, client: McpClient.McpClientService, list: "tools" | "resources" | "prompts") =>
      Effect.gen(function* () {
        const caps = client.serverCapabilities
        const orEmpty = <A>(what: string, effect: Effect.Effect<ReadonlyArray<A>, McpError.RequestError>) =>
          effect.pipe(
            Effect.catchAll((error) =>
              Effect.as(Effect.logWarning(`${client.name}: cannot list ${what}: ${error.message}`), [])
            )
          )
        const policy = managed.config.options ?? {}
        const update: Partial<Aggregate.ServerLists> =
          list === "tools"
            ? {
                tools:
                  caps.tools === undefined
                    ? []
                    : (yield* orEmpty("tools", client.tools)).filter((tool) => Aggregate.allowed(tool.name, policy))
              }
            : list === "prompts"
              ? { prompts: caps.prompts === undefined ? [] : yield* orEmpty("prompts", client.prompts) }
              : caps.resources === undefined
                ? { resources: [], resourceTemplates: [] }
                : {
                    resources: yield* orEmpty("resources", client.resources),
                    resourceTemplates: yield* orEmpty("resource templates", client.resourceTemplates)
                  }
        yield* SubscriptionRef.update(managed.live, (live) =>
          Option.isSome(live.connected) && live.connected.value.client === client
            ? { ...live, lists: { ...live.lists, ...update } }
            : live
        )
        yield* PubSub.publish(changes, { _tag: "List", server: managed.config.name, list })
      })

    /** One session: connect, list, serve until the session ends; its error is why it ended. */
    const session = (managed: Managed) =>
      Effect.scoped(
        Effect.gen(function* () {
          const config = managed.config
          const connected = yield* connect(config.name, config.target, {
            name: config.name,
            ...(options.clientInfo === undefined ? {} : { clientInfo: options.clientInfo }),
            ...(config.options?.requestTimeout === undefined ? {} : { requestTimeout: config.options.requestTimeout }),
            ...(config.options?.inheritEnv === undefined ? {} : { inheritEnv: config.options.inheritEnv })
          })
          const client = connected.client
          yield* SubscriptionRef.update(managed.live, (live) => ({ ...live, connected: Option.some(connected) }))
          yield* Effect.all(
            [
              refresh(managed, client, "tools"),
              refresh(managed, client, "resources"),
              refresh(managed, client, "prompts")
            ],
            {
              concurrency: "unbounded",
              discard: true
            }
          )
          yield* setStatus(
            managed,
            ServerStatus.Ready({
              serverInfo: client.serverInfo,
              protocolVersion: client.protocolVersion,
              pid: connected.pid
            }),
            Option.some(connected)
          )
          yield* client.listChanged.pipe(
            Stream.runForEach((list) => refresh(managed, client, list)),
            Effect.forkScoped
          )
          // Serve until the session fails (the process died, the connection broke).
          const ended = yield* client.stateChanges.pipe(
            Stream.filter((state) => state._tag === "Failed" || state._tag === "Closed"),
            Stream.runHead
          )
          return yield* Option.match(ended, {
            onNone: () => Effect.void,
            onSome: (state) => (state._tag === "Failed" ? Effect.fail(state.cause) : Effect.void)
          })
        })
      ).pipe(Effect.provide(context))

    /**
     * Runs a server: connects, serves, and after a session dies restarts it on the schedule.
     * A first connection that fails is final (`Failed`); a session that stayed up for
     * `restartResetAfter` starts the schedule over.
     */
    const supervise = (managed: Managed) =>
      Effect.gen(function* () {
        const driver = yield* Schedule.driver(restart)
        let attempt = 0
        while (true) {
          const started = yield* Clock.currentTimeMillis
          const exit = yield* Effect.exit(session(managed))
          if (Exit.isSuccess(exit)) return yield* setStatus(managed, ServerStatus.Stopped(), Option.none())
          if (Cause.isInterruptedOnly(exit.cause)) return
          const cause = Option.getOrElse(
            Cause.failureOption(exit.cause),
            () =>
              new McpError.TransportError({
                server: managed.config.name,
                reason: `unexpected failure: ${Cause.pretty(exit.cause)}`,
                cause: Cause.squash(exit.cause)
              })
          )
          const before = (yield* SubscriptionRef.get(managed.live)).status
          if (before._tag === "Connecting")
            return yield* setStatus(managed, ServerStatus.Failed({ cause }), Option.none())
          const now = yield* Clock.currentTimeMillis
          if (before._tag === "Ready" && now - started >= Duration.toMillis(resetAfter)) {
            yield* driver.reset
            attempt = 0
          }
          attempt++
          yield* Effect.logWarning(
            `${managed.config.name}: the session ended (${cause.message}); restarting (attempt ${attempt})`
          )
          yield* setStatus(managed, ServerStatus.Reconnecting({ attempt, cause }), Option.none())
          const next = yield* Effect.either(driver.next(cause))
          if (next._tag === "Left") return yield* setStatus(managed, ServerStatus.Failed({ cause }), Option.none())
        }
      })

    /** Starts a server in a scope of its own; waits until its first attempt has ended either way. */
    const start = (managed: Managed) =>
      Effect.gen(function* () {
        const scope = yield* Scope.make()
        managed.scope = scope
        yield* setStatus(managed, ServerStatus.Connecting(), Option.none())
        yield* Effect.forkIn(supervise(managed), scope)
        yield* managed.live.changes.pipe(
          Stream.filter((live) => live.status._tag !== "Connecting"),
          Stream.runHead
        )
      })

    const stop = (managed: Managed) =>
      Effect.gen(function* () {
        const scope = managed.scope
        managed.scope = undefined
        if (scope !== undefined) yield* Scope.close(scope, Exit.void)
        yield* setStatus(managed, ServerStatus.Stopped(), Option.none())
      })

    const manage = (config: ServerConfig) =>
      Effect.gen(function* () {
        const live = yield* SubscriptionRef.make<Live>({
          status: ServerStatus.Stopped(),
          connected: Option.none(),
          lists: emptyLists(config.name)
        })
        const concurrency = config.options?.concurrency
        const permits = concurrency === undefined ? undefined : yield* Effect.makeSemaphore(concurrency)
        const managed: Managed = { config, live, permits, scope: undefined }
        servers.set(config.name, managed)
        return managed
      })

    const lookup = (server: string) =>
      Effect.suspend(() => {
        const managed = servers.get(server)
        return managed === undefined
          ? Effect.fail(new UnknownServer({ server, known: [...servers.keys()] }))
          : Effect.succeed(managed)
      })

    const timeoutOf = (managed: Managed, call: CallOptions | undefined) =>
      Duration.decode(call?.timeout ?? managed.config.options?.requestTimeout ?? DEFAULT_TIMEOUT)

    /**
     * The server's client once ready; fails at once when it is failed or stopped. A client whose
     * session has just died (before the supervisor noticed) counts as not ready yet.
     */
    const ready = (managed: Managed, timeout: Duration.Duration, method?: string) =>
      managed.live.changes.pipe(
        Stream.filterEffect((live) =>
          live.status._tag === "Connecting" || live.status._tag === "Reconnecting"
            ? Effect.succeed(false)
            : Option.match(live.connected, {
                onNone: () => Effect.succeed(true),
                onSome: ({ client }) => Effect.map(client.state, (state) => state._tag === "Ready")
              })
        ),
        Stream.runHead,
        Effect.flatMap((live) =>
          Option.isSome(live) && Option.isSome(live.value.connected) && live.value.status._tag === "Ready"
            ? Effect.succeed(live.value.connected.value.client)
            : Effect.fail(
                new ServerUnavailable({
                  server: managed.config.name,
                  ...(method === undefined ? {} : { method }),
                  reason: Option.match(live, {
                    onNone: () => "the server is gone",
                    onSome: (value) =>
                      value.status._tag === "Failed" ? `failed: ${value.status.cause.message}` : "the server is stopped"
                  })
                })
              )
        ),
        Effect.timeoutFail({
          duration: timeout,
          onTimeout: () =>
            new ServerUnavailable({
              server: managed.config.name,
              ...(method === undefined ? {} : { method }),
              reason: `not ready within ${Duration.format(timeout)}`
            })
        })
      )

    /** Runs a request on a server's client: waits for it to be ready, then holds one of its permits. */
    const routed = <A, E>(
      managed: Managed,
      method: string,
      call: CallOptions | undefined,
      use: (client: McpClient.McpClientService) => Effect.Effect<A, E>
    ): Effect.Effect<A, E | ServerUnavailable> =>
      Effect.flatMap(ready(managed, timeoutOf(managed, call), method), (client) =>
        managed.permits === undefined ? use(client) : managed.permits.withPermits(1)(use(client))
      )

    const snapshot = Effect.suspend(() =>
      Effect.forEach([...servers.values()], (managed) => SubscriptionRef.get(managed.live))
    ).pipe(
      Effect.map((lives) =>
        Aggregate.aggregate(
          lives
            .filter((live) => live.status._tag === "Ready" || live.status._tag === "Reconnecting")
            .map((live) => live.lists),
          namespace
        )
      )
    )

    const managedOf = (server: string) =>
      Effect.mapError(lookup(server), () => new ServerUnavailable({ server, reason: "the server was removed" }))

    /** Records the server as enabled or not; stops it, and starts it again when enabled. */
    const setEnabled = (server: string, enabled: boolean) =>
      registry.withPermits(1)(
        Effect.gen(function* () {
          const managed = yield* lookup(server)
          managed.config = { ...managed.config, options: { ...managed.config.options, enabled } }
          yield* stop(managed)
          if (enabled) yield* start(managed)
        })
      )

    const service: McpHostService = {
      servers: Effect.suspend(() =>
        Effect.forEach([...servers.values()], (managed) =>
          Effect.map(SubscriptionRef.get(managed.live), (live) => ({
            name: managed.config.name,
            config: managed.config,
            status: live.status
          }))
        )
      ),
      status: (server) =>
        Effect.flatMap(lookup(server), (managed) =>
          Effect.map(SubscriptionRef.get(managed.live), (live) => live.status)
        ),
      statusChanges: Stream.unwrapScoped(
        Effect.gen(function* () {
          const subscription = yield* PubSub.subscribe(statusHub)
          const current = yield* service.servers
          return Stream.concat(
            Stream.fromIterable(current.map((info) => ({ server: info.name, status: info.status }))),
            Stream.fromQueue(subscription)
          )
        })
      ),
      changes: Stream.fromPubSub(changes),
      aggregate: snapshot,
      tools: Effect.map(snapshot, (view) => view.tools),
      resources: Effect.map(snapshot, (view) => view.resources),
      resourceTemplates: Effect.map(snapshot, (view) => view.resourceTemplates),
      prompts: Effect.map(snapshot, (view) => view.prompts),
      callTool: (name, args, call) =>
        Effect.gen(function* () {
          const found = (yield* snapshot).tools.find((tool) => tool.name === name)
          if (found === undefined) return yield* new NotFound({ kind: "tool", name })
          const managed = yield* managedOf(found.server)
          if (!Aggregate.allowed(found.tool.name, managed.config.options ?? {}))
            return yield* new ToolNotAllowed({ server: found.server, tool: found.tool.name })
          return yield* routed(managed, "tools/call", call, (client) => client.callTool(found.tool.name, args, call))
        }).pipe(Effect.withSpan("McpHost.callTool", { attributes: { "mcp.tool": name }, captureStackTrace: false })),
      readResource: (uri, call) =>
        Effect.gen(function* () {
          const view = yield* snapshot
          const server =
            view.resources.find((entry) => entry.resource.uri === uri)?.server ??
            view.resourceTemplates.find((entry) => templateMatches(entry.template.uriTemplate, uri))?.server
          if (server === undefined) return yield* new NotFound({ kind: "resource", name: uri })
          const managed = yield* managedOf(server)
          return yield* routed(managed, "resources/read", call, (client) => client.readResource(uri, call))
        }),
      getPrompt: (name, args, call) =>
        Effect.gen(function* () {
          const found = (yield* snapshot).prompts.find((prompt) => prompt.name === name)
          if (found === undefined) return yield* new NotFound({ kind: "prompt", name })
          const managed = yield* managedOf(found.server)
          return yield* routed(managed, "prompts/get", call, (client) =>
            client.getPrompt(found.prompt.name, args, call)
          )
        }),
      client: (server) => Effect.flatMap(lookup(server), (managed) => ready(managed, timeoutOf(managed, undefined))),
      add: (config) =>
        registry.withPermits(1)(
          Effect.gen(function* () {
            if (servers.has(config.name)) return yield* new DuplicateServer({ server: config.name })
            const managed = yield* manage(config)
            if (config.options?.enabled !== false) yield* start(managed)
          })
        ),
      remove: (server) =>
        registry.withPermits(1)(
          Effect.gen(function* () {
            const managed = yield* lookup(server)
            servers.delete(server)
            yield* stop(managed)
          })
        ),
      enable: (server) => setEnabled(server, true),
      disable: (server) => setEnabled(server, false),
      reload: (configs) =>
        registry.withPermits(1)(
          Effect.gen(function* () {
            const wanted = new Map(configs.map((config) => [config.name, config]))
            const removed = [...servers.keys()].filter((name) => !wanted.has(name))
            const added: Array<string> = []
            const restarted: Array<string> = []
            const unchanged: Array<string> = []
            for (const config of configs) {
              const known = servers.get(config.name)
              if (known === undefined) added.push(config.name)
              else if (sameConfig(known.config, config)) unchanged.push(config.name)
              else restarted.push(config.name)
            }
            yield* Effect.forEach(
              removed,
              (name) => {
                const managed = servers.get(name)
                servers.delete(name)
                return managed === undefined ? Effect.void : stop(managed)
              },
              { concurrency: "unbounded", discard: true }
            )
            // Keep configuration order: rebuild the map in the new order.
            const previous = new Map(servers)
            servers.clear()
            const toStart: Array<Managed> = []
            for (const config of configs) {
              const known = previous.get(config.name)
              if (known !== undefined && unchanged.includes(config.name)) {
                servers.set(config.name, known)
                continue
              }
              if (known !== undefined) yield* stop(known)
              const managed = yield* manage(config)
              if (config.options?.enabled !== false) toStart.push(managed)
            }
            yield* Effect.forEach(toStart, start, { concurrency: "unbounded", discard: true })
            return { added, removed, restarted, unchanged }
          })
        )
    }

    // Closing the host closes every server in parallel.
    yield* Effect.addFinalizer(() =>
      Effect.forEach([...servers.values()], stop, { concurrency: "unbounded", discard: true })
    )
    // All servers connect concurrently; the host is ready when each has succeeded or failed.
    const initial = yield* Effect.forEach(options.servers, manage)
    yield* Effect.forEach(
      initial.filter((managed) => managed.config.options?.enabled !== false),
      start,
      { concurrency: "unbounded", discard: true }
    )
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
      const extra = options(entry)
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
