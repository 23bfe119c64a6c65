/**
 * The session: the lifecycle state (`lifecycle.ts`), the era and what the handshake or discovery
 * established (`negotiation.ts`), and the one request path (`executor.ts`): plain steps that
 * prepare a request (ready? declared? encoded for the revision) and decode its result, around one
 * executor composed once from the dialect's exchange and the combinators the options ask for
 * (recovery of an expired session, `recovery.ts`; the in-flight bound, `limiter.ts`; retries).
 * Features (tools, resources, prompts, tasks) are built over it.
 */
import { type JsonRpc, McpSchema, Methods, ProtocolVersion, Revision } from "@effect-mcp/protocol"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as HashSet from "effect/HashSet"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import {
  CapabilityNotSupported,
  DecodeError,
  type InitializeError,
  InvalidInput,
  type RequestError,
  SessionUnavailable,
  TransportError
} from "../../McpError.js"
import type * as Retry from "../../Retry.js"
import { SessionState } from "../../SessionState.js"
import { Transport } from "../../Transport.js"
import type { Answer } from "../features/serverRequests.js"
import * as Peer from "../peer/peer.js"
import * as Dialect from "./dialect.js"
import * as Executor from "./executor.js"
import * as Lifecycle from "./lifecycle.js"
import * as Limiter from "./limiter.js"
import * as Negotiation from "./negotiation.js"
import * as Recovery from "./recovery.js"

export type { Prepared, RequestOptions } from "./executor.js"
export type { Established } from "./negotiation.js"

/** Options of a session. */
export interface SessionOptions {
  /** The server's name in errors, logs and spans; without one, the name the server reports, once it has. */
  readonly server: string | undefined
  readonly clientInfo: McpSchema.Implementation
  /** The revision to speak, or `auto`: probe with `server/discover` and choose the era. */
  readonly protocolVersion: ProtocolVersion.ProtocolVersion | "auto"
  readonly requestTimeout: Duration.DurationInput
  /** How many times a request is retried after re-initializing an expired session. */
  readonly sessionRetries: number
  /** How long the era probe waits (silence on stdio means a legacy server). */
  readonly probeTimeout: Duration.DurationInput
  /** The most rounds of a multi round-trip request (2026-07-28). */
  readonly maxInputRounds: number
  /** Answers the input a 2026-07-28 result asks for, with the host's handlers. */
  readonly answer: Answer
  /** Retries of reads and tool calls (none unless given). */
  readonly retry?: Retry.RetrySettings | undefined
  /** At most this many requests in flight (default: no bound); beyond, they wait in a queue of `maxQueued`. */
  readonly maxInFlight?: number | undefined
  readonly maxQueued?: number | undefined
  /** Lists answer from their last good value when a refresh fails (with a warning). Default: false. */
  readonly serveStale?: boolean | undefined
}

/** A session over the transport in context. */
export interface Session {
  /** The server's name in errors, logs and spans, as it is now. */
  readonly server: string
  readonly peer: Peer.Peer
  /** The lifecycle state now. */
  readonly state: Effect.Effect<SessionState>
  /** The lifecycle state now, then each change. */
  readonly stateChanges: Stream.Stream<SessionState>
  /** What the last handshake or discovery established (before the first one completes: what was requested). */
  readonly established: () => Negotiation.Established
  /** The era the session speaks (stateful until a probe says otherwise). */
  readonly era: () => "stateful" | "stateless"
  /** How long a list method's last listing stays fresh (2026-07-28 `ttlMs`); none: until it changes. */
  readonly freshness: (method: string) => Option.Option<number>
  /** Whether a notification belongs to the current subscriptions (see the dialect's `accepts`). */
  readonly accepts: (notification: JsonRpc.JSONRPCNotification) => boolean
  /** Performs the handshake; the session is `Ready` after it, `Failed` if it fails. */
  readonly start: (capabilities: McpSchema.ClientCapabilities) => Effect.Effect<void, InitializeError>
  /**
   * The first step of every request: fails unless the session is ready and (with `checkCapability`,
   * the default) the server declared what the method needs; encodes the params for the revision.
   */
  readonly prepare: <M extends Methods.RequestMethodName>(
    method: M,
    params: Methods.RequestParamsOf<M> | undefined,
    options?: Executor.RequestOptions,
    checkCapability?: boolean
  ) => Either.Either<Executor.Prepared, RequestError>
  /**
   * The first step of an extension's request (`skills/list`), which the method table does not
   * hold: fails unless the session is ready; the params go as they are given.
   */
  readonly prepareExtension: (
    method: string,
    params: Peer.WireObject | undefined,
    options?: Executor.RequestOptions
  ) => Either.Either<Executor.Prepared, RequestError>
  /** Sends a prepared request: the dialect's exchange, with recovery, the in-flight bound and retries as configured. */
  readonly execute: Executor.Executor<RequestError>
  /**
   * Whether `execute` does no more for this request than the peer's exchange (a stateful session,
   * no bound, no retry policy for it, and a transport whose sessions never expire): then the same
   * exchange may be started from plain code with `peer.unsafeRequest` (the Promise adapter does).
   */
  readonly direct: (request: Executor.Prepared) => boolean
  /** The last step: the result of `method` decoded from the wire, or a `DecodeError` saying where it does not fit. */
  readonly decode: <M extends Methods.RequestMethodName>(
    method: M,
    raw: Peer.WireObject
  ) => Either.Either<Methods.ResultOf<M>, DecodeError>
  /** Any request of the method table: `prepare`, `execute`, `decode`. */
  readonly request: <M extends Methods.RequestMethodName>(
    method: M,
    params: Methods.RequestParamsOf<M> | undefined,
    options?: Executor.RequestOptions
  ) => Effect.Effect<Methods.ResultOf<M>, RequestError>
  /** Whether cached lists answer from their last good value when a refresh fails. */
  readonly serveStale: boolean
  /** The retry policy a request of `method` with these options has, if any. */
  readonly retryPolicy: (method: string, options: Executor.RequestOptions | undefined) => Retry.RetryPolicy | undefined
  /** Sends a notification of the method table, encoded for the revision. */
  readonly notify: <M extends Methods.NotificationMethodName>(
    method: M,
    params: Methods.NotificationParamsOf<M> | undefined
  ) => Effect.Effect<void, RequestError>
  /** `resources/subscribe`, remembered so that a re-established session subscribes again. */
  readonly subscribe: (uri: string) => Effect.Effect<void, RequestError>
  /** `resources/unsubscribe`, and forgotten. */
  readonly unsubscribe: (uri: string) => Effect.Effect<void, RequestError>
  /** Pings every `interval`; no answer within `timeout` fails the session. Runs in the scope. */
  readonly keepAlive: (
    interval: Duration.DurationInput,
    timeout: Duration.DurationInput
  ) => Effect.Effect<void, never, Scope.Scope>
}

/** The server capability a request needs, if any (`tasks/list` and `tasks/cancel` by the receiver's `tasks`). */
const serverCapabilityOf = (method: Methods.RequestMethodName): Methods.Capability | undefined =>
  method === "tasks/list" || method === "tasks/cancel"
    ? Methods.taskCapability(method, "server")
    : Methods.requestCapability(method)

const decodeImplementation = Schema.decodeUnknownOption(McpSchema.Implementation)

/** Builds a session over the transport in context; it ends with the scope. */
export const make = (options: SessionOptions): Effect.Effect<Session, never, Transport | Scope.Scope> =>
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
    let established: Negotiation.Established = {
      protocolVersion: options.protocolVersion === "auto" ? ProtocolVersion.LATEST : options.protocolVersion,
      serverInfo: { name, version: "" },
      serverCapabilities: {},
      instructions: Option.none()
    }
    let dialect: Dialect.Dialect = Dialect.stateful(peer)

    const invalid = (method: string, reason: string) => new InvalidInput({ server: server(), method, reason })
    /** A request for the revision the session speaks now (the steps shared by `prepare` and recovery). */
    const preparedFor = (
      method: string,
      encoded: Peer.WireObject | undefined,
      requestOptions: Executor.RequestOptions
    ): Either.Either<Executor.Prepared, RequestError> => {
      const version = established.protocolVersion
      return Either.map(Revision.requestParams(version, method, encoded), (wire) => ({
        method,
        encoded,
        wire,
        version,
        options: requestOptions
      }))
    }

    /** Fails unless the session is ready. */
    const unavailable = (): SessionUnavailable | undefined => {
      const current = lifecycle.current()
      return current._tag === "Ready"
        ? undefined
        : new SessionUnavailable({
            server: server(),
            reason: current._tag === "Failed" ? current.cause.message : `the session is ${current._tag}`
          })
    }
    /** The capability a request of `method` needs, when the server did not declare it. */
    const undeclared = (method: Methods.RequestMethodName): CapabilityNotSupported | undefined => {
      const capability = serverCapabilityOf(method)
      return capability?.side === "server" &&
        !Methods.declares(established.serverCapabilities, capability, established.protocolVersion)
        ? new CapabilityNotSupported({ server: server(), method, capability: capability.path.join(".") })
        : undefined
    }

    /** Encodes typed params to the newest revision's wire form. */
    const encode = <M extends Methods.RequestMethodName>(
      method: M,
      params: Methods.RequestParamsOf<M> | undefined
    ): Either.Either<Peer.WireObject | undefined, InvalidInput> => {
      if (params === undefined) return Either.right(undefined)
      const encoded = Methods.encodeRequestParams(method, params)
      if (Either.isLeft(encoded)) {
        return Either.left(invalid(method, ParseResult.TreeFormatter.formatErrorSync(encoded.left)))
      }
      return McpSchema.isJsonObject(encoded.right)
        ? Either.right(encoded.right)
        : Either.left(invalid(method, "params must be an object"))
    }
    /** Encodes and takes down to the revision, with no gate (the handshake's own requests). */
    const prepareUngated = <M extends Methods.RequestMethodName>(
      method: M,
      params: Methods.RequestParamsOf<M> | undefined,
      requestOptions: Executor.RequestOptions
    ) => Either.flatMap(encode(method, params), (encoded) => preparedFor(method, encoded, requestOptions))

    const prepare: Session["prepare"] = (method, params, requestOptions = {}, checkCapability = true) => {
      const refused = unavailable() ?? (checkCapability ? undeclared(method) : undefined)
      return refused === undefined ? prepareUngated(method, params, requestOptions) : Either.left(refused)
    }

    const prepareExtension: Session["prepareExtension"] = (method, params, requestOptions = {}) => {
      const refused = unavailable()
      return refused === undefined ? preparedFor(method, params, requestOptions) : Either.left(refused)
    }

    const decode: Session["decode"] = (method, raw) =>
      Either.mapLeft(
        Methods.decodeResult(method, raw),
        (error) =>
          new DecodeError({ server: server(), method, issue: ParseResult.TreeFormatter.formatErrorSync(error) })
      )

    // 2026-07-28 results may say who answered (`_meta` serverInfo): the session keeps the latest.
    const learnServerInfo = (raw: Peer.WireObject) =>
      Effect.sync(() => {
        const meta = raw._meta
        if (!McpSchema.isJsonObject(meta) || meta[McpSchema.MetaKey.serverInfo] === undefined) return
        const info = decodeImplementation(meta[McpSchema.MetaKey.serverInfo])
        if (Option.isSome(info)) established = { ...established, serverInfo: info.value }
      })
    /** The innermost executor: the dialect the session speaks now. */
    const exchange: Executor.Executor<Dialect.WireError> = (request) => {
      const exchanged = dialect.exchange(request.method, request.wire, request.options)
      return dialect.era === "stateless" ? Effect.tap(exchanged, learnServerInfo) : exchanged
    }

    const establish = (next: Negotiation.Established, speaking: Dialect.Dialect) =>
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
      answer: options.answer,
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
    const start: Session["start"] = (capabilities) =>
      Effect.suspend(() => {
        clientCapabilities = capabilities
        return Effect.zipRight(
          lifecycle.move(SessionState.Initializing()),
          negotiation
            .select(capabilities)
            .pipe(Effect.tapError((cause) => lifecycle.move(SessionState.Failed({ cause }))))
        )
      })

    // Resource subscriptions outlive an expired session: the new one subscribes again (past
    // recovery: this is recovery's own work).
    const subscriptions = yield* Ref.make(HashSet.empty<string>())
    const restoreSubscriptions = Effect.flatMap(Ref.get(subscriptions), (uris) =>
      Effect.forEach(
        uris,
        (uri) =>
          Either.match(prepare("resources/subscribe", { uri }), {
            onLeft: Effect.fail,
            onRight: (prepared) => Effect.mapError(exchange(prepared), Dialect.asRequestError)
          }).pipe(
            Effect.catchAll((error) =>
              Effect.logWarning(`${server()}: could not subscribe to ${uri} again: ${error.message}`)
            )
          ),
        { discard: true }
      )
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
            restore: restoreSubscriptions,
            refresh: (request) =>
              request.version === established.protocolVersion
                ? Either.right(request)
                : preparedFor(request.method, request.encoded, request.options),
            scope,
            runtime: yield* Effect.runtime<never>()
          })
        : undefined
    const limiter = Limiter.make(server, options.maxInFlight, options.maxQueued)
    const retryPolicy = Executor.policyOf(options.retry)
    const settledExchange: Executor.Executor<RequestError> = (request) =>
      Effect.mapError((recovering === undefined ? exchange : recovering(exchange))(request), Dialect.asRequestError)
    const execute = Executor.retrying(server, retryPolicy)(Executor.limited(limiter)(settledExchange))

    const direct: Session["direct"] = (request) =>
      dialect.era === "stateful" &&
      recovering === undefined &&
      limiter === undefined &&
      retryPolicy(request.method, request.options) === undefined

    const request: Session["request"] = (method, params, requestOptions) =>
      Effect.suspend(() =>
        Either.match(prepare(method, params, requestOptions), {
          onLeft: Effect.fail,
          onRight: (prepared) => Effect.flatMap(execute(prepared), (raw) => decode(method, raw))
        })
      )

    const notify: Session["notify"] = (method, params) =>
      Effect.suspend((): Effect.Effect<void, RequestError> => {
        const error = unavailable()
        if (error !== undefined) return Effect.fail(error)
        const encoded =
          params === undefined ? Either.right(undefined) : Methods.encodeNotificationParams(method, params)
        if (Either.isLeft(encoded)) {
          return Effect.fail(invalid(method, ParseResult.TreeFormatter.formatErrorSync(encoded.left)))
        }
        return Effect.flatMap(
          Revision.notificationParams(
            established.protocolVersion,
            method,
            McpSchema.isJsonObject(encoded.right) ? encoded.right : undefined
          ),
          (wire) => dialect.notify(method, wire)
        )
      })

    const keepAlive: Session["keepAlive"] = (interval, timeout) =>
      request("ping", undefined, { timeout }).pipe(
        Effect.repeat(Schedule.spaced(interval)),
        Effect.catchAll((cause) => lifecycle.move(SessionState.Failed({ cause }))),
        Effect.delay(interval),
        Effect.forkScoped,
        Effect.asVoid
      )

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
      peer,
      state: lifecycle.get,
      stateChanges: lifecycle.changes,
      established: () => established,
      era: () => dialect.era,
      freshness: (method) => dialect.freshness(method),
      accepts: (notification) => dialect.accepts(notification),
      start,
      prepare,
      prepareExtension,
      execute,
      direct,
      decode,
      request,
      retryPolicy,
      serveStale: options.serveStale === true,
      notify,
      subscribe: (uri) =>
        Effect.zipRight(request("resources/subscribe", { uri }), Ref.update(subscriptions, HashSet.add(uri))),
      unsubscribe: (uri) =>
        Effect.zipRight(request("resources/unsubscribe", { uri }), Ref.update(subscriptions, HashSet.remove(uri))),
      keepAlive
    } satisfies Session
  })
