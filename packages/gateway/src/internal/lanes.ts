/**
 * Which session of a server a client's call goes over. A server that cannot say which call its
 * request is for (a 2025-era server over stdio or legacy SSE: nothing on the wire relates them)
 * is shared by the clients one at a time: a call goes over the shared session while no other
 * client's call is on it, else over a session of the server's own for that client
 * (`McpHost.openSession`, opened on first need and kept while the client is connected). So every
 * request such a server makes comes while one client's calls alone are in flight on its session,
 * and the gateway's client relates it to them. Other servers (Streamable HTTP, which answers on
 * the call's stream; 2026-07-28, which asks in the call) are always shared.
 */
import type { McpHost } from "@effect-mcp/host"
import * as Peer from "@effect-mcp/jsonrpc/Peer"
import type { JsonRpcFailure } from "@effect-mcp/jsonrpc/PeerError"
import { JsonRpc } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Scope from "effect/Scope"
import { Caller } from "./inflight.js"
import { failure } from "./wire.js"

/** Who is on each server's shared session now: per server, each client's calls on it. */
export type Shared = Map<string, Map<object, number>>

/** One client's way to its servers. */
export interface Lane {
  /** Runs `use` with the session the client's call to `server` goes over (`undefined`: the shared one). */
  readonly run: (
    server: string | undefined
  ) => <A, E, R>(
    use: (session: McpHost.OwnSession | undefined) => Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E | JsonRpcFailure, R>
}

/** Whether `server`'s requests can be told apart by call on a shared session. */
const relates = (host: McpHost.McpHostService, server: string): Effect.Effect<boolean> =>
  Effect.gen(function* () {
    const servers = yield* host.servers
    const target = servers.find((entry) => entry.name === server)?.config.target
    if (target === undefined || (target._tag === "Http" && target.transport !== "sse")) return true
    const client = yield* Effect.option(host.client(server))
    return client._tag === "None" || client.value.era === "stateless"
  })

/** Takes a place on the shared session when no other client holds one; whether it did. */
const claim = (shared: Shared, server: string, client: object): boolean => {
  const holders = shared.get(server) ?? new Map<object, number>()
  for (const holder of holders.keys()) if (holder !== client) return false
  holders.set(client, (holders.get(client) ?? 0) + 1)
  shared.set(server, holders)
  return true
}

const release = (shared: Shared, server: string, client: object) => {
  const holders = shared.get(server)
  const left = (holders?.get(client) ?? 0) - 1
  if (holders === undefined) return
  if (left > 0) holders.set(client, left)
  else holders.delete(client)
  if (holders.size === 0) shared.delete(server)
}

/**
 * A session of `server`'s own, opened as no one's: its fibers (the reader, whose handlers answer
 * the server's requests, and keep-alive) must not carry the call that happened to open it, or a
 * later call's request would be taken for that one's.
 */
const openOwn = (host: McpHost.McpHostService, server: string) =>
  host
    .openSession(server)
    .pipe(Effect.provideService(Caller, undefined), Effect.provideService(Peer.RequestOrigin, undefined))

/** The error of a session of the server's own that could not be opened. */
const unopened = (server: string) => (error: { readonly message: string }) =>
  failure(
    JsonRpc.ErrorCode.InternalError,
    `${server} cannot tell this client's calls from another client's, and a session of its own could not be opened: ${error.message}`,
    { server }
  )

/** A client's lane; its own sessions end with `scope` (the connection's). */
export const make = (host: McpHost.McpHostService, shared: Shared, scope: Scope.Scope): Effect.Effect<Lane> =>
  Effect.gen(function* () {
    const client = {}
    const lock = yield* Effect.makeSemaphore(1)
    const own = new Map<string, McpHost.OwnSession>()
    const ownSession = (server: string) =>
      lock.withPermits(1)(
        Effect.suspend(() => {
          const open = own.get(server)
          if (open !== undefined) return Effect.succeed(open)
          return openOwn(host, server).pipe(
            Scope.extend(scope),
            Effect.tap((session) => Effect.sync(() => own.set(server, session))),
            Effect.mapError(unopened(server))
          )
        })
      )
    return {
      run: (server) => (use) =>
        server === undefined
          ? use(undefined)
          : Effect.flatMap(relates(host, server), (shareable) =>
              shareable
                ? use(undefined)
                : Effect.acquireUseRelease(
                    Effect.sync(() => claim(shared, server, client)),
                    (onShared) => (onShared ? use(undefined) : Effect.flatMap(ownSession(server), use)),
                    (onShared) => (onShared ? Effect.sync(() => release(shared, server, client)) : Effect.void)
                  )
            )
    }
  })
