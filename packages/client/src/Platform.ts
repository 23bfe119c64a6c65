/**
 * For platform packages, not for programs: what a platform's own transports (`@effect-mcp/node`'s
 * `NodeStdioTransport` and `NodeHttpTransport`) share with the client's generic ones, so that they
 * behave alike (the same framing, limits, child environment and body reading) without reaching
 * into the client's internals. A program picks transports (`StdioTransport`, `HttpTransport`, a
 * platform package's, or a `Transports` layer); it never needs this module.
 *
 * - stdio: {@link LineFramer}, {@link lineText} and {@link DEFAULT_MAX_MESSAGE_BYTES} (newline
 *   framing, linear in the input: `@effect-mcp/jsonrpc/Framing`'s, passed on),
 *   {@link stdioEnvironment} (the child's environment from `StdioOptions`), {@link probedInPlace}
 *   (the era probe on the live process, restarting a server that exits on it). The options and
 *   the `StdioProcess` tag are `StdioTransport`'s.
 * - HTTP: {@link HttpRoute}, the route a platform's HTTP client offers the Streamable HTTP
 *   transport (`StreamableHttpTransport.makeWithRoute`, `HttpTransport.makeWithRoute`): a request
 *   started with callbacks, its {@link RouteAnswer} read with callbacks; and the body helpers
 *   ({@link decodeChunks}, {@link cutShort}, {@link closedMidBody}) that word a broken body as the
 *   client's own transports do.
 * - A connection reset under a request: {@link markReusedConnection}, which a platform's HTTP
 *   client (its pool) calls for a request it gives a kept-alive connection, and
 *   {@link resetOnReusedConnection}, the one failure a request is sent again for, once (the
 *   `HttpClient` path of `HttpTransport` and a platform's route alike).
 *
 * @since 0.1.0
 */

/** Newline framing, `@effect-mcp/jsonrpc/Framing`'s: {@link LineFramer} (one per connection; a line over the limit is an `Overflow`), `lineText`. */
export {
  /**
   * The longest message accepted from a server unless the options say otherwise: 64 MiB.
   *
   * @since 0.1.0
   * @category constants
   */
  DEFAULT_MAX_MESSAGE_BYTES,
  /**
   * The result of feeding one chunk: the complete lines it finished, or an overflow.
   *
   * @since 0.1.0
   * @category models
   */
  type Framed,
  /**
   * A stateful framer; one per connection.
   *
   * @since 0.1.0
   * @category models
   */
  LineFramer,
  /**
   * The text of a line, without a trailing carriage return.
   *
   * @since 0.1.0
   * @category decoding
   */
  lineText
} from "@effect-mcp/jsonrpc/Framing"

/** The answers an {@link HttpRoute} gives, and how its bodies are read: {@link Answer}, {@link Collected}. */
export {
  /**
   * A response as the HTTP transports read it: an `HttpClientResponse` (through `fromResponse`) or
   * one that came over a faster route (Node's own client).
   *
   * @since 0.1.0
   * @category models
   */
  type Answer,
  /**
   * What a bounded body read got: at most the limit, and whether the body had more.
   *
   * @since 0.1.0
   * @category models
   */
  type Collected,
  /**
   * What a body stream that broke off says, with its cause when there is one.
   *
   * @since 0.1.0
   * @category errors
   */
  closedMidBody,
  /**
   * What a body read that broke off after `received` bytes says, with its cause when there is one.
   *
   * @since 0.1.0
   * @category errors
   */
  cutShort,
  /**
   * The text of `size` bytes in `chunks` (UTF-8, a byte-order mark dropped as `TextDecoder` does).
   *
   * @since 0.1.0
   * @category decoding
   */
  decodeChunks
} from "./internal/transport/httpBody.js"

/** A route around the `HttpClient` for the Streamable HTTP transport's requests, with its handlers and answers. */
export type {
  /**
   * A route for the Streamable HTTP transport's requests, around its `HttpClient`.
   *
   * @since 0.1.0
   * @category models
   */
  HttpRoute,
  /**
   * An answer that came over a route: an {@link Answer} that can also be read with callbacks.
   *
   * @since 0.1.0
   * @category models
   */
  RouteAnswer,
  /**
   * What becomes of a request; each is called at most once, and never before `request` returned.
   *
   * @since 0.1.0
   * @category models
   */
  RouteHandlers
} from "./internal/transport/route.js"

/**
 * The child's environment from `StdioOptions`: `{ extend, env }`, where `extend` says whether
 * `env` goes on top of the parent's whole environment (`inheritEnv: "all"`) or is all of it
 * (the safe variables, read through `Config`, plus the options' `env`).
 */
export {
  /**
   * The environment the child gets: the safe variables (read through `Config`) or everything, plus
   * `env`.
   *
   * @since 0.1.0
   * @category configuration
   */
  environment as stdioEnvironment
} from "./internal/transport/stdio.js"

export {
  /**
   * A stdio transport whose era probe runs on its own live process, from an effect that starts
   * one process in the scope it is given: the probe's answer is kept from the session's reader,
   * and a server that exits on the probe is started again, once (the probe's outcome is then
   * `Ended`).
   *
   * @since 0.1.0
   * @category constructors
   */
  probedInPlace
} from "./internal/transport/stdioProbe.js"

/** A request on a kept-alive connection the server had closed: marked by the platform, sent again once. */
export {
  /**
   * What {@link markReusedConnection} takes: a request that emits its failure as an `error`
   * event, as Node's `ClientRequest` does.
   *
   * @since 0.1.0
   * @category models
   */
  type ErrorEmitter,
  /**
   * A connection reset (`ECONNRESET`), or a write on a connection the server closed (`EPIPE`).
   *
   * @since 0.1.0
   * @category guards
   */
  isReset,
  /**
   * For a platform's HTTP client, when its pool hands `request` a connection that served requests
   * before: the error the request may raise is then known to come from a reused connection.
   *
   * @since 0.1.0
   * @category errors
   */
  markReusedConnection,
  /**
   * Whether a request's error is a reset of a connection reused from the pool: the request got
   * no answer (when it failed before any), and is sent once more on a new connection.
   *
   * @since 0.1.0
   * @category guards
   */
  resetOnReusedConnection
} from "./internal/transport/unanswered.js"
