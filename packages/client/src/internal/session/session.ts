/**
 * The session: the lifecycle state (`lifecycle.ts`), the era and what the handshake or discovery
 * established (`negotiation.ts`), and the one request path (`executor.ts`): plain steps that
 * prepare a request (ready? declared? encoded for the revision) and decode its result, around one
 * executor composed once from the dialect's exchange and the combinators the options ask for
 * (recovery of an expired session, `recovery.ts`; the in-flight bound, `limiter.ts`; retries).
 * Features (tools, resources, prompts, tasks) are built over it.
 */

import * as Peer from "@effect-mcp/jsonrpc/Peer"
import { Transport } from "@effect-mcp/jsonrpc/Transport"
import { McpSchema, type Methods, ProtocolVersion } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { type RequestError, SessionUnavailable, TransportError } from "../../McpError.js"
import { isTerminal, SessionState } from "../../SessionState.js"
import * as Dialect from "./dialect.js"
import * as Executor from "./executor.js"
import * as KeepAlive from "./keepAlive.js"
import * as Lifecycle from "./lifecycle.js"
import * as Limiter from "./limiter.js"
import * as Negotiation from "./negotiation.js"
import * as Recovery from "./recovery.js"
import * as SessionRequest from "./request.js"
import * as Saved from "./saved.js"
import * as Steps from "./steps.js"
import * as Subscriptions from "./subscriptions.js"
import type { Established, Executor as ExecutorOf, RequestOptions, SessionOptions, SessionService } from "./types.js"

export type * from "./types.js"

const decodeImplementation = Schema.decodeUnknownOption(McpSchema.Implementation)

/** Builds a session over the transport in context; it ends with the scope. */
export const make = (options: SessionOptions): Effect.Effect<SessionService, never, Transport | Scope.Scope> =>
  Effect.gen(function* () {
    // Named by the caller, or by the server itself once the handshake says its name.
    let name = options.server ?? "mcp"
    const server = () => name
    const transport = yield* Transport
    const scope = yield* Effect.scope
    const lifecycle = yield* Lifecycle.make
    yield* lifecycle.move(SessionState.Connecting())
    const peer = yield* Peer.make(transport, { server, requestTimeout: options.requestTimeout })
    yield* Effect.addFinalizer(() =>
      Effect.zipRight(lifecycle.move(SessionState.Closing()), lifecycle.move(SessionState.Closed()))
    )

    // Replaced as a whole by each handshake or discovery, with the dialect to speak.
    let established: Established = {
      protocolVersion: options.protocolVersion === "auto" ? ProtocolVersion.LATEST : options.protocolVersion,
      serverInfo: { name, version: "" },
      serverCapabilities: {},
      instructions: Option.none()
    }
    let dialect: Dialect.Dialect = Dialect.stateful(peer)

    const steps = Steps.make({ server, state: lifecycle.current, established: () => established })
    const { prepare, prepareExtension, prepareUngated, prepareNotification, preparedFor, decode } = steps

    // 2026-07-28 results may say who answered (`_meta` serverInfo): the session keeps the latest.
    const learnServerInfo = (raw: Peer.WireObject) =>
      Effect.sync(() => {
        const meta = raw._meta
        if (!McpSchema.isJsonObject(meta) || meta[McpSchema.MetaKey.serverInfo] === undefined) return
        const info = decodeImplementation(meta[McpSchema.MetaKey.serverInfo])
        if (Option.isSome(info)) established = { ...established, serverInfo: info.value }
      })
    /** The innermost executor: the dialect the session speaks now. */
    const exchange: ExecutorOf<Dialect.WireError> = (request) => {
      const exchanged = dialect.exchange(request.method, request.wire, request.options)
      return dialect.era === "stateless" ? Effect.tap(exchanged, learnServerInfo) : exchanged
    }

    const establish = (next: Established, speaking: Dialect.Dialect) =>
      Effect.gen(function* () {
        established = next
        dialect = speaking
        if (options.server === undefined && next.serverInfo.name !== "") name = next.serverInfo.name
        yield* transport.setProtocolVersion(next.protocolVersion)
        yield* lifecycle.move(SessionState.Ready({ version: next.protocolVersion, serverInfo: next.serverInfo }))
      })
    const negotiation = Negotiation.make({
      server,
      transport,
      peer,
      scope,
      clientInfo: options.clientInfo,
      protocolVersion: options.protocolVersion,
      probeTimeout: options.probeTimeout,
      requestTimeout: options.requestTimeout,
      maxInputRounds: options.maxInputRounds,
      serve: options.serve,
      reattach: options.reattach,
      // Sent before the session is ready, so past the gate; a new session is never left half made.
      initialize: (params) =>
        Either.match(prepareUngated("initialize", params, { cancellable: false }), {
          onLeft: Effect.fail,
          onRight: (request) =>
            Effect.flatMap(Effect.mapError(exchange(request), Dialect.asRequestError), (raw) =>
              decode("initialize", raw)
            )
        }),
      establish
    })

    let clientCapabilities: McpSchema.ClientCapabilities = {}
    const start: SessionService["start"] = (capabilities) =>
      Effect.suspend(() => {
        clientCapabilities = capabilities
        return Effect.zipRight(
          lifecycle.move(SessionState.Initializing()),
          negotiation
            .select(capabilities)
            .pipe(Effect.tapError((cause) => lifecycle.move(SessionState.Failed({ cause }))))
        )
      })

    // Resource subscriptions outlive an expired session: the new one subscribes again.
    const subscriptions = Subscriptions.make(server, (uri) =>
      Either.match(prepare("resources/subscribe", { uri }), {
        onLeft: Effect.fail,
        onRight: (prepared) => Effect.mapError(exchange(prepared), Dialect.asRequestError)
      })
    )
    // A session that cannot be established again has failed (a host restarts it).
    const reinitialization = Effect.logWarning(`${server()}: the server lost the session; initializing a new one`).pipe(
      Effect.zipRight(
        Effect.suspend(() => negotiation.handshake(clientCapabilities)).pipe(
          Effect.tapError((cause) => lifecycle.move(SessionState.Failed({ cause })))
        )
      ),
      Effect.catchTag(
        "UnsupportedProtocolVersion",
        (error) => new SessionUnavailable({ server: server(), reason: error.message })
      )
    )

    // The executor, composed once: each combinator is there only when the options ask for it.
    const recovering =
      transport.expiresSessions === true && options.sessionRetries > 0
        ? Recovery.make({
            retries: options.sessionRetries,
            reinitialization,
            restore: subscriptions.restore,
            refresh: (request) =>
              request.version === established.protocolVersion
                ? Either.right(request)
                : preparedFor(request.method, request.encoded, request.options),
            alive: () => !isTerminal(lifecycle.current()),
            lost: (error) => lifecycle.move(SessionState.Failed({ cause: Dialect.asRequestError(error) })),
            scope,
            runtime: yield* Effect.runtime<never>()
          })
        : undefined
    const limiter = Limiter.make(server, options.maxInFlight, options.maxQueued)
    const retryPolicy = Executor.policyOf(options.retry)
    const settledExchange: ExecutorOf<RequestError> = (request) =>
      Effect.mapError((recovering === undefined ? exchange : recovering(exchange))(request), Dialect.asRequestError)
    const execute = Executor.retrying(server, retryPolicy)(Executor.limited(limiter)(settledExchange))

    const direct: SessionService["direct"] = (request) =>
      dialect.era === "stateful" &&
      recovering === undefined &&
      retryPolicy(request.method, request.options) === undefined
    const unsafeExecute = Executor.unsafe(peer, limiter)

    /** The session's own requests (subscriptions, keep-alive) take its own steps. */
    const request = <M extends Methods.RequestMethodName>(
      method: M,
      params: Methods.RequestParamsOf<M> | undefined,
      requestOptions?: RequestOptions
    ) => SessionRequest.request({ prepare, execute, decode }, method, params, requestOptions)

    const notify: SessionService["notify"] = (method, params) =>
      Effect.suspend(() =>
        Either.match(prepareNotification(method, params), {
          onLeft: Effect.fail,
          onRight: (wire) => dialect.notify(method, wire)
        })
      )

    const keepAlive = KeepAlive.make({
      prepare,
      decode,
      exchange: settledExchange,
      fail: (cause) => lifecycle.move(SessionState.Failed({ cause }))
    })

    // The connection ending on its own (the server went away or broke it) fails the session.
    yield* peer.whenClosed((error) =>
      lifecycle.move(
        SessionState.Failed({
          cause: Option.getOrElse(
            error,
            () => new TransportError({ server: server(), reason: "the server closed the connection" })
          )
        })
      )
    )

    return {
      get server() {
        return name
      },
      state: lifecycle.get,
      stateChanges: lifecycle.changes,
      established: () => established,
      saved: Effect.sync(() => {
        const sessionId = transport.sessionId?.()
        return sessionId === undefined || lifecycle.current()._tag !== "Ready"
          ? Option.none()
          : Saved.save(sessionId, established)
      }),
      era: () => dialect.era,
      freshness: (method) => dialect.freshness(method),
      accepts: (notification) => dialect.accepts(notification),
      start,
      prepare,
      prepareExtension,
      execute,
      direct,
      decode,
      retryPolicy,
      serveStale: options.serveStale === true,
      notify,
      subscribe: (uri) => Effect.zipRight(request("resources/subscribe", { uri }), subscriptions.add(uri)),
      unsubscribe: (uri) => Effect.zipRight(request("resources/unsubscribe", { uri }), subscriptions.remove(uri)),
      keepAlive,
      notifications: peer.notifications,
      observe: peer.observe,
      handle: peer.handle,
      notifyRaw: peer.notify,
      stats: peer.stats,
      unsafeExecute
    } satisfies SessionService
  })
