/**
 * The session with one MCP server, as a service: its lifecycle state, what the handshake or
 * discovery established, and the one request path every feature takes (`prepare` → `execute` →
 * `decode`). `McpClient.layer` is `McpClient.layerFromSession` over `Session.layer`: provide
 * another `Session` layer (one that decorates this one's `execute`, say) to change how every
 * request of a client is sent.
 */
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"
import type { McpClientOptions } from "./internal/api.js"
import * as Client from "./internal/client.js"
import type { SessionService } from "./internal/session/types.js"
import type { InitializeError } from "./McpError.js"
import type { Transport } from "./Transport.js"

/**
 * Sends a request of the method table through a session's one request path (`prepare`,
 * `execute`, `decode` of the service given, so a decorated session's own).
 */
export { request } from "./internal/session/request.js"
export type {
  Established,
  Executor,
  Prepared,
  RequestOptions,
  ServerRequestHandler,
  SessionService,
  Stats
} from "./internal/session/types.js"

/** The session with one server. */
export class Session extends Context.Tag("@effect-mcp/client/Session")<Session, SessionService>() {}

/**
 * A session over the transport in context: the handler services in context (`Sampling`,
 * `Elicitation`, `Roots`) served and declared as capabilities, then the handshake. Fails with the
 * handshake's error; closing the layer's scope ends the session.
 */
export const layer = (options: McpClientOptions = {}): Layer.Layer<Session, InitializeError, Transport> =>
  Layer.scoped(Session, Client.startSession(options))
