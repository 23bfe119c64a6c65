/**
 * The session: one cell of its lifecycle state and what it speaks (`lifecycle.ts`), filled by what
 * negotiation returns (`negotiation.ts`), and the one request path (`executor.ts`): plain steps that
 * prepare a request (ready? declared? encoded for the revision) and decode its result, around one
 * executor composed once from the dialect's exchange and the combinators the options ask for
 * (recovery of an expired session, `recovery.ts`; the in-flight bound, `limiter.ts`; retries).
 * Features (tools, resources, prompts, tasks) are built over it.
 */

import * as Peer from "@effect-mcp/jsonrpc/Peer"
import * as PlainForm from "@effect-mcp/jsonrpc/PlainForm"
import { Transport } from "@effect-mcp/jsonrpc/Transport"
import { type Methods, ProtocolVersion } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import { type InitializeError, type RequestError, SessionUnavailable, TransportError } from "../../McpError.js"
import { isTerminal, SessionState } from "../../SessionState.js"
import * as Answered from "./answered.js"
import * as Combinators from "./combinators.js"
import * as Dialect from "./dialect.js"
import * as KeepAlive from "./keepAlive.js"
import * as Lifecycle from "./lifecycle.js"
import * as Negotiation from "./negotiation.js"
import * as Recovery from "./recovery.js"
import * as SessionRequest from "./request.js"
import * as Saved from "./saved.js"
import * as Steps from "./steps.js"
import * as Subscriptions from "./subscriptions.js"
import type { Executor as ExecutorOf, RequestOptions, SessionOptions, SessionService } from "./types.js"

export type * from "./types.js"

/** A session as built: the service, and what only its builder runs (its start, its keep-alive). */
export interface Built {
  readonly service: SessionService
  /** Performs the handshake or discovery; the session is `Ready` after it, `Failed` if it fails. */
  readonly start: Effect.Effect<void, InitializeError>
  /** Pings after each delay of `schedule`; a ping that fails (none answered within `timeout`) fails the session. Runs in the scope. */
  readonly keepAlive: KeepAlive.KeepAlive
}

/** What recovery of an expired session is made of, from the session's parts. */
interface RecoveryParts {
  readonly server: () => string
  readonly options: SessionOptions
  readonly lifecycle: Lifecycle.Lifecycle
  readonly negotiation: Negotiation.Negotiation
  readonly steps: Steps.Steps
  readonly subscriptions: Subscriptions.Subscriptions
  readonly establish: (next: Negotiation.Negotiated) => Effect.Effect<void, TransportError>
  readonly failWith: (cause: InitializeError) => Effect.Effect<void>
}

/**
 * Recovery of an expired session: a new handshake (a session that cannot be established again has
 * failed; a host restarts it), the subscriptions restored, and each request prepared again when
 * the new session speaks another revision.
 */
const recoveryOf = ({
  server,
  options,
  lifecycle,
  negotiation,
  steps,
  subscriptions,
  establish,
  failWith
}: RecoveryParts) =>
  Recovery.make({
    retries: options.sessionRetries,
    reinitialization: Effect.logWarning(`${server()}: the server lost the session; initializing a new one`).pipe(
      Effect.zipRight(Effect.flatMap(negotiation.handshake, establish).pipe(Effect.tapError(failWith))),
      Effect.catchTag(
        "UnsupportedProtocolVersion",
        (error) => new SessionUnavailable({ server: server(), reason: error.message })
      )
    ),
    restore: subscriptions.restore,
    refresh: (request) =>
      request.version === lifecycle.speaking().established.protocolVersion
        ? Either.right(request)
        : steps.preparedFor(request.method, request.encoded, request.options),
    alive: () => !isTerminal(lifecycle.current()),
    lost: (error) => lifecycle.move(SessionState.Failed({ cause: Dialect.asRequestError(error) }))
  })

/** Builds a session over the transport in context; it ends with the scope. */
export const make = (options: SessionOptions): Effect.Effect<Built, never, Transport | Scope.Scope> =>
  Effect.gen(function* () {
    const transport = yield* Transport
    // Named by the caller, or by the server itself once the handshake says its name.
    const server = (): string => options.server ?? (lifecycle.speaking().established.serverInfo.name || "mcp")
    // Until the first establishment, what was requested.
    const lifecycle = yield* Lifecycle.make({
      established: {
        protocolVersion: options.protocolVersion === "auto" ? ProtocolVersion.LATEST : options.protocolVersion,
        serverInfo: { name: options.server ?? "mcp", version: "" },
        serverCapabilities: {},
        instructions: Option.none()
      },
      dialect: Dialect.unestablished(server)
    })
    yield* lifecycle.move(SessionState.Connecting())
    const peer = yield* Peer.make(transport, { server, requestTimeout: options.requestTimeout })
    yield* Effect.addFinalizer(() =>
      Effect.zipRight(lifecycle.move(SessionState.Closing()), lifecycle.move(SessionState.Closed()))
    )
    const established = () => lifecycle.speaking().established
    const steps = Steps.make({ server, state: lifecycle.current, established })
    const { prepare, prepareExtension, prepareNotification, decode } = steps

    const exchange = Answered.exchangeOf(lifecycle)

    const negotiation = yield* Negotiation.make({ server, transport, peer, steps, session: options })
    // What a negotiation established becomes the session's; a handshake is then confirmed.
    const establish = (next: Negotiation.Negotiated) =>
      Effect.gen(function* () {
        yield* transport.setProtocolVersion(next.established.protocolVersion)
        yield* lifecycle.establish(next)
        if (next.initialized) yield* peer.notify("notifications/initialized")
      })
    const failWith = (cause: InitializeError) => lifecycle.move(SessionState.Failed({ cause }))
    const start = Effect.zipRight(
      lifecycle.move(SessionState.Initializing()),
      Effect.flatMap(negotiation.select, establish).pipe(Effect.tapError(failWith))
    )

    // Resource subscriptions outlive an expired session: the new one subscribes again.
    const subscriptions = Subscriptions.make(server, (uri) =>
      Either.match(prepare("resources/subscribe", { uri }), {
        onLeft: Effect.fail,
        onRight: (prepared) => Effect.mapError(exchange(prepared), Dialect.asRequestError)
      })
    )
    const recovering =
      transport.expiresSessions === true && options.sessionRetries > 0
        ? yield* recoveryOf({ server, options, lifecycle, negotiation, steps, subscriptions, establish, failWith })
        : undefined
    const answered = Answered.make({
      exchange,
      recovering,
      startRequest: PlainForm.of(peer.request),
      stateful: () => lifecycle.speaking().dialect.era === "stateful"
    })
    // The session's own requests take the same path (its subscriptions, through `service.execute`).
    const execute: ExecutorOf<RequestError> = (request) => service.execute(request)

    /** The session's own requests (subscriptions) take its own steps. */
    const request = <M extends Methods.RequestMethodName>(
      method: M,
      params: Methods.RequestParamsOf<M> | undefined,
      requestOptions?: RequestOptions
    ) => SessionRequest.request({ prepare, execute, decode }, method, params, requestOptions)

    const notify: SessionService["notify"] = (method, params) =>
      Effect.suspend(() =>
        Either.match(prepareNotification(method, params), {
          onLeft: Effect.fail,
          onRight: (wire) => lifecycle.speaking().dialect.notify(method, wire)
        })
      )

    const keepAlive = KeepAlive.make({
      prepare,
      decode,
      exchange: answered,
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

    const service: SessionService = Combinators.fromOptions(options)({
      get server() {
        return server()
      },
      state: lifecycle.get,
      stateChanges: lifecycle.changes,
      established,
      saved: Effect.sync(() => {
        const sessionId = transport.sessionId?.()
        return sessionId === undefined || lifecycle.current()._tag !== "Ready"
          ? Option.none()
          : Saved.save(sessionId, established())
      }),
      era: () => lifecycle.speaking().dialect.era,
      freshness: (method) => lifecycle.speaking().dialect.freshness(method),
      accepts: (notification) => lifecycle.speaking().dialect.accepts(notification),
      prepare,
      prepareExtension,
      execute: answered,
      decode,
      notify,
      subscribe: (uri) => Effect.zipRight(request("resources/subscribe", { uri }), subscriptions.add(uri)),
      unsubscribe: (uri) => Effect.zipRight(request("resources/unsubscribe", { uri }), subscriptions.remove(uri)),
      notifications: peer.notifications,
      observe: peer.observe,
      handle: peer.handle,
      notifyRaw: peer.notify,
      stats: peer.stats
    })
    return { service, start, keepAlive }
  })
