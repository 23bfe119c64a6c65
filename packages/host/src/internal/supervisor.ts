/**
 * The supervisor of one server: starts it, keeps its lists current while it serves, restarts
 * it on the host's backoff `Schedule` after its session dies, and stops it. Its state (status,
 * client, lists) is one `SubscriptionRef`, so callers wait for readiness by watching it.
 */
import type { McpClient, McpError } from "@effect-mcp/client"
import type { McpSchema, ProtocolVersion } from "@effect-mcp/protocol"
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberHandle from "effect/FiberHandle"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import type * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import type * as Aggregate from "../Aggregate.js"
import type { ServerUnavailable } from "../HostError.js"
import { ServerStatus } from "../ServerStatus.js"
import { type Connected, connect } from "./connect.js"
import * as Readiness from "./readiness.js"
import * as Restarts from "./restarts.js"
import * as ServerLists from "./serverLists.js"
import type { HostChange, Platform, ServerConfig, StatusEvent } from "./types.js"

/** Where status and list changes of every server are published. */
export interface Events {
  readonly changes: PubSub.PubSub<HostChange>
  readonly statuses: PubSub.PubSub<StatusEvent>
}

/** What every supervisor of a host shares. */
export interface Settings {
  readonly restart: Schedule.Schedule<unknown, McpError.InitializeError>
  readonly resetAfter: Duration.Duration
  readonly clientInfo: McpSchema.Implementation | undefined
  /** The host-wide keepalive (servers reached over HTTP). */
  readonly keepAlive: McpClient.KeepAliveOptions | undefined
  /** The MCP Apps declaration every client makes (none: not declared). */
  readonly mcpApps: McpClient.McpClientOptions["mcpApps"]
  readonly platform: Context.Context<Platform>
  readonly events: Events
}

/** One server's state: its public status, its client while ready, and its lists. */
export interface Live {
  readonly status: ServerStatus
  readonly connected: Option.Option<Connected>
  readonly lists: Aggregate.ServerLists
}

/** A supervised server. */
export interface Supervisor {
  readonly name: string
  readonly live: SubscriptionRef.SubscriptionRef<Live>
  /** Starts the server with this config; succeeds once its first connection attempt has ended either way. */
  readonly start: (config: ServerConfig) => Effect.Effect<void>
  /** Starts the server with this config and succeeds at once, `Connecting`. */
  readonly launch: (config: ServerConfig) => Effect.Effect<void>
  /** Stops the server (its process or connection ends) and says `Stopped`. */
  readonly stop: Effect.Effect<void>
  /** A session of the server's own beside the shared one, ending with the scope. */
  readonly open: Effect.Effect<McpClient.McpClientService, McpError.InitializeError, Scope.Scope>
  /** The server's client once ready, waiting up to `timeout`; fails at once when it is failed or stopped. */
  readonly ready: (
    timeout: Duration.Duration,
    method?: string
  ) => Effect.Effect<McpClient.McpClientService, ServerUnavailable>
}

const emptyLists = (server: string): Aggregate.ServerLists => ({
  server,
  tools: [],
  resources: [],
  resourceTemplates: [],
  prompts: []
})

/** A supervisor for the server `config` names, stopped until started; its fiber lives in the scope. */
export const make = (settings: Settings, config: ServerConfig): Effect.Effect<Supervisor, never, Scope.Scope> =>
  Effect.gen(function* () {
    const { name } = config
    const { events } = settings
    const live = yield* SubscriptionRef.make<Live>({
      status: ServerStatus.Stopped(),
      connected: Option.none(),
      lists: emptyLists(name)
    })
    const running = yield* FiberHandle.make<void>()
    // The era the server spoke last time: a restart speaks it again without probing.
    let verdict: ProtocolVersion.ProtocolVersion | undefined

    const setStatus = (status: ServerStatus, connected: Option.Option<Connected>) =>
      Effect.zipRight(
        SubscriptionRef.update(live, (current) => ({
          status,
          connected,
          // A restarting server keeps its lists, so calls by name can wait for it.
          lists: Option.isSome(connected) || status._tag === "Reconnecting" ? current.lists : emptyLists(name)
        })),
        Effect.zipRight(
          PubSub.publish(events.statuses, { server: name, status }),
          PubSub.publish(events.changes, { _tag: "Status", server: name, status })
        )
      )

    const refresh = (config: ServerConfig, client: McpClient.McpClientService, list: ServerLists.ListName) =>
      Effect.gen(function* () {
        const update = yield* ServerLists.fetch(name, config, client, list)
        yield* SubscriptionRef.update(live, (current) =>
          Option.isSome(current.connected) && current.connected.value.client === client
            ? { ...current, lists: { ...current.lists, ...update } }
            : current
        )
        yield* PubSub.publish(events.changes, { _tag: "List", server: name, list })
      })

    /** One session: connect, list, serve until the session ends; its error is why it ended. */
    const session = (config: ServerConfig) =>
      Effect.scoped(
        Effect.gen(function* () {
          const remembered = verdict
          // A server that no longer speaks the remembered era is probed again next time.
          const connected = yield* Effect.tapError(
            connect(
              name,
              config.target,
              ServerLists.clientOptions(
                name,
                config,
                settings.clientInfo,
                verdict,
                settings.keepAlive,
                settings.mcpApps
              )
            ),
            () =>
              Effect.sync(() => {
                if (verdict === remembered) verdict = undefined
              })
          )
          const client = connected.client
          verdict = client.protocolVersion
          yield* SubscriptionRef.update(live, (current) => ({ ...current, connected: Option.some(connected) }))
          // Subscribed before the first listing, so a change right after connecting is not lost.
          yield* client.listChanged.pipe(
            Stream.runForEach((list) => refresh(config, client, list)),
            Effect.forkScoped
          )
          yield* Effect.all(
            [
              refresh(config, client, "tools"),
              refresh(config, client, "resources"),
              refresh(config, client, "prompts")
            ],
            { concurrency: "unbounded", discard: true }
          )
          yield* setStatus(
            ServerStatus.Ready({
              serverInfo: client.serverInfo,
              protocolVersion: client.protocolVersion,
              pid: connected.pid
            }),
            Option.some(connected)
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
      ).pipe(Effect.provide(settings.platform))

    const supervise = (config: ServerConfig) =>
      Restarts.supervise({ name, settings, live, setStatus, session: session(config) })

    const stop = Effect.zipRight(FiberHandle.clear(running), setStatus(ServerStatus.Stopped(), Option.none()))

    const launch = (config: ServerConfig) =>
      Effect.gen(function* () {
        yield* FiberHandle.clear(running)
        yield* setStatus(ServerStatus.Connecting(), Option.none())
        yield* FiberHandle.run(running, supervise(config))
      })

    const start = (config: ServerConfig) =>
      Effect.zipRight(
        launch(config),
        live.changes.pipe(
          Stream.filter((current) => current.status._tag !== "Connecting"),
          Stream.runHead
        )
      )

    const ready = Readiness.make(name, live)

    // With the context the supervisor was made in (the host's handler services and platform), not its scope.
    const context = Context.omit(Scope.Scope)(yield* Effect.context<never>())
    // It speaks the era the shared session found (read when opened).
    const open = Effect.suspend(() =>
      connect(
        name,
        config.target,
        ServerLists.clientOptions(name, config, settings.clientInfo, verdict, settings.keepAlive, settings.mcpApps)
      )
    ).pipe(
      Effect.map((connected) => connected.client),
      Effect.provide(settings.platform),
      Effect.provide(context)
    )

    return { name, live, start, launch, stop, ready, open }
  })
