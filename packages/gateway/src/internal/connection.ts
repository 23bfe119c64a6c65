/**
 * One client's connection to the gateway (`McpGateway.serve`): a peer over its transport, the
 * handshake, then the host's catalog, its subscriptions, tasks and log relay, and the servers'
 * requests made in its calls asked of it; everything in the connection's scope.
 *
 * A connection may also be served again after it was stopped between requests ({@link Resumable}:
 * a 2025-11-25 HTTP session that went dormant, `ownedSessions.ts`): the same serving, started as
 * initialized with the handshake it had, so that what the client sees does not change.
 */
import { McpHost } from "@effect-mcp/host"
import * as Peer from "@effect-mcp/jsonrpc/Peer"
import type { TransportService } from "@effect-mcp/jsonrpc/Transport"
import { JsonRpc } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Scope from "effect/Scope"
import type { Options } from "../McpGateway.js"
import * as Catalog from "./catalog.js"
import type * as Fanout from "./fanout.js"
import * as Handshake from "./handshake.js"
import * as HeldCalls from "./heldCalls.js"
import * as InFlight from "./inflight.js"
import * as LogRelay from "./logRelay.js"
import * as Sealing from "./sealing.js"
import * as ServerRequests from "./serverRequests.js"
import * as StatelessPeer from "./statelessPeer.js"
import * as Subscriptions from "./subscriptions.js"
import * as Tasks from "./tasks.js"
import * as Views from "./views.js"
import { failure } from "./wire.js"

/** A connection that may be stopped between requests and served again. */
export interface Resumable {
  /** The handshake it had when it was stopped: served again as initialized. `undefined`: a new one. */
  readonly negotiated: Handshake.Negotiated | undefined
  /**
   * Told once the connection is initialized (or served again): its handshake, and whether it may
   * be stopped now (nothing outstanding: no subscription, log level or task, no request either way).
   */
  readonly initialized: (negotiated: Handshake.Negotiated, stoppable: Effect.Effect<boolean>) => Effect.Effect<void>
  /** The ids of the requests sent to the client, one source for every serving (none is used twice in a session). */
  readonly nextId: () => number
}

/** A notification sent to the client. */
type Notify = (method: string, params?: Peer.WireObject) => Effect.Effect<void>

/**
 * What an initialized connection hears of the servers unasked, while the scope is open: the
 * aggregate's list changes, the logs no call of another client is related to, and its tasks' statuses.
 */
const hear = (
  fanout: Fanout.Fanout,
  inFlight: InFlight.InFlight,
  notify: Notify,
  logs: LogRelay.Options,
  taskStatus?: Fanout.Listener["taskStatus"]
): Effect.Effect<void, never, Scope.Scope> =>
  Effect.zipRight(
    fanout.listen({
      listChanged: (list) => notify(`notifications/${list}/list_changed`),
      ...(taskStatus === undefined ? {} : { taskStatus })
    }),
    LogRelay.relay(fanout, inFlight, logs)
  )

/**
 * What a stopped connection still hears while the scope is open (a dormant session whose client
 * listens on its GET stream): what a served one with nothing of its own in flight or standing
 * would, the list changes and the logs no call is related to, written straight to its transport.
 */
export const rested = (
  transport: TransportService
): Effect.Effect<void, never, McpHost.McpHost | ServerRequests.Attachments | Scope.Scope> =>
  Effect.gen(function* () {
    const host = yield* McpHost.McpHost
    const fanout = yield* Effect.flatMap(ServerRequests.Attachments, (shared) => shared.fanout(host))
    const notify: Notify = (method, params) =>
      Effect.ignore(transport.send({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) }))
    yield* hear(fanout, InFlight.make(), notify, { send: (params) => notify("notifications/message", params) })
  })

/** Serves one client over `transport` until the connection ends or the fiber is interrupted. */
export const serve = (
  transport: TransportService,
  options: Options,
  resumable: Resumable | undefined
): Effect.Effect<void, never, McpHost.McpHost | ServerRequests.Attachments> =>
  Effect.gen(function* () {
    const host = yield* McpHost.McpHost
    const shared = yield* ServerRequests.Attachments
    let clientName = options.clientName ?? "client"
    // Everything asynchronous comes before the peer reads: a request must find its handler.
    const sealer = yield* Sealing.make([yield* Sealing.localKey])
    const held = yield* HeldCalls.make()
    const peer = yield* Peer.make(transport, {
      server: () => clientName,
      requestTimeout: "60 seconds",
      answerMalformed: true,
      ...(resumable === undefined ? {} : { nextId: resumable.nextId })
    })
    const serverInfo = options.serverInfo ?? Handshake.defaultServerInfo
    const inFlight = InFlight.make()
    // What the servers send to no one in particular is followed once for all connections.
    const fanout = yield* shared.fanout(host)
    const subscriptions = yield* Subscriptions.make(host, peer, shared, shared.levels, fanout)
    const scope = yield* Effect.scope
    let initialized = false
    yield* StatelessPeer.register(peer, {
      host,
      serverInfo,
      instructions: options.instructions,
      attachments: shared,
      sealer,
      toolSearch: options.toolSearch === true,
      ...(options.maxCallTime === undefined ? {} : { maxCallTime: options.maxCallTime }),
      held
    })

    /** What an initialized connection serves: the catalog, its tasks, the servers' requests and logs. */
    const begin = (negotiated: Handshake.Negotiated) =>
      Effect.gen(function* () {
        initialized = true
        if (options.clientName === undefined) clientName = negotiated.clientInfo.name
        const notify: Notify = (method, params) => Effect.ignore(peer.notify(method, params))
        const logs: LogRelay.Options = {
          send: (params) => notify("notifications/message", params),
          level: subscriptions.level
        }
        const tasks = Tasks.canCreate(negotiated.version) ? Tasks.make() : undefined
        // No one can reach a connection's tasks once it has ended: those still running are cancelled.
        if (tasks !== undefined) yield* Scope.addFinalizer(scope, Tasks.cancelAll(host, tasks))
        const attached: ServerRequests.Attached = {
          client: negotiated,
          inFlight,
          request: ServerRequests.askPeer(peer),
          ...(tasks === undefined ? {} : { taskIdOf: (server, taskId) => Tasks.idOf(tasks, server, taskId) })
        }
        // The servers' requests made within this client's calls are this client's.
        yield* Catalog.register(
          peer,
          Catalog.handlers({
            host,
            version: negotiated.version,
            notify,
            subscriptions,
            ...(tasks === undefined ? {} : { tasks }),
            inFlight,
            toolSearch: options.toolSearch === true,
            ...(options.maxCallTime === undefined ? {} : { maxCallTime: options.maxCallTime }),
            clientCapabilities: negotiated.capabilities,
            logs: LogRelay.own({ ...logs, asked: true }),
            lane: yield* Effect.flatMap(shared.pool(host), (pool) => pool.kept(scope))
          }),
          (request) => ServerRequests.servingFor(attached, request.id)
        )
        yield* ServerRequests.attach(shared.attached, attached).pipe(Scope.extend(scope))
        // The aggregate's list changes, its tasks' statuses and the servers' logs, once the client
        // is initialized (a 2026-07-28 client asks for logs request by request).
        yield* hear(
          fanout,
          inFlight,
          notify,
          logs,
          tasks === undefined ? undefined : Tasks.statusTo(tasks, notify)
        ).pipe(Scope.extend(scope))
        if (resumable === undefined) return
        const stoppable = Effect.map(
          peer.stats,
          (stats) =>
            stats.pending === 0 &&
            stats.inbound === 0 &&
            !subscriptions.standing() &&
            (tasks === undefined || tasks.started.size === 0)
        )
        yield* resumable.initialized(negotiated, stoppable)
      })

    // MCP Apps is declared when a server offers it as the client initializes (a session's capabilities are fixed).
    const initialize = (request: Peer.InboundRequest, apps: boolean) => {
      if (initialized) return Effect.fail(failure(JsonRpc.ErrorCode.InvalidRequest, "Already initialized"))
      const answer = Handshake.initialize(
        request.params,
        serverInfo,
        options.instructions,
        apps ? Views.extension : undefined
      )
      if (Either.isLeft(answer)) {
        return Effect.fail(failure(JsonRpc.ErrorCode.InvalidParams, `Invalid params for initialize: ${answer.left}`))
      }
      return Effect.as(begin(answer.right.negotiated), answer.right.result)
    }
    yield* peer.handle("initialize", (request) =>
      Effect.flatMap(Views.offered(host), (apps) => initialize(request, apps))
    )
    if (resumable?.negotiated !== undefined) yield* begin(resumable.negotiated)
    yield* peer.closed
  }).pipe(
    // The connection's own scope: when it ends, its handlers (and so its calls on the servers) are
    // interrupted, its subscriptions released, its tasks cancelled and it is no longer asked anything.
    Effect.scoped
  )
