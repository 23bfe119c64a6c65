/**
 * The session: the lifecycle state, the handshake, what it established (revision, server info,
 * capabilities), requests and notifications checked and encoded for that revision, and recovery
 * when an HTTP server forgets the session (initialize again, refresh what was established,
 * restore resource subscriptions, retry). Features (tools, resources, prompts, tasks) are built
 * over it; none of them sees the peer's wire objects except through it.
 */
import { type JsonRpc, McpSchema, Methods, ProtocolVersion, Revision } from "@effect-mcp/protocol"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as HashSet from "effect/HashSet"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Random from "effect/Random"
import * as Ref from "effect/Ref"
import * as Runtime from "effect/Runtime"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as SubscriptionRef from "effect/SubscriptionRef"
import {
  CapabilityNotSupported,
  DecodeError,
  type InitializeError,
  InvalidInput,
  type RequestError,
  SessionUnavailable,
  TransportError
} from "../../McpError.js"
import * as Peer from "../../Peer.js"
import * as Retry from "../../Retry.js"
import { canMove, SessionState } from "../../SessionState.js"
import { Transport } from "../../Transport.js"
import type { Answer } from "../features/serverRequests.js"
import * as Dialect from "./dialect.js"
import * as Limiter from "./limiter.js"
import * as Stateless from "./stateless.js"

/** What a handshake established; replaced as a whole when the session is re-established. */
export interface Established {
  readonly protocolVersion: ProtocolVersion.ProtocolVersion
  readonly serverInfo: McpSchema.Implementation
  readonly serverCapabilities: McpSchema.ServerCapabilities
  readonly instructions: Option.Option<string>
}

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

/** A request's options at the session: the peer's, and how it may be retried. */
export interface RequestOptions extends Peer.RequestOptions {
  /** This request's retry policy, over the client's (`false`: none). */
  readonly retry?: Retry.RetryPolicy | false
  /** A `tools/call` that may be repeated (the caller says so, or the tool's hints). */
  readonly idempotent?: boolean
}

/** A session over the transport in context. */
export interface Session {
  /** The server's name in errors, logs and spans, as it is now. */
  readonly server: string
  readonly peer: Peer.Peer
  readonly state: SubscriptionRef.SubscriptionRef<SessionState>
  /** What the last handshake or discovery established (before the first one completes: what was requested). */
  readonly established: () => Established
  /** The era the session speaks (stateful until a probe says otherwise). */
  readonly era: () => "stateful" | "stateless"
  /** How long a list method's last listing stays fresh (2026-07-28 `ttlMs`); none: until it changes. */
  readonly freshness: (method: string) => Option.Option<number>
  /** Whether a notification belongs to the current subscriptions (see the dialect's `accepts`). */
  readonly accepts: (notification: JsonRpc.JSONRPCNotification) => boolean
  /** Performs the handshake; the session is `Ready` after it, `Failed` if it fails. */
  readonly start: (capabilities: McpSchema.ClientCapabilities) => Effect.Effect<void, InitializeError>
  /**
   * Any request of the method table: checked, encoded for the revision, decoded; retried on an
   * expired session, and by the retry policy when its failure is transient and repeating is safe.
   */
  readonly request: <M extends Methods.RequestMethodName>(
    method: M,
    params: Methods.RequestParamsOf<M> | undefined,
    options?: RequestOptions
  ) => Effect.Effect<Methods.ResultOf<M>, RequestError>
  /**
   * A request started from plain code, with no fiber, when nothing on its way needs an effect: a
   * ready stateful session, the capability declared, a free slot under `maxInFlight`, no retry
   * policy, and a peer that can `begin` it. `onDone` gets what `request` would give (an expired
   * session is initialized again and the request retried, then in a fiber of the session's scope);
   * the function returned gives the request up (and interrupts such a recovery), after which
   * `onDone` is not called. `undefined`: none of that holds; use `request`.
   */
  readonly begin: <M extends Methods.RequestMethodName>(
    method: M,
    params: Methods.RequestParamsOf<M> | undefined,
    options: RequestOptions | undefined,
    onDone: (outcome: Exit.Exit<Methods.ResultOf<M>, RequestError>) => void
  ) => (() => void) | undefined
  /** A request whose result the caller decodes (a task-augmented `tools/call` answers with another shape). */
  readonly requestRaw: <M extends Methods.RequestMethodName>(
    method: M,
    params: Methods.RequestParamsOf<M> | undefined,
    options?: RequestOptions
  ) => Effect.Effect<Peer.WireObject, RequestError>
  /** Whether cached lists answer from their last good value when a refresh fails. */
  readonly serveStale: boolean
  /** The retry policy a request of `method` with these options has, if any. */
  readonly retryPolicy: (method: string, options: RequestOptions | undefined) => Retry.RetryPolicy | undefined
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

/** Builds a session over the transport in context; it ends with the scope. */
export const make = (options: SessionOptions): Effect.Effect<Session, never, Transport | Scope.Scope> =>
  Effect.gen(function* () {
    // Named by the caller, or by the server itself once the handshake says its name.
    let name = options.server ?? "mcp"
    const server = () => name
    const transport = yield* Transport
    const scope = yield* Effect.scope
    const state = yield* SubscriptionRef.make<SessionState>(SessionState.Disconnected())
    // Only legal transitions happen; a refused one (a late failure after closing) changes and
    // publishes nothing (a SubscriptionRef publishes on every write, so check before writing).
    const moveLock = yield* Effect.makeSemaphore(1)
    // `current` mirrors the state for the request path, which reads it on every request.
    let current: SessionState = SessionState.Disconnected()
    const move = (next: SessionState) =>
      moveLock.withPermits(1)(
        Effect.flatMap(SubscriptionRef.get(state), (now) =>
          canMove(now, next)
            ? Effect.zipRight(
                Effect.sync(() => {
                  current = next
                }),
                SubscriptionRef.set(state, next)
              )
            : Effect.void
        )
      )
    yield* move(SessionState.Connecting())

    const peer = yield* Peer.make(transport, { server, requestTimeout: options.requestTimeout })
    yield* Effect.addFinalizer(() => Effect.zipRight(move(SessionState.Closing()), move(SessionState.Closed())))

    // Replaced as a whole by each handshake; read on the request path without an effect.
    let established: Established = {
      protocolVersion: options.protocolVersion === "auto" ? ProtocolVersion.LATEST : options.protocolVersion,
      serverInfo: { name, version: "" },
      serverCapabilities: {},
      instructions: Option.none()
    }

    const encodeParams = <M extends Methods.RequestMethodName>(
      method: M,
      params: Methods.RequestParamsOf<M> | undefined
    ): Either.Either<Peer.WireObject | undefined, InvalidInput | Revision.UnrepresentableMessage> => {
      const version = established.protocolVersion
      if (params === undefined) return Revision.requestParams(version, method, undefined)
      const encoded = Methods.encodeRequestParams(method, params)
      if (Either.isLeft(encoded)) {
        return Either.left(
          new InvalidInput({
            server: server(),
            method,
            reason: ParseResult.TreeFormatter.formatErrorSync(encoded.left)
          })
        )
      }
      if (!McpSchema.isJsonObject(encoded.right)) {
        return Either.left(new InvalidInput({ server: server(), method, reason: "params must be an object" }))
      }
      return Revision.requestParams(version, method, encoded.right)
    }

    // 2026-07-28 results may say who answered (`_meta` serverInfo): the session keeps the latest.
    const decodeImplementation = Schema.decodeUnknownOption(McpSchema.Implementation)
    const learnServerInfo = (raw: Peer.WireObject) =>
      Effect.sync(() => {
        const meta = raw._meta
        if (!McpSchema.isJsonObject(meta) || meta[McpSchema.MetaKey.serverInfo] === undefined) return
        const info = decodeImplementation(meta[McpSchema.MetaKey.serverInfo])
        if (Option.isSome(info)) established = { ...established, serverInfo: info.value }
      })

    // The hot path: no generator, one effect for the wire and one step to decode.
    /** Encodes and exchanges, at once: for callers already inside a suspended effect. */
    const exchangeNow = <M extends Methods.RequestMethodName>(
      method: M,
      params: Methods.RequestParamsOf<M> | undefined,
      requestOptions?: RequestOptions
    ): Effect.Effect<Peer.WireObject, Dialect.WireError> => {
      const wire = encodeParams(method, params)
      if (Either.isLeft(wire)) return Effect.fail(wire.left)
      const exchanged = dialect.exchange(method, wire.right, requestOptions ?? {})
      return dialect.era === "stateless" ? Effect.tap(exchanged, learnServerInfo) : exchanged
    }
    const sendRaw = <M extends Methods.RequestMethodName>(
      method: M,
      params: Methods.RequestParamsOf<M> | undefined,
      requestOptions?: RequestOptions
    ): Effect.Effect<Peer.WireObject, Dialect.WireError> =>
      Effect.suspend(() => exchangeNow(method, params, requestOptions))
    /** The result of `method` decoded from the wire, or a `DecodeError` saying where it does not fit. */
    const resultOf = <M extends Methods.RequestMethodName>(
      method: M,
      raw: Peer.WireObject
    ): Either.Either<Methods.ResultOf<M>, DecodeError> =>
      Either.mapLeft(
        Methods.decodeResult(method, raw),
        (error) =>
          new DecodeError({ server: server(), method, issue: ParseResult.TreeFormatter.formatErrorSync(error) })
      )
    const decodedAs =
      <M extends Methods.RequestMethodName>(method: M) =>
      (raw: Peer.WireObject): Effect.Effect<Methods.ResultOf<M>, DecodeError> =>
        resultOf(method, raw)
    const send = <M extends Methods.RequestMethodName>(
      method: M,
      params: Methods.RequestParamsOf<M> | undefined,
      requestOptions?: RequestOptions
    ): Effect.Effect<Methods.ResultOf<M>, Dialect.WireError> =>
      Effect.flatMap(sendRaw(method, params, requestOptions), decodedAs(method))

    let dialect: Dialect.Dialect = Dialect.stateful(peer)
    /** A transport's signal that nothing handled, as the request's transport failure; other errors as they are. */
    const asRequestError = (error: Dialect.WireError): RequestError =>
      error._tag === "SessionExpired" || error._tag === "LegacyServer" || error._tag === "StreamBroken"
        ? new TransportError({
            server: server(),
            reason: error.message.slice(error.message.indexOf("transport failed: ") + "transport failed: ".length),
            ...(error._tag === "StreamBroken" ? {} : { status: error._tag === "LegacyServer" ? error.status : 404 })
          })
        : error
    /** A transport's signal that nothing handled is the request's transport failure. */
    const settle = <A>(effect: Effect.Effect<A, Dialect.WireError>): Effect.Effect<A, RequestError> =>
      Effect.mapError(effect, asRequestError)
    const establish = (next: Established) =>
      Effect.gen(function* () {
        established = next
        if (options.server === undefined && next.serverInfo.name !== "") name = next.serverInfo.name
        yield* transport.setProtocolVersion(next.protocolVersion)
      })

    // The handshake (stateful revisions). Nothing else goes out before it completes.
    let handshakeVersion: ProtocolVersion.StatefulVersion = ProtocolVersion.LATEST_STATEFUL
    const handshake = (capabilities: McpSchema.ClientCapabilities) =>
      settle(
        send(
          "initialize",
          { protocolVersion: handshakeVersion, capabilities, clientInfo: options.clientInfo },
          { cancellable: false }
        )
      ).pipe(
        Effect.flatMap((result) =>
          Either.map(ProtocolVersion.negotiate(handshakeVersion, result.protocolVersion), (negotiated) => ({
            protocolVersion: negotiated,
            serverInfo: result.serverInfo,
            serverCapabilities: result.capabilities,
            instructions: Option.fromNullable(result.instructions)
          }))
        ),
        Effect.tap((next) =>
          Effect.gen(function* () {
            yield* establish(next)
            yield* peer.notify("notifications/initialized")
            yield* move(SessionState.Ready({ version: next.protocolVersion, serverInfo: next.serverInfo }))
          })
        )
      )
    // The stateless revision: no handshake; discovery said what the server is.
    const becomeStateless = (
      version: ProtocolVersion.StatelessVersion,
      discover: McpSchema.DiscoverResult,
      capabilities: McpSchema.ClientCapabilities
    ) =>
      Effect.gen(function* () {
        dialect = yield* Stateless.make({
          server,
          peer,
          version,
          capabilities,
          clientInfo: options.clientInfo,
          answer: options.answer,
          maxRounds: options.maxInputRounds,
          requestTimeout: Duration.decode(options.requestTimeout),
          serverCapabilities: discover.capabilities
        }).pipe(Scope.extend(scope))
        const next = Dialect.fromDiscover(version, discover, name)
        yield* establish(next)
        yield* move(SessionState.Ready({ version, serverInfo: next.serverInfo }))
      })

    /** Chooses the era (pinned, or by a probe) and establishes the session in it. */
    const select = (capabilities: McpSchema.ClientCapabilities): Effect.Effect<void, InitializeError> => {
      const requested = options.protocolVersion
      if (requested !== "auto" && ProtocolVersion.isStateful(requested)) {
        handshakeVersion = requested
        return Effect.asVoid(handshake(capabilities))
      }
      const target = { server, transport, peer, timeout: options.probeTimeout }
      const offer = (version: ProtocolVersion.StatelessVersion) =>
        settle(Dialect.probe(target, Stateless.envelope(version, capabilities, options.clientInfo, undefined)))
      const legacy = (why: string) =>
        requested === "auto"
          ? Effect.zipRight(
              Effect.logDebug(`${server()}: a stateful server (${why}); initializing`),
              Effect.asVoid(handshake(capabilities))
            )
          : Effect.fail(Dialect.noModern(requested, why))
      return Effect.flatMap(offer(requested === "auto" ? ProtocolVersion.STATELESS[0] : requested), (first) => {
        if (first._tag === "Modern") return becomeStateless(first.version, first.discover, capabilities)
        if (first._tag === "Legacy") return legacy(first.why)
        // -32022 naming a revision both speak: ask once more with it, never loop.
        return Effect.flatMap(offer(first.version), (second) =>
          second._tag === "Modern"
            ? becomeStateless(second.version, second.discover, capabilities)
            : legacy(second._tag === "Legacy" ? second.why : "it rejected the revision it named")
        )
      })
    }

    let clientCapabilities: McpSchema.ClientCapabilities = {}
    const start = (capabilities: McpSchema.ClientCapabilities) =>
      Effect.suspend(() => {
        clientCapabilities = capabilities
        return Effect.zipRight(
          move(SessionState.Initializing()),
          select(capabilities).pipe(Effect.tapError((cause) => move(SessionState.Failed({ cause }))))
        )
      })

    // Resource subscriptions outlive an expired session: the new one subscribes again.
    const subscriptions = yield* Ref.make(HashSet.empty<string>())
    const restoreSubscriptions = Effect.flatMap(Ref.get(subscriptions), (uris) =>
      Effect.forEach(
        uris,
        (uri) =>
          send("resources/subscribe", { uri }).pipe(
            Effect.catchAll((error) =>
              Effect.logWarning(`${server()}: could not subscribe to ${uri} again: ${error.message}`)
            )
          ),
        { discard: true }
      )
    )

    // An HTTP server that forgot the session: initialize again (once for all requests that
    // noticed), then retry the request. The re-initialization is the session's own work, in a fiber
    // of its scope that the requests join: one given up meanwhile does not stop it (the others wait
    // on it, and it restores the subscriptions; its `initialize` is never abandoned).
    let sessionGeneration = 0
    let reinitializing: Fiber.RuntimeFiber<void, RequestError> | undefined
    const reinitialization = Effect.suspend(() =>
      Effect.logWarning(`${server()}: the server lost the session; initializing a new one`).pipe(
        // A session that cannot be established again has failed (a host restarts it).
        Effect.zipRight(
          handshake(clientCapabilities).pipe(Effect.tapError((cause) => move(SessionState.Failed({ cause }))))
        ),
        Effect.tap(() => Effect.sync(() => sessionGeneration++)),
        Effect.zipRight(restoreSubscriptions),
        Effect.catchTag(
          "UnsupportedProtocolVersion",
          (error) => new SessionUnavailable({ server: server(), reason: error.message })
        )
      )
    )
    const runtime = yield* Effect.runtime<never>()
    const reinitialize = (seen: number): Effect.Effect<void, RequestError> =>
      Effect.suspend(() => {
        if (seen !== sessionGeneration) return Effect.void
        if (reinitializing === undefined) {
          const fiber = Runtime.runSync(runtime)(Effect.forkIn(reinitialization, scope))
          reinitializing = fiber
          fiber.addObserver(() => {
            if (reinitializing === fiber) reinitializing = undefined
          })
        }
        return Fiber.join(reinitializing)
      })
    const withRecovery = <A>(
      attempt: () => Effect.Effect<Peer.WireObject, Dialect.WireError>,
      onSuccess: (raw: Peer.WireObject) => Effect.Effect<A, RequestError>,
      retriesLeft = options.sessionRetries
    ): Effect.Effect<A, RequestError> =>
      Effect.suspend(() => {
        const seen = sessionGeneration
        // One frame on a waiting request's stack for both outcomes: an expired session
        // initializes again and retries; any other transport signal is the request's failure.
        return Effect.matchEffect(attempt(), {
          onFailure: (error) => recovered(error, seen, attempt, onSuccess, retriesLeft),
          onSuccess
        })
      })
    /** After a failed attempt: an expired session is initialized again and the request retried; other failures are the request's. */
    const recovered = <A>(
      error: Dialect.WireError,
      seen: number,
      attempt: () => Effect.Effect<Peer.WireObject, Dialect.WireError>,
      onSuccess: (raw: Peer.WireObject) => Effect.Effect<A, RequestError>,
      retriesLeft: number
    ): Effect.Effect<A, RequestError> =>
      error._tag === "SessionExpired" && retriesLeft > 0
        ? Effect.zipRight(reinitialize(seen), withRecovery(attempt, onSuccess, retriesLeft - 1))
        : Effect.fail(asRequestError(error))

    const limiter = Limiter.make(server, options.maxInFlight, options.maxQueued)

    const retryPolicy: Session["retryPolicy"] = (method, requestOptions) => {
      const given = requestOptions?.retry
      if (given === false) return undefined
      const policy =
        given ??
        (method === "tools/call" ? options.retry?.tools : Retry.isRead(method) ? options.retry?.reads : undefined)
      return policy === undefined || policy === false || policy.times <= 0 ? undefined : policy
    }
    /**
     * Runs `attempt` again while its failure is transient, repeating is safe and the policy
     * allows: a tool call that may have reached the server is repeated only when idempotent.
     * Each retry is logged (attempt, reason, delay) and is an event of the current span.
     */
    const retrying = <A>(
      method: string,
      requestOptions: RequestOptions | undefined,
      attempt: () => Effect.Effect<A, RequestError>
    ): Effect.Effect<A, RequestError> => {
      const policy = retryPolicy(method, requestOptions)
      if (policy === undefined) return attempt()
      const safe = method !== "tools/call" || requestOptions?.idempotent === true
      return Effect.flatMap(Clock.currentTimeMillis, (started) => {
        const run = (n: number): Effect.Effect<A, RequestError> =>
          Effect.catchAll(attempt(), (error) => {
            const failure = Retry.transient(error)
            if (failure === undefined) return Effect.fail(error)
            if (failure.taken && !safe) {
              return Effect.zipRight(
                Effect.logWarning(
                  `${server()}: ${method} failed (${failure.reason}) and is not retried: it may have run on the server, and the tool is not marked read-only or idempotent`
                ),
                Effect.fail(error)
              )
            }
            return Effect.flatMap(Effect.zip(Clock.currentTimeMillis, Random.next), ([now, random]) => {
              const delay = Retry.delayOf(policy, n, now - started, failure, random)
              if (delay === undefined) return Effect.fail(error)
              const attributes = { attempt: n, reason: failure.reason, delayMillis: Duration.toMillis(delay) }
              return Effect.logInfo(
                `${server()}: ${method} failed (${failure.reason}); retry ${n} of ${policy.times} in ${Duration.format(delay)}`
              ).pipe(
                Effect.zipRight(
                  Effect.flatMap(Effect.option(Effect.currentSpan), (span) =>
                    Effect.sync(() => {
                      if (span._tag === "Some") span.value.event("mcp.retry", BigInt(now) * 1_000_000n, attributes)
                    })
                  )
                ),
                Effect.zipRight(Effect.sleep(delay)),
                Effect.zipRight(run(n + 1))
              )
            })
          })
        return run(1)
      })
    }

    /** Fails unless the session is ready (read from the state's mirror, without an effect). */
    const unavailable = (): SessionUnavailable | undefined =>
      current._tag === "Ready"
        ? undefined
        : new SessionUnavailable({
            server: server(),
            reason: current._tag === "Failed" ? current.cause.message : `the session is ${current._tag}`
          })

    /** The capability a request of `method` needs, when the server did not declare it. */
    const undeclared = (method: Methods.RequestMethodName): CapabilityNotSupported | undefined => {
      const capability = serverCapabilityOf(method)
      return capability?.side === "server" &&
        !Methods.declares(established.serverCapabilities, capability, established.protocolVersion)
        ? new CapabilityNotSupported({ server: server(), method, capability: capability.path.join(".") })
        : undefined
    }

    const request: Session["request"] = (method, params, requestOptions) =>
      Effect.suspend(() => {
        const error = unavailable() ?? undeclared(method)
        if (error !== undefined) return Effect.fail(error)
        return retrying(method, requestOptions, () =>
          limiter.run(
            method,
            withRecovery(() => exchangeNow(method, params, requestOptions), decodedAs(method))
          )
        )
      })

    const begin: Session["begin"] = (method, params, requestOptions, onDone) => {
      if (
        dialect.era !== "stateful" ||
        !peer.canBegin() ||
        unavailable() !== undefined ||
        undeclared(method) !== undefined ||
        retryPolicy(method, requestOptions) !== undefined
      ) {
        return undefined
      }
      const wire = encodeParams(method, params)
      if (Either.isLeft(wire)) return undefined
      const release = limiter.tryAcquire()
      if (release === undefined) return undefined
      const seen = sessionGeneration
      // Given up: the caller hears nothing more. A recovery under way is interrupted (its retried
      // request cancelled; the session's re-initialization it waits on goes on), and the slot is
      // freed when it has stopped.
      let givenUp = false
      let recovery: Fiber.RuntimeFiber<Methods.ResultOf<typeof method>, RequestError> | undefined
      const finish = (outcome: Exit.Exit<Methods.ResultOf<typeof method>, RequestError>) => {
        release()
        if (!givenUp) onDone(outcome)
      }
      const answered = (outcome: Exit.Exit<Peer.WireObject, Peer.RequestFailure>) => {
        if (Exit.isSuccess(outcome)) {
          return finish(Either.match(resultOf(method, outcome.value), { onLeft: Exit.fail, onRight: Exit.succeed }))
        }
        const failure = Cause.failureOption(outcome.cause)
        if (Option.isNone(failure)) return finish(Exit.die(Cause.squash(outcome.cause)))
        const error = failure.value
        if (error._tag !== "SessionExpired" || options.sessionRetries <= 0) {
          return finish(Exit.fail(asRequestError(error)))
        }
        // In a fiber of the session's scope, as `request`'s recovery: closing the client stops it.
        try {
          recovery = Runtime.runSync(runtime)(
            Effect.forkIn(
              Effect.interruptible(
                recovered(
                  error,
                  seen,
                  () => exchangeNow(method, params, requestOptions),
                  decodedAs(method),
                  options.sessionRetries
                )
              ),
              scope
            )
          )
        } catch (defect) {
          return finish(Exit.die(defect))
        }
        recovery.addObserver(finish)
      }
      let abandon: (() => void) | undefined
      try {
        abandon = peer.begin(method, wire.right, requestOptions ?? {}, answered)
      } catch (defect) {
        release()
        throw defect
      }
      if (abandon === undefined) {
        release()
        return undefined
      }
      const giveUp = abandon
      return () => {
        if (givenUp) return
        givenUp = true
        giveUp()
        if (recovery === undefined) release()
        else recovery.unsafeInterruptAsFork(recovery.id())
      }
    }

    const requestRaw: Session["requestRaw"] = (method, params, requestOptions) =>
      Effect.suspend(() => {
        const error = unavailable()
        return error === undefined
          ? retrying(method, requestOptions, () =>
              limiter.run(
                method,
                withRecovery(() => exchangeNow(method, params, requestOptions), Effect.succeed)
              )
            )
          : Effect.fail(error)
      })

    const notify: Session["notify"] = (method, params) =>
      Effect.suspend((): Effect.Effect<void, RequestError> => {
        const error = unavailable()
        if (error !== undefined) return Effect.fail(error)
        const encoded =
          params === undefined ? Either.right(undefined) : Methods.encodeNotificationParams(method, params)
        if (Either.isLeft(encoded)) {
          return Effect.fail(
            new InvalidInput({
              server: server(),
              method,
              reason: ParseResult.TreeFormatter.formatErrorSync(encoded.left)
            })
          )
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
        Effect.catchAll((cause) => move(SessionState.Failed({ cause }))),
        Effect.delay(interval),
        Effect.forkScoped,
        Effect.asVoid
      )

    // The connection ending on its own (the server went away or broke it) fails the session.
    yield* peer.whenClosed((error) =>
      move(
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
      state,
      established: () => established,
      era: () => dialect.era,
      freshness: (method) => dialect.freshness(method),
      accepts: (notification) => dialect.accepts(notification),
      start,
      request,
      begin,
      requestRaw,
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
