/**
 * One client's standing requests to the servers behind the gateway: the resources it subscribed to
 * (each with the server that serves it, listed or not; the server's session stays subscribed while
 * any connection is, and the connection's subscriptions are released when it ends) and the log level it asked
 * for (the servers' sessions, which every connection shares, are set to the most verbose level any
 * connection asked for; each connection hears its own, `logRelay.ts`). Both are applied again to a server's new session when the host restarts it, and updates of subscribed
 * resources are passed on to the client, for as long as the connection lives (its log messages:
 * `logRelay.ts`).
 */
import type { McpHost } from "@effect-mcp/host"
import type * as Peer from "@effect-mcp/jsonrpc/Peer"
import type { JsonRpcFailure } from "@effect-mcp/jsonrpc/PeerError"
import { JsonRpc, type McpSchema } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { Fanout } from "./fanout.js"
import * as LogRelay from "./logRelay.js"
import { firstThatHas, serverOfUri, serversForUnlisted } from "./routing.js"
import type * as ServerRequests from "./serverRequests.js"
import { behind, failure } from "./wire.js"

/** A client's subscriptions and log level. */
export interface Subscriptions {
  readonly add: (uri: string) => Effect.Effect<void, JsonRpcFailure>
  readonly remove: (uri: string) => Effect.Effect<void, JsonRpcFailure>
  readonly setLevel: (level: McpSchema.LoggingLevel) => Effect.Effect<void>
  /** The log level the client set, if any: it hears the servers' logs at or above it. */
  readonly level: () => McpSchema.LoggingLevel | undefined
  /** Whether the client holds anything on the servers: a subscription, or a log level it set. */
  readonly standing: () => boolean
}

/** The key of a server's resource in the holders' count. */
const keyOf = (server: string, uri: string) => `${server}\u0000${uri}`

/**
 * Subscribes the server's one session to `uri` for one more holder (a 2025-11-25 connection or a
 * 2026-07-28 listen): it stays subscribed while any holds it.
 */
export const hold = (host: McpHost.McpHostService, shared: Holders, server: string, uri: string) =>
  Effect.gen(function* () {
    const client = yield* behind(host.client(server))
    yield* behind(client.subscribe(uri))
    const key = keyOf(server, uri)
    shared.subscribers.set(key, (shared.subscribers.get(key) ?? 0) + 1)
  }).pipe(shared.subscribing.withPermits(1))

/** One holder fewer: the server's session unsubscribes from `uri` when the last lets go. */
export const release = (host: McpHost.McpHostService, shared: Holders, server: string, uri: string) =>
  Effect.gen(function* () {
    const key = keyOf(server, uri)
    const left = (shared.subscribers.get(key) ?? 1) - 1
    if (left > 0) return shared.subscribers.set(key, left)
    shared.subscribers.delete(key)
    const client = yield* behind(host.client(server))
    yield* behind(client.unsubscribe(uri))
  }).pipe(shared.subscribing.withPermits(1))

/**
 * Holds `uri` for one more holder on the server that serves it: the one that lists it (or whose
 * template matches it), else the first of those that may serve it unlisted (`serversForUnlisted`)
 * whose answer to the subscription is other than "not found". That server, or -32002 when none
 * has the URI.
 */
export const holdServed = (
  host: McpHost.McpHostService,
  shared: Holders,
  uri: string
): Effect.Effect<string, JsonRpcFailure> =>
  Effect.gen(function* () {
    const listed = yield* serverOfUri(host, uri)
    const servers = listed !== undefined ? [listed] : yield* serversForUnlisted(host, uri, "subscribe")
    const [server] = yield* firstThatHas(
      servers,
      (server) => hold(host, shared, server, uri),
      failure(JsonRpc.ErrorCode.ResourceNotFound, `Resource not found: ${uri}`, { uri })
    )
    return server
  })

/** How long a server is given to take the shared log level. */
const SET_LEVEL_TIMEOUT = "5 seconds"

/** How many hold each server's resource, and the lock their changes take (a release and a hold never cross). */
export type Holders = Pick<ServerRequests.AttachmentsService, "subscribers" | "subscribing">

/**
 * The client's subscriptions, and the forwarding of each ready server's resource updates to
 * `peer`, following the host's restarts, until the scope closes.
 */
export const make = (
  host: McpHost.McpHostService,
  peer: Peer.Peer,
  holders: Holders,
  levels: Map<object, McpSchema.LoggingLevel>,
  fanout: Fanout
): Effect.Effect<Subscriptions, never, Scope.Scope> =>
  Effect.gen(function* () {
    const subscribed = new Map<string, string>()
    yield* Effect.addFinalizer(() =>
      Effect.forEach(subscribed, ([uri, server]) => Effect.ignore(release(host, holders, server, uri)), {
        discard: true
      })
    )
    /** This connection, as `levels` knows it. */
    const self = {}
    const shared = () => LogRelay.mostVerbose(levels.values())
    /**
     * Sets every ready server to the shared level as it is once the lock is held: changes of
     * several sessions reach the servers one after the other, the last one last.
     */
    const applyShared = Effect.gen(function* () {
      const level = shared()
      if (level === undefined) return
      const servers = yield* host.servers
      yield* Effect.forEach(
        servers.filter((server) => server.status._tag === "Ready"),
        // Bounded: the lock is the other sessions' too, and a closing connection waits for it.
        (server) =>
          Effect.ignore(
            Effect.flatMap(host.client(server.name), (client) => client.setLoggingLevel(level)).pipe(
              Effect.timeout(SET_LEVEL_TIMEOUT)
            )
          ),
        { concurrency: "unbounded", discard: true }
      )
    }).pipe(holders.subscribing.withPermits(1))
    // A session that ends no longer holds the servers at its level: they go to the others' (if any).
    yield* Effect.addFinalizer(() =>
      Effect.suspend(() => {
        const before = shared()
        levels.delete(self)
        return shared() === before ? Effect.void : applyShared
      })
    )
    yield* fanout.listen({
      // A server's new session: the client's standing requests are applied to it again.
      ready: (server, client) =>
        Effect.gen(function* () {
          const level = shared()
          if (levels.has(self) && level !== undefined) yield* Effect.ignore(client.setLoggingLevel(level))
          for (const [uri, owner] of subscribed) if (owner === server) yield* Effect.ignore(client.subscribe(uri))
        }),
      updated: (server, update) =>
        subscribed.get(update.uri) === server
          ? Effect.ignore(peer.notify("notifications/resources/updated", update))
          : Effect.void
    })

    return {
      add: (uri) =>
        Effect.gen(function* () {
          const held = subscribed.get(uri)
          // Held already: where it is, unless another server lists it now.
          if (held !== undefined && ((yield* serverOfUri(host, uri)) ?? held) === held) return
          subscribed.set(uri, yield* holdServed(host, holders, uri))
          if (held !== undefined) yield* Effect.ignore(release(host, holders, held, uri))
        }),
      remove: (uri) =>
        Effect.gen(function* () {
          const server = subscribed.get(uri)
          if (server === undefined) return
          subscribed.delete(uri)
          yield* release(host, holders, server, uri)
        }),
      setLevel: (next) =>
        Effect.zipRight(
          Effect.sync(() => levels.set(self, next)),
          applyShared
        ),
      level: () => levels.get(self),
      standing: () => subscribed.size > 0 || levels.has(self)
    }
  })
