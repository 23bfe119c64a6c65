/**
 * A host: one client per configured server, all connected concurrently, presented as one
 * aggregated and namespaced set of tools, resources and prompts. A server that fails to start
 * does not fail the host (its status says why); one that crashes is restarted on a backoff
 * `Schedule`; calls route by namespaced name or URI to the right client and wait (up to their
 * timeout) for a server that is recovering. Servers can be added, removed, enabled, disabled
 * and reloaded while the host runs. Closing the host's scope closes every client in parallel.
 * Every server starts at once, and `make` returns when each is ready or failed: start-up costs the
 * slowest server, not the sum. A reload keeps the supervisor, session and process of every server
 * whose configuration did not change.
 *
 * The handler services (`Sampling`, `Elicitation`, `Roots`) provided to the host's layer are
 * shared by every client; each request's context names the server that asked.
 *
 * @since 0.1.0
 */
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import type { McpError } from "@effect-mcp/client"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Struct from "effect/Struct"
import * as SubscriptionRef from "effect/SubscriptionRef"
import * as Aggregate from "./Aggregate.js"
import * as ConfigLoader from "./config/ConfigLoader.js"
import type * as Expand from "./config/Expand.js"
import type { ServerEntry } from "./config/ServerEntry.js"
import { type ConfigError, DuplicateServer } from "./HostError.js"
import * as Registry from "./internal/registry.js"
import * as Router from "./internal/router.js"
import * as Supervisor from "./internal/supervisor.js"

import type {
  HostChange,
  HostOptions,
  McpHostService,
  Platform,
  ServerConfig,
  ServerOptions,
  StatusEvent
} from "./internal/types.js"

export type {
  /**
   * Per-call options of routed calls.
   *
   * @since 0.1.0
   * @category options
   */
  CallOptions,
  /**
   * What a routed call can fail with.
   *
   * @since 0.1.0
   * @category errors
   */
  HostCallError,
  /**
   * Something in the aggregate changed: a server's status, or one of its lists.
   *
   * @since 0.1.0
   * @category models
   */
  HostChange,
  /**
   * Options of a host.
   *
   * @since 0.1.0
   * @category options
   */
  HostOptions,
  /**
   * What loading a skill through the host can fail with.
   *
   * @since 0.1.0
   * @category errors
   */
  HostSkillError,
  /**
   * A tool task started through the host: the server running it, the tool's name there, and the task.
   *
   * @since 0.2.0
   * @category models
   */
  HostTask,
  /**
   * The host service.
   *
   * @since 0.1.0
   * @category models
   */
  McpHostService,
  /**
   * A session of one server's own, beside the shared one (`openSession`).
   *
   * @since 0.1.0
   * @category models
   */
  OwnSession,
  /**
   * What the host needs from the platform: its transports (`Transports.layer`, the generic ones
   * over a `CommandExecutor` and an `HttpClient`, or a platform package's, such as Node's).
   *
   * @since 0.1.0
   * @category models
   */
  Platform,
  /**
   * What {@link McpHostService.reload} did.
   *
   * @since 0.1.0
   * @category models
   */
  ReloadSummary,
  /**
   * One server the host runs.
   *
   * @since 0.1.0
   * @category models
   */
  ServerConfig,
  /**
   * A server as the host has it.
   *
   * @since 0.1.0
   * @category models
   */
  ServerInfo,
  /**
   * Per-server options.
   *
   * @since 0.1.0
   * @category options
   */
  ServerOptions,
  /**
   * A server's status, as published on {@link McpHostService.statusChanges}.
   *
   * @since 0.1.0
   * @category models
   */
  StatusEvent,
  /**
   * Options of a tool called as a task: its retention and each request's timeout.
   *
   * @since 0.2.0
   * @category options
   */
  TaskOptions
} from "./internal/types.js"

/**
 * The host.
 *
 * @since 0.1.0
 * @category services
 */
export class McpHost extends Context.Tag("@effect-mcp/host/McpHost")<McpHost, McpHostService>() {}

/**
 * The default restart schedule: exponential from 250 ms, capped at 5 s, 5 restarts.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultRestart: Schedule.Schedule<unknown, McpError.InitializeError> = Schedule.exponential(
  "250 millis"
).pipe(Schedule.union(Schedule.spaced("5 seconds")), Schedule.intersect(Schedule.recurs(5)))

/**
 * A restart schedule that never gives up, for a host that runs unattended (a gateway): exponential
 * from 250 ms, at most 30 s apart, for as long as the host runs (give it as `HostOptions.restart`).
 * The server's status says `Reconnecting` with the attempt meanwhile.
 *
 * @since 0.1.0
 * @category constants
 */
export const restartForever: Schedule.Schedule<unknown, McpError.InitializeError> = Schedule.exponential(
  "250 millis"
).pipe(Schedule.union(Schedule.spaced("30 seconds")))

/**
 * Starts a host; its servers stop with the scope. This is wiring: the registry
 * (`internal/registry.ts`, an immutable value swapped in one step), one supervisor per server
 * (`internal/supervisor.ts`) and the router (`internal/router.ts`).
 *
 * @since 0.1.0
 * @category constructors
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
      keepAlive: options.keepAlive,
      mcpApps: options.mcpApps,
      // The platform's services only: the layer's own scope must not stand in for the scope a
      // session of a server's own (`openSession`) is opened in, or that session would outlive it.
      platform: Context.omit(Scope.Scope)(yield* Effect.context<Platform>()),
      events
    }
    const registry = yield* SubscriptionRef.make(Registry.empty)
    // Writers take turns; readers never wait: they read whichever registry is current.
    const writer = yield* Effect.makeSemaphore(1)
    const router = Router.make(registry, options.namespace ?? Aggregate.defaultNamespace)

    const entryFor = (config: ServerConfig): Effect.Effect<Registry.Entry> =>
      Effect.map(Supervisor.make(settings, config).pipe(Scope.extend(scope)), (supervisor) => ({ config, supervisor }))
    const startAll = (started: ReadonlyArray<Registry.Entry>) =>
      Effect.forEach(started.filter(Registry.isEnabled), (entry) => entry.supervisor.start(entry.config), {
        concurrency: "unbounded",
        discard: true
      })
    const stopAll = (stopped: ReadonlyArray<Registry.Entry>) =>
      Effect.forEach(stopped, (entry) => entry.supervisor.stop, { concurrency: "unbounded", discard: true })

    /**
     * Records the server as switched on or off beside its configuration (which stays as given, so
     * a reload of an unchanged entry neither restarts it nor undoes this); stops it, and starts it
     * again when switched on.
     */
    const setEnabled = (server: string, on: boolean) =>
      writer.withPermits(1)(
        Effect.gen(function* () {
          const entry = yield* router.lookup(server)
          yield* SubscriptionRef.update(registry, (current) => Registry.put(current, { ...entry, switchedOn: on }))
          yield* entry.supervisor.stop
          if (on) yield* entry.supervisor.start(entry.config)
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
          enabled: Registry.isEnabled(entry),
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
      openSession: (server) =>
        Effect.flatMap(router.lookup(server), (entry) =>
          Effect.map(entry.supervisor.open, (client) => ({ server, client }))
        ),
      enable: (server) => setEnabled(server, true),
      disable: (server) => setEnabled(server, false),
      reload
    }

    // Closing the host closes every server in parallel.
    yield* Effect.addFinalizer(() =>
      Effect.flatMap(SubscriptionRef.get(registry), (current) => stopAll(Registry.entries(current)))
    )
    // All servers connect concurrently; the host is ready when each has succeeded or failed
    // (or at once, without awaitServers, each server Connecting).
    const initial = yield* Effect.forEach(options.servers, entryFor)
    yield* SubscriptionRef.set(registry, Registry.fromEntries(initial))
    if (options.awaitServers === false)
      yield* Effect.forEach(initial.filter(Registry.isEnabled), (entry) => entry.supervisor.launch(entry.config), {
        discard: true
      })
    else yield* startAll(initial)
    return service
  })

/** The host options an entry's own keys give; `undefined` when it gives none. */
const optionsOfEntry = (entry: ServerEntry): ServerOptions | undefined => {
  const options: ServerOptions = {
    ...(entry.retry === undefined ? {} : { retry: { reads: { times: entry.retry }, tools: { times: entry.retry } } }),
    ...(entry.keepAlive === undefined ? {} : { keepAlive: { interval: Duration.seconds(entry.keepAlive) } }),
    ...Struct.pick(entry, "allowTools", "denyTools", "concurrency", "maxResultBytes")
  }
  return Object.keys(options).length === 0 ? undefined : options
}

/**
 * The servers of a config load, as host servers; entries that cannot be resolved are returned as problems.
 *
 * @since 0.1.0
 * @category configuration
 */
export const serversFromConfig = (
  location: ConfigLoader.Location,
  context: Expand.ExpandContext,
  options: (entry: ServerEntry) => ServerOptions | undefined = () => undefined
) =>
  Effect.gen(function* () {
    const loaded = yield* ConfigLoader.load(location)
    const { resolved, problems } = yield* ConfigLoader.resolveAll(loaded, context)
    const servers = resolved.map(({ entry, target }): ServerConfig => {
      // The entry's own keys (`retry`, `keepAlive`, the tool lists, `concurrency`, `maxResultBytes`),
      // unless the caller's options say otherwise.
      const fromEntry = optionsOfEntry(entry)
      const given = options(entry)
      const extra = fromEntry === undefined ? given : { ...fromEntry, ...given }
      return extra === undefined ? { name: entry.name, target } : { name: entry.name, target, options: extra }
    })
    return { servers, problems, warnings: loaded.warnings, files: loaded.files }
  })

/**
 * Reads the config again and applies it to a running host: only servers whose entries changed
 * restart. Entries that cannot be resolved are logged and left out.
 *
 * @since 0.1.0
 * @category configuration
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

/**
 * A host of the servers in config files (see {@link serversFromConfig}); unresolvable entries are logged.
 *
 * @since 0.1.0
 * @category layers
 */
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

/**
 * A host layer; building it connects every enabled server (failures show in their status, not here).
 *
 * *When to use*: a program that uses many servers at once: one list of tools under host-wide
 * names, calls routed to the server that offers them, each server supervised on its own. For one
 * server, `McpClient.layer`.
 *
 * *Gotchas*: the layer never fails for a server: one that cannot start shows it in its status and
 * is restarted with backoff, so check `host.status` (or wait for `Ready`) before counting on its
 * tools. Tool names carry their server (`everything__echo`); call with those names.
 *
 * @example
 * ```ts
 * import { Transports } from "@effect-mcp/client"
 * import { McpHost } from "@effect-mcp/host"
 * import { NodeContext, NodeHttpClient } from "@effect/platform-node"
 * import { Effect, Layer } from "effect"
 *
 * const HostLive = McpHost.layer({
 *   servers: [
 *     {
 *       name: "everything",
 *       target: {
 *         _tag: "Stdio",
 *         command: "npx",
 *         args: ["-y", "@modelcontextprotocol/server-everything"],
 *         env: {}
 *       }
 *     },
 *     {
 *       name: "docs",
 *       target: { _tag: "Http", url: "https://example.com/mcp", transport: "auto", headers: {} },
 *       options: { allowTools: ["search"], requestTimeout: "20 seconds" }
 *     }
 *   ]
 * }).pipe(
 *   // the generic transports (or `NodeTransports.layer` from "@effect-mcp/node")
 *   Layer.provide(Transports.layer),
 *   Layer.provide(Layer.merge(NodeContext.layer, NodeHttpClient.layer))
 * )
 *
 * const program = Effect.gen(function* () {
 *   const host = yield* McpHost.McpHost
 *   // every ready server's tools, under host-wide names: `everything__echo`, `docs__search`
 *   const tools = yield* host.tools
 *   // routed to the server that offers it
 *   const result = yield* host.callTool("everything__echo", { message: "hi" })
 *   return { tools: tools.map((tool) => tool.name), content: result.content }
 * }).pipe(Effect.provide(HostLive))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: HostOptions): Layer.Layer<McpHost, never, Platform> =>
  Layer.scoped(McpHost, make(options))
