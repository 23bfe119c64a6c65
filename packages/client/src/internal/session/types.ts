/**
 * The session's types: its options, what it established, a request as the steps prepare it, the
 * executor, and the service itself. The public `Session` module re-exports them.
 */

import type {
  RequestOptions as PeerRequestOptions,
  RequestHandler,
  Violation,
  WireObject
} from "@effect-mcp/jsonrpc/Peer"
import type * as PlainForm from "@effect-mcp/jsonrpc/PlainForm"
import type { JsonRpc, McpSchema, Methods, ProtocolVersion } from "@effect-mcp/protocol"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import type * as Exit from "effect/Exit"
import type * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import type { RequestContext } from "../../Capabilities.js"
import type { DecodeError, JsonRpcFailure, RequestError, TransportError } from "../../McpError.js"
import type * as Retry from "../../Retry.js"
import type { SessionState } from "../../SessionState.js"
import type { RoundAnswers } from "./dialect.js"
import type { SavedSession } from "./saved.js"

export type { RequestFailure, RequestHandler, Violation, WireObject } from "@effect-mcp/jsonrpc/Peer"

/** Counters of a connection. */
export interface Stats {
  readonly pending: number
  readonly inbound: number
  readonly violations: Readonly<Record<Violation, number>>
}

/**
 * Serves one request of the server (`sampling/createMessage`, `elicitation/create`, `roots/list`)
 * with the handlers the host provided, its result encoded for `version`: -32601 for a method none
 * of them serves.
 */
export type ServerRequestHandler = (
  method: string,
  params: WireObject | undefined,
  context: RequestContext,
  version: ProtocolVersion.ProtocolVersion
) => Effect.Effect<WireObject, JsonRpcFailure>

import type { Established } from "./established.js"

export type { Established }

/** A request's options at the session: the peer's, and how it may be retried. */
export interface RequestOptions extends PeerRequestOptions {
  /** This request's retry policy, over the client's (`false`: none). */
  readonly retry?: Retry.RetryPolicy | false
  /** A `tools/call` that may be repeated (the caller says so, or the tool's hints). */
  readonly idempotent?: boolean
  /** An earlier `input_required` this request answers (2026-07-28). */
  readonly answering?: RoundAnswers
  /** The least severe log message the server may send for this request, over the session's level (2026-07-28). */
  readonly logLevel?: McpSchema.LoggingLevel
}

/** A request ready for the wire: what the steps above the executor made of a call. */
export interface Prepared {
  /** A method of the method table, or an extension's (`skills/list`). */
  readonly method: string
  /** The params in the newest revision's wire form (taken down again if a re-established session speaks another). */
  readonly encoded: WireObject | undefined
  /** The params as they go on the wire at `version`. */
  readonly wire: WireObject | undefined
  /** The revision `wire` is for. */
  readonly version: ProtocolVersion.ProtocolVersion
  readonly options: RequestOptions
}

/** Sends a prepared request and gives its raw result. */
export type Executor<E> = (request: Prepared) => Effect.Effect<WireObject, E>

/**
 * The plain form of a session's `execute`, for a Promise adapter: the peer's exchange of a prepared
 * request started from plain code with no fiber. `onDone` gets the raw outcome once; the function
 * returned gives the request up (cancelled on the server). `undefined`: it cannot start so now
 * (a session that may recover or re-send, a retry policy for this request, no free slot under
 * `maxInFlight`, or see `Peer.StartRequest`); run the effect instead.
 */
export type StartExecute = (
  request: Prepared,
  onDone: (outcome: Exit.Exit<WireObject, RequestError>) => void
) => (() => void) | undefined

/** A session's `execute`, with its plain form while it has one. */
export interface Execute extends PlainForm.Carrier<StartExecute>, Executor<RequestError> {}

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
  /**
   * How long the era probe waits. Default: 10 seconds for a transport's own probe (stdio, where
   * silence means a legacy server); the request timeout for one through the peer (HTTP).
   */
  readonly probeTimeout: Duration.DurationInput | undefined
  /** The most rounds of a multi round-trip request (2026-07-28). */
  readonly maxInputRounds: number
  /** What the client declares: the capabilities of the handlers it serves, and its extensions. */
  readonly capabilities: McpSchema.ClientCapabilities
  /** Serves what the server asks of the client (its requests, a 2026-07-28 result's input requests). */
  readonly serve: ServerRequestHandler
  /** Retries of reads and tool calls (none unless given). */
  readonly retry?: Retry.RetrySettings | undefined
  /** At most this many requests in flight (default: no bound); beyond, they wait in a queue of `maxQueued`. */
  readonly maxInFlight?: number | undefined
  readonly maxQueued?: number | undefined
  /** A session saved from another client, taken up instead of a handshake (its transport must `reattach`). */
  readonly reattach?: SavedSession | undefined
}

/** What a session is now: its name, lifecycle state, era, and what was established. */
export interface SessionView {
  /** The server's name in errors, logs and spans, as it is now. */
  readonly server: string
  /** The lifecycle state now. */
  readonly state: Effect.Effect<SessionState>
  /** The lifecycle state now, then each change. */
  readonly stateChanges: Stream.Stream<SessionState>
  /** What the last handshake or discovery established (before the first one completes: what was requested). */
  readonly established: () => Established
  /**
   * The session as a value to keep (the server's session id and what was established), to
   * reattach to from another client; none before it is ready, at 2026-07-28, or over a transport
   * that keeps no session id.
   */
  readonly saved: Effect.Effect<Option.Option<SavedSession>>
  /** The era the session speaks (stateful until a probe says otherwise). */
  readonly era: () => "stateful" | "stateless"
  /** How long a list method's last listing stays fresh (2026-07-28 `ttlMs`); none: until it changes. */
  readonly freshness: (method: string) => Option.Option<number>
  /** Whether a notification belongs to the current subscriptions (see the dialect's `accepts`). */
  readonly accepts: (notification: JsonRpc.JSONRPCNotification) => boolean
}

/** The one request path: what every feature's request takes, and the session's notifications out. */
export interface SessionRequests {
  /**
   * The first step of every request: fails unless the session is ready and (with `checkCapability`,
   * the default) the server declared what the method needs; encodes the params for the revision.
   */
  readonly prepare: <M extends Methods.RequestMethodName>(
    method: M,
    params: Methods.RequestParamsOf<M> | undefined,
    options?: RequestOptions,
    checkCapability?: boolean
  ) => Either.Either<Prepared, RequestError>
  /**
   * The first step of an extension's request (`skills/list`), which the method table does not
   * hold: fails unless the session is ready; the params go as they are given.
   */
  readonly prepareExtension: (
    method: string,
    params: WireObject | undefined,
    options?: RequestOptions
  ) => Either.Either<Prepared, RequestError>
  /**
   * Sends a prepared request: the dialect's exchange, with recovery, the in-flight bound and
   * retries as configured. Its plain form ({@link StartExecute}) is there while it does no more
   * than the peer's exchange within the bound; a decorated `execute` has none.
   */
  readonly execute: Execute
  /** The last step: the result of `method` decoded from the wire, or a `DecodeError` saying where it does not fit. */
  readonly decode: <M extends Methods.RequestMethodName>(
    method: M,
    raw: WireObject
  ) => Either.Either<Methods.ResultOf<M>, DecodeError>
  /** Sends a notification of the method table, encoded for the revision. */
  readonly notify: <M extends Methods.NotificationMethodName>(
    method: M,
    params: Methods.NotificationParamsOf<M> | undefined
  ) => Effect.Effect<void, RequestError>
  /** `resources/subscribe`, remembered so that a re-established session subscribes again. */
  readonly subscribe: (uri: string) => Effect.Effect<void, RequestError>
  /** `resources/unsubscribe`, and no longer subscribed again. */
  readonly unsubscribe: (uri: string) => Effect.Effect<void, RequestError>
}

/** The connection: what the server sends unasked, the requests it makes, raw notifications out, counters. */
export interface SessionConnection {
  /** Every notification from the server, from the moment the stream runs. */
  readonly notifications: Stream.Stream<JsonRpc.JSONRPCNotification>
  /**
   * Runs `f` on each notification as it is dispatched, in order and before any stream sees it, for
   * as long as the scope lives (quick bookkeeping, such as dropping a cache).
   */
  readonly observe: (
    f: (notification: JsonRpc.JSONRPCNotification) => Effect.Effect<void>
  ) => Effect.Effect<void, never, Scope.Scope>
  /** Serves the server's requests of one method (replacing any earlier handler). */
  readonly handle: (method: string, handler: RequestHandler) => Effect.Effect<void>
  /** Sends a notification as it is given (no method table: a client task's status, say). */
  readonly notifyRaw: (method: string, params?: WireObject) => Effect.Effect<void, TransportError>
  /** Counters of the connection: outstanding requests, server requests being served, protocol violations. */
  readonly stats: Effect.Effect<Stats>
}

/**
 * A session with one server, by what its callers do: read what it is (`SessionView`), send
 * requests through the one path (`SessionRequests`), and use the connection (`SessionConnection`).
 * Starting it and keeping it alive are its builder's, not its callers'.
 */
export interface SessionService extends SessionView, SessionRequests, SessionConnection {}
