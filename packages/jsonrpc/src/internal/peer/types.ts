/**
 * The peer's types: what a request may ask for and fail with, inbound requests and their
 * handlers, and the running peer's interface.
 */
import type { JsonRpc } from "@effect-mcp/protocol"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import type * as Option from "effect/Option"
import type * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import type { DecodeError, JsonRpcFailure, RequestTimeout, RpcError, TransportError } from "../../PeerError.js"
import type * as PlainForm from "../../PlainForm.js"
import type { TransportFailure } from "../../Transport.js"

/**
 * What an outbound request can fail with: request errors, and the transport's failures (its
 * signals for the session, and what a transport package adds to `RequestFailures`).
 */
export type RequestFailure = TransportFailure | RpcError | RequestTimeout | DecodeError

/** A JSON object as it is on the wire. */
export type WireObject = { readonly [key: string]: unknown }

/** What one outbound request may ask for. */
export interface RequestOptions {
  /** No answer within this time fails the request and cancels it on the server. */
  readonly timeout?: Duration.DurationInput
  /** Progress notifications for this request restart the timeout. */
  readonly resetTimeoutOnProgress?: boolean
  /** The longest the request may take, progress or not. */
  readonly maxTotalTimeout?: Duration.DurationInput
  /** Asks for progress (a `progressToken` is sent) and receives each notification's params. */
  readonly onProgress?: (progress: WireObject) => Effect.Effect<void>
  /**
   * Receives the params of the log messages (`notifications/message`) the transport says came on
   * this request's own stream: they are the request's, and reach no observer or subscriber.
   */
  readonly onLog?: (params: WireObject) => Effect.Effect<void>
  /** Extra members for the request's `_meta`. */
  readonly meta?: WireObject
  /** Transport headers for this request (2026-07-28 `Mcp-Param-*` over HTTP). */
  readonly headers?: Readonly<Record<string, string>>
  /** Whether interruption sends `notifications/cancelled` (never for `initialize`). Default: true. */
  readonly cancellable?: boolean
  /** Extra attributes of the request's span. */
  readonly spanAttributes?: { readonly [key: string]: unknown }
  /** Told the request's id once it has one (a 2026-07-28 subscription is named by its request's id). */
  readonly onId?: (id: JsonRpc.RequestId) => void
}

/** A protocol violation the peer logged, counted and survived. */
export type Violation = "unknown-id" | "malformed" | "malformed-response"

/** Context of an inbound request, for its handler. */
export interface InboundRequest {
  readonly id: JsonRpc.RequestId
  readonly method: string
  readonly params: WireObject | undefined
}

/** A handler of inbound requests of one method. */
export type RequestHandler = (request: InboundRequest) => Effect.Effect<WireObject, JsonRpcFailure>

/** The peer's options. */
export interface PeerOptions {
  /** The server's name, for errors and logs; a function when the name is learned later (read when an error is made). */
  readonly server: string | (() => string)
  /** The default timeout of every request. */
  readonly requestTimeout: Duration.DurationInput
  /**
   * Answer what is not a valid message with a JSON-RPC error, as a server does (-32700 for text
   * that is not JSON, -32600 for a value that is no message, with its id when it has one); responses
   * are never answered. Default: false (a client only logs and counts them: servers write stray lines).
   */
  readonly answerMalformed?: boolean
  /**
   * The id of each request it sends, taken once per request. Default: 0, 1, 2, … of its own. A
   * connection served again by a new peer passes the same source, so that no id is used twice in it.
   */
  readonly nextId?: () => number
}

/**
 * The plain form of the peer's `request`: the same exchange started from plain code with no fiber
 * (for a Promise adapter). `onDone` is called once with its outcome, from the transport's read,
 * the timer or the connection's end (at once when the write fails or throws), unless the request
 * was given up first. Returns the function that gives it up (it leaves the map and is cancelled on
 * the server, as an interrupted `request` is), or `undefined` when it cannot start from plain code
 * now (headers are asked for, or the connection has ended). It makes no span. `onDone` must not throw.
 */
export type StartRequest = (
  method: string,
  params: WireObject | undefined,
  options: RequestOptions,
  onDone: (outcome: Exit.Exit<WireObject, RequestFailure>) => void
) => (() => void) | undefined

/**
 * The peer's `request`. It has a plain form ({@link StartRequest}) only when the transport's
 * `send` has one and no middleware is installed.
 */
export interface Request extends PlainForm.Carrier<StartRequest> {
  (method: string, params: WireObject | undefined, options?: RequestOptions): Effect.Effect<WireObject, RequestFailure>
}

/** A running peer. */
export interface Peer {
  /** Sends a request and waits for its result (the raw wire object). Its plain form: {@link Request}. */
  readonly request: Request
  /** Sends a notification. */
  readonly notify: (method: string, params?: WireObject) => Effect.Effect<void, TransportError>
  /** Handles inbound requests of a method (replacing any earlier handler). */
  readonly handle: (method: string, handler: RequestHandler) => Effect.Effect<void>
  /** Subscribes to inbound notifications, from now on, for as long as the scope lives. */
  readonly subscribe: Effect.Effect<Queue.Dequeue<JsonRpc.JSONRPCNotification>, never, Scope.Scope>
  /** Every inbound notification from the moment the stream is run. */
  readonly notifications: Stream.Stream<JsonRpc.JSONRPCNotification>
  /**
   * Runs `f` on each inbound notification as the reader dispatches it, in order and before
   * subscribers see it, for as long as the scope lives. For quick bookkeeping (dropping a cache):
   * the reader waits for it, and no fiber is kept for it.
   */
  readonly observe: (
    f: (notification: JsonRpc.JSONRPCNotification) => Effect.Effect<void>
  ) => Effect.Effect<void, never, Scope.Scope>
  /** Completes when the connection has ended: with the transport's error, or none for a clean end. */
  readonly closed: Effect.Effect<Option.Option<TransportError>>
  /** Whether the connection has ended, read now (true before any request it failed resumes its caller). */
  readonly hasEnded: () => boolean
  /**
   * Runs `f` when the connection ends (as `closed` completes; at once if it has), unless the scope
   * closed first: a client closing its own connection does not see it. No fiber is kept for it.
   */
  readonly whenClosed: (
    f: (error: Option.Option<TransportError>) => Effect.Effect<void>
  ) => Effect.Effect<void, never, Scope.Scope>
  /** Counters, for tests and health checks. */
  readonly stats: Effect.Effect<{
    readonly pending: number
    readonly inbound: number
    readonly violations: Readonly<Record<Violation, number>>
  }>
}
