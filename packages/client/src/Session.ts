/**
 * The session with one MCP server, as a service: its lifecycle state, what the handshake or
 * discovery established, and the one request path every feature takes (`prepare` → `execute` →
 * `decode`). `McpClient.layer` is `McpClient.layerFromSession` over `Session.layer`: provide
 * another `Session` layer (one that decorates this one's `execute`, say) to change how every
 * request of a client is sent.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"
import type { McpClientOptions } from "./internal/api.js"
import * as Client from "./internal/client.js"
import type { SessionService } from "./internal/session/types.js"
import type { InitializeError } from "./McpError.js"
import type { Transport } from "./Transport.js"

export type {
  /**
   * How many requests a bounded session lets be in flight, and how many wait.
   *
   * @since 0.1.0
   * @category options
   */
  Bound
} from "./internal/session/combinators.js"
export {
  /**
   * The session with at most `maxInFlight` requests in flight and `maxQueued` waiting (beyond both,
   * `Overloaded`, nothing sent): what `McpClientOptions.maxInFlight` applies. Use it on a session
   * of your own: `Layer.effect(Session, Effect.map(Session, Session.bounded({ maxInFlight: 8 })))`.
   *
   * @since 0.1.0
   * @category combinators
   */
  bounded,
  /**
   * The session with reads and tool calls retried after a transient failure as the settings say
   * (a tool call that may have reached the server only when idempotent): what
   * `McpClientOptions.retry` applies.
   *
   * @since 0.1.0
   * @category combinators
   */
  retried
} from "./internal/session/combinators.js"
export {
  /**
   * Sends a request of the method table through a session's one request path (`prepare`, `execute`,
   * `decode` of the service given, so a decorated session's own).
   *
   * @since 0.1.0
   * @category requests
   */
  request
} from "./internal/session/request.js"
export {
  /**
   * A saved session: the server's `Mcp-Session-Id` and what `initialize` negotiated (revision,
   * server capabilities, server info, instructions), as `McpClientService.savedSession` gives it,
   * for another client to reattach to (`McpClientOptions.reattach`). A Schema: keep it as JSON
   * (`Schema.parseJson(SavedSession)`, or a `KeyValueStore`'s `forSchema`) and decode it when read
   * back, which fails with a `ParseError` saying where a stored value does not fit.
   *
   * @since 0.1.0
   * @category models
   */
  SavedSession
} from "./internal/session/saved.js"
export type {
  /**
   * What a handshake or discovery established; replaced as a whole when the session is
   * re-established.
   *
   * @since 0.1.0
   * @category models
   */
  Established,
  /**
   * A session's `execute`, with its plain form (`StartExecute`) while it has one: a decorated
   * `execute` has none, so every request goes through the decoration.
   *
   * @since 0.1.0
   * @category models
   */
  Execute,
  /**
   * Sends a prepared request and gives its raw result.
   *
   * @since 0.1.0
   * @category models
   */
  Executor,
  /**
   * A request ready for the wire: what the steps above the executor made of a call.
   *
   * @since 0.1.0
   * @category models
   */
  Prepared,
  /**
   * A request's options at the session: the peer's, and how it may be retried.
   *
   * @since 0.1.0
   * @category options
   */
  RequestOptions,
  /**
   * Serves one request of the server (`sampling/createMessage`, `elicitation/create`, `roots/list`)
   * with the handlers the host provided, its result encoded for `version`: -32601 for a method none
   * of them serves.
   *
   * @since 0.1.0
   * @category models
   */
  ServerRequestHandler,
  /**
   * The connection of a session: what the server sends unasked, the requests it makes, raw
   * notifications out, counters.
   *
   * @since 0.1.0
   * @category models
   */
  SessionConnection,
  /**
   * The one request path of a session, and its notifications out.
   *
   * @since 0.1.0
   * @category models
   */
  SessionRequests,
  /**
   * A session with one server, by what its callers do: what it is (`SessionView`), the one request
   * path (`SessionRequests`) and the connection (`SessionConnection`).
   *
   * @since 0.1.0
   * @category models
   */
  SessionService,
  /**
   * What a session is now: its name, lifecycle state, era and what was established.
   *
   * @since 0.1.0
   * @category models
   */
  SessionView,
  /**
   * The plain form of a session's `execute`: the request started from plain code (a Promise adapter's).
   *
   * @since 0.1.0
   * @category models
   */
  StartExecute,
  /**
   * Counters of a connection.
   *
   * @since 0.1.0
   * @category models
   */
  Stats
} from "./internal/session/types.js"

/**
 * The session with one server.
 *
 * @since 0.1.0
 * @category services
 */
export class Session extends Context.Tag("@effect-mcp/client/Session")<Session, SessionService>() {}

/**
 * A session over the transport in context: the handler services in context (`Sampling`,
 * `Elicitation`, `Roots`) served and declared as capabilities, then the handshake. Fails with the
 * handshake's error; closing the layer's scope ends the session.
 *
 * *When to use*: under `McpClient.layerFromSession` when a program decorates what every request
 * goes through (logs, metrics, `Session.bounded` or `Session.retried` of its own). Otherwise
 * `McpClient.layer` builds it for you.
 *
 * *Gotchas*: a decorated `execute` has no plain form, so a Promise client's calls over it run as
 * effects (the same outcome, a fiber each). Give `layerFromSession` the same options: the session
 * reads its own (timeouts, retries, the bound) and the features theirs.
 *
 * @example
 * ```ts
 * import { McpClient, Session, StdioTransport } from "@effect-mcp/client"
 * import { NodeContext } from "@effect/platform-node"
 * import { Effect, Layer } from "effect"
 *
 * // A session that logs every request a client sends, then sends it as the session would
 * const LoggedSession = Layer.effect(
 *   Session.Session,
 *   Effect.map(Session.Session, (session) => ({
 *     ...session,
 *     // a new `execute` has no plain form: a Promise client's calls go through it too
 *     execute: (request: Session.Prepared) =>
 *       Effect.zipRight(Effect.logDebug(`sending ${request.method}`), session.execute(request))
 *   }))
 * ).pipe(Layer.provide(Session.layer({ name: "everything" })))
 *
 * // `McpClient.layer` is `layerFromSession` over `Session.layer`: here over the decorated one
 * const ClientLive = McpClient.layerFromSession({ name: "everything" }).pipe(
 *   Layer.provide(LoggedSession),
 *   Layer.provide(
 *     StdioTransport.layer({
 *       command: "npx",
 *       args: ["-y", "@modelcontextprotocol/server-everything"]
 *     })
 *   ),
 *   Layer.provide(NodeContext.layer)
 * )
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: McpClientOptions = {}): Layer.Layer<Session, InitializeError, Transport> =>
  Layer.scoped(Session, Client.startSession(options))
