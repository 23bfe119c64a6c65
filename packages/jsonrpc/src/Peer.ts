/**
 * The JSON-RPC peer: one end of a connection, on either side. It correlates outbound requests with
 * their responses (timeouts, progress, cancellation), serves inbound requests with handlers, and
 * passes notifications on. It speaks JSON-RPC only: MCP's methods, Schemas and revisions belong to
 * the session above it (the client's, or a server's).
 *
 * @since 0.1.0
 */
export {
  /**
   * Fails an inbound request's handler with a JSON-RPC error.
   *
   * @since 0.1.0
   * @category constructors
   */
  failWith,
  /**
   * Starts a peer over a transport, for as long as the scope lives.
   *
   * @since 0.1.0
   * @category constructors
   */
  make,
  /**
   * Members carried from the request that started this work into the `_meta` of every request
   * made for it (a `Context.Reference`; default none). A request's own members win.
   *
   * @since 0.1.0
   * @category tracing
   */
  PropagatedMeta,
  /**
   * Who the work making a request is for (an opaque token; default none): a request the other side
   * makes within that request (on its stream, or while it is the only one outstanding for anyone)
   * is handled with that token as its own.
   *
   * @since 0.1.0
   * @category correlation
   */
  RequestOrigin,
  /**
   * Whether a request made from this fiber would read nothing of it that a plain start lacks
   * (nobody traces, no `PropagatedMeta`, no `RequestOrigin`, Effect's own clock): then the
   * effect of a function with a plain form may run as that start, awaited (`PlainForm`), and
   * does the same.
   *
   * @since 0.1.0
   * @category correlation
   */
  startsPlainly,
  /**
   * The W3C `tracestate` to send beside `traceparent`.
   *
   * @since 0.1.0
   * @category tracing
   */
  TraceState
} from "./internal/peer/peer.js"

export type {
  /**
   * Context of an inbound request, for its handler.
   *
   * @since 0.1.0
   * @category models
   */
  InboundRequest,
  /**
   * A running peer.
   *
   * @since 0.1.0
   * @category models
   */
  Peer,
  /**
   * The peer's options.
   *
   * @since 0.1.0
   * @category models
   */
  PeerOptions,
  /**
   * The peer's `request`, with its plain form when it can start from plain code.
   *
   * @since 0.1.0
   * @category models
   */
  Request,
  /**
   * What an outbound request can fail with.
   *
   * @since 0.1.0
   * @category models
   */
  RequestFailure,
  /**
   * A handler of inbound requests of one method.
   *
   * @since 0.1.0
   * @category models
   */
  RequestHandler,
  /**
   * What one outbound request may ask for.
   *
   * @since 0.1.0
   * @category models
   */
  RequestOptions,
  /**
   * The plain form of the peer's `request`: the exchange started from plain code.
   *
   * @since 0.1.0
   * @category models
   */
  StartRequest,
  /**
   * A protocol violation the peer logged, counted and survived.
   *
   * @since 0.1.0
   * @category models
   */
  Violation,
  /**
   * A JSON object as it is on the wire.
   *
   * @since 0.1.0
   * @category models
   */
  WireObject
} from "./internal/peer/types.js"
