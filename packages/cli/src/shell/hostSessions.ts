/**
 * What `effect-mcp host shell` keeps of its servers' sessions: the log level asked for and the
 * subscriptions made, applied again to a server's new session when it restarts; and what those
 * sessions send, as lines labelled by server (log messages, shown or hidden; resource updates).
 */
import type { McpClient, McpError } from "@effect-mcp/client"
import type { HostError, McpHost } from "@effect-mcp/host"
import type { McpSchema } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as GroupBy from "effect/GroupBy"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"
import { logLine } from "../commands/render.js"

interface State {
  /** Log messages are printed. */
  readonly show: boolean
  /** The level `logs on` asked for, set on every session. */
  readonly level: Option.Option<McpSchema.LoggingLevel>
  /** The URIs subscribed to, by server. */
  readonly subscriptions: ReadonlyMap<string, ReadonlySet<string>>
}

/** The sessions' features, over a host. */
export interface HostSessions {
  /** Every ready server's log messages (while shown) and resource updates, as lines, from each of its sessions. */
  readonly lines: Stream.Stream<string>
  /** Shows log messages from now on, at `level` and above on every ready server that logs; the servers that do. */
  readonly logsOn: (level: McpSchema.LoggingLevel) => Effect.Effect<ReadonlyArray<string>, McpError.RequestError>
  /** Hides log messages. */
  readonly logsOff: Effect.Effect<void>
  /** Subscribes to `uri` on `server` (and again on its next sessions). */
  readonly subscribe: (server: string, uri: string) => Effect.Effect<void, FollowError>
  /** Ends that subscription. */
  readonly unsubscribe: (server: string, uri: string) => Effect.Effect<void, FollowError>
  /** The servers subscribed to `uri`. */
  readonly subscribers: (uri: string) => Effect.Effect<ReadonlyArray<string>>
}

/** What subscribing can fail with: the server's refusal, or the server gone. */
export type FollowError = McpError.RequestError | HostError.UnknownServer | HostError.ServerUnavailable

const withUri = (subscriptions: ReadonlyMap<string, ReadonlySet<string>>, server: string, uri: string, on: boolean) => {
  const next = new Map(subscriptions)
  const uris = new Set(subscriptions.get(server) ?? [])
  if (on) uris.add(uri)
  else uris.delete(uri)
  next.set(server, uris)
  return next
}

/** The sessions of `host`'s servers as the shell follows them. */
export const make = (host: McpHost.McpHostService): Effect.Effect<HostSessions> =>
  Effect.gen(function* () {
    const state = yield* Ref.make<State>({ show: true, level: Option.none(), subscriptions: new Map() })

    /** A new session gets what the shell asked of the server's earlier ones. */
    const restore = (server: string, client: McpClient.McpClientService) =>
      Effect.gen(function* () {
        const { level, subscriptions } = yield* Ref.get(state)
        if (Option.isSome(level) && client.serverCapabilities.logging !== undefined)
          yield* Effect.ignore(client.setLoggingLevel(level.value))
        for (const uri of subscriptions.get(server) ?? []) yield* Effect.ignore(client.subscribe(uri))
      })

    /** What one session of `server` sends, as lines. */
    const linesOf = (server: string) =>
      Stream.unwrap(
        Effect.map(host.client(server), (client) => {
          const logs = client.logMessages.pipe(
            Stream.filterEffect(() => Effect.map(Ref.get(state), (current) => current.show)),
            Stream.map((log) => `${server}: ${logLine(log)}`)
          )
          const updates = client.resourceUpdates.pipe(Stream.map((update) => `${server}: updated: ${update.uri}`))
          // Listening first, so that nothing the restored session sends is missed.
          return Stream.merge(logs, updates).pipe(
            Stream.merge(Stream.fromEffect(restore(server, client)).pipe(Stream.drain))
          )
        })
      ).pipe(Stream.catchAll(() => Stream.empty))

    const lines = host.statusChanges.pipe(
      Stream.groupByKey((event) => event.server),
      // Per server, the lines of its current session: a new status ends the last one's.
      GroupBy.evaluate((server, events) =>
        events.pipe(
          Stream.flatMap((event) => (event.status._tag === "Ready" ? linesOf(server) : Stream.empty), {
            switch: true
          })
        )
      )
    )

    const ready = Effect.flatMap(host.servers, (servers) =>
      Effect.forEach(
        servers.filter((server) => server.status._tag === "Ready"),
        (server) => Effect.map(host.client(server.name), (client) => ({ server: server.name, client })),
        { concurrency: "unbounded" }
      )
    ).pipe(Effect.orElseSucceed(() => []))

    const logsOn = (level: McpSchema.LoggingLevel) =>
      Effect.gen(function* () {
        yield* Ref.update(state, (current) => ({ ...current, show: true, level: Option.some(level) }))
        const logging = (yield* ready).filter(({ client }) => client.serverCapabilities.logging !== undefined)
        yield* Effect.forEach(logging, ({ client }) => client.setLoggingLevel(level), {
          concurrency: "unbounded",
          discard: true
        })
        return logging.map(({ server }) => server)
      })

    const follow = (server: string, uri: string, on: boolean) =>
      Effect.gen(function* () {
        const client = yield* host.client(server)
        yield* on ? client.subscribe(uri) : client.unsubscribe(uri)
        yield* Ref.update(state, (current) => ({
          ...current,
          subscriptions: withUri(current.subscriptions, server, uri, on)
        }))
      })

    return {
      lines,
      logsOn,
      logsOff: Ref.update(state, (current) => ({ ...current, show: false })),
      subscribe: (server, uri) => follow(server, uri, true),
      unsubscribe: (server, uri) => follow(server, uri, false),
      subscribers: (uri) =>
        Effect.map(Ref.get(state), (current) =>
          [...current.subscriptions].filter(([, uris]) => uris.has(uri)).map(([server]) => server)
        )
    }
  })
