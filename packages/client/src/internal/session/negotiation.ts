/**
 * Negotiation: which era and revision the session speaks, and establishing it. A pinned stateful
 * revision initializes; otherwise a `server/discover` probe chooses (`Dialect.classify`): a server
 * that has a stateless revision both sides speak gets the stateless dialect, any other initializes
 * (negotiating down), unless the caller insisted on a stateless revision. A saved session is
 * taken up as it was established, with no handshake, over a transport that can reattach to it.
 */

import type * as Peer from "@effect-mcp/jsonrpc/Peer"
import { type McpSchema, ProtocolVersion } from "@effect-mcp/protocol"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import { type InitializeError, type RequestError, SessionUnavailable } from "../../McpError.js"
import type { TransportService } from "../../Transport.js"
import * as Dialect from "./dialect.js"
import { establishedOf, type SavedSession } from "./saved.js"
import * as Stateless from "./stateless.js"
import type { Established, ServerRequestHandler } from "./types.js"

/** What negotiation needs from the session. */
export interface NegotiationOptions {
  readonly server: () => string
  readonly transport: TransportService
  readonly peer: Peer.Peer
  readonly scope: Scope.Scope
  readonly clientInfo: McpSchema.Implementation
  readonly protocolVersion: ProtocolVersion.ProtocolVersion | "auto"
  /** How long the probe waits; by default a short wait for a transport's own probe (stdio), else the request timeout. */
  readonly probeTimeout: Duration.DurationInput | undefined
  readonly requestTimeout: Duration.DurationInput
  readonly maxInputRounds: number
  readonly serve: ServerRequestHandler
  /** A session saved from another client, taken up instead of negotiating. */
  readonly reattach: SavedSession | undefined
  /** Sends `initialize` (never cancelled) and decodes its result. */
  readonly initialize: (
    params: McpSchema.InitializeRequestParams
  ) => Effect.Effect<McpSchema.InitializeResult, RequestError>
  /** Makes what was established the session's, with the dialect to speak; the session is `Ready` after it. */
  readonly establish: (next: Established, dialect: Dialect.Dialect) => Effect.Effect<void, RequestError>
}

/** The session's negotiation: the first establishment (`select`) and a stateful one again (`handshake`). */
export interface Negotiation {
  /** Takes up the saved session, or chooses the era (pinned, or by a probe) and establishes the session in it. */
  readonly select: (capabilities: McpSchema.ClientCapabilities) => Effect.Effect<void, InitializeError>
  /** The `initialize` handshake at the revision chosen, then `notifications/initialized`. */
  readonly handshake: (capabilities: McpSchema.ClientCapabilities) => Effect.Effect<void, InitializeError>
}

/** How long a transport's own probe (stdio) waits: silence there means a legacy server. */
export const PROCESS_PROBE_TIMEOUT: Duration.DurationInput = "10 seconds"

/**
 * How long the era probe waits: as asked; else for a transport's own probe (stdio) a short while,
 * since a legacy server may stay silent; through the peer (HTTP) as long as any request, since
 * silence there is an outage and a slow first answer is still an answer.
 */
export const probeTimeoutOf = (
  transport: TransportService,
  probeTimeout: Duration.DurationInput | undefined,
  requestTimeout: Duration.DurationInput
): Duration.DurationInput => probeTimeout ?? (transport.probe !== undefined ? PROCESS_PROBE_TIMEOUT : requestTimeout)

/** A transport's signal that nothing handled is the request's transport failure. */
const settled = <A>(effect: Effect.Effect<A, Dialect.WireError>): Effect.Effect<A, RequestError> =>
  Effect.mapError(effect, Dialect.asRequestError)

/** The negotiation of one session. */
export const make = (options: NegotiationOptions): Negotiation => {
  const { server, peer } = options
  // The stateful revision offered in `initialize`: the newest, or the one pinned.
  const pinned = options.protocolVersion
  const offered = pinned !== "auto" && ProtocolVersion.isStateful(pinned) ? pinned : ProtocolVersion.LATEST_STATEFUL

  const handshake: Negotiation["handshake"] = (capabilities) =>
    options.initialize({ protocolVersion: offered, capabilities, clientInfo: options.clientInfo }).pipe(
      Effect.flatMap((result) =>
        Either.map(ProtocolVersion.negotiate(offered, result.protocolVersion), (negotiated) => ({
          protocolVersion: negotiated,
          serverInfo: result.serverInfo,
          serverCapabilities: result.capabilities,
          instructions: Option.fromNullable(result.instructions)
        }))
      ),
      Effect.tap((next) =>
        Effect.zipRight(options.establish(next, Dialect.stateful(peer)), peer.notify("notifications/initialized"))
      ),
      Effect.asVoid
    )

  // The stateless revision: no handshake; discovery said what the server is.
  const becomeStateless = (
    version: ProtocolVersion.StatelessVersion,
    discover: McpSchema.DiscoverResult,
    capabilities: McpSchema.ClientCapabilities
  ) =>
    Effect.flatMap(
      Stateless.make({
        server,
        peer,
        version,
        capabilities,
        clientInfo: options.clientInfo,
        serve: options.serve,
        maxRounds: options.maxInputRounds,
        requestTimeout: Duration.decode(options.requestTimeout),
        serverCapabilities: discover.capabilities
      }).pipe(Scope.extend(options.scope)),
      (dialect) => options.establish(Dialect.fromDiscover(version, discover, server()), dialect)
    )

  // The saved session's id is sent from the first message on; nothing is sent to take it up. A
  // server that forgot it refuses the first request, and recovery initializes as after a restart.
  const reattach = (saved: SavedSession): Effect.Effect<void, RequestError> => {
    const take = options.transport.reattach
    if (take === undefined) {
      return new SessionUnavailable({
        server: server(),
        reason: "a saved session cannot be reattached to over this transport (only Streamable HTTP keeps sessions)"
      })
    }
    return Effect.zipRight(take(saved.sessionId), options.establish(establishedOf(saved), Dialect.stateful(peer)))
  }

  const select: Negotiation["select"] = (capabilities) => {
    if (options.reattach !== undefined) return reattach(options.reattach)
    if (pinned !== "auto" && ProtocolVersion.isStateful(pinned)) return handshake(capabilities)
    const timeout = probeTimeoutOf(options.transport, options.probeTimeout, options.requestTimeout)
    const target = { server, transport: options.transport, peer, timeout }
    const offer = (version: ProtocolVersion.StatelessVersion) =>
      settled(Dialect.probe(target, Stateless.envelope(version, capabilities, options.clientInfo, undefined)))
    const legacy = (why: string) =>
      pinned === "auto"
        ? Effect.zipRight(
            Effect.logDebug(`${server()}: a stateful server (${why}); initializing`),
            handshake(capabilities)
          )
        : // Which revision it offers, asked plainly (an initialize with no initialized after it),
          // bounded as the probe is: a server that did not answer that need not hold the error up.
          options.initialize({ protocolVersion: offered, capabilities, clientInfo: options.clientInfo }).pipe(
            Effect.timeout(timeout),
            Effect.option,
            Effect.flatMap((result) =>
              Effect.fail(Dialect.noModern(pinned, why, Option.getOrUndefined(result)?.protocolVersion))
            )
          )
    const requested = pinned === "auto" ? ProtocolVersion.STATELESS[0] : pinned
    return Effect.flatMap(offer(requested), (first) => {
      if (first._tag === "Modern") return becomeStateless(first.version, first.discover, capabilities)
      if (first._tag === "Legacy") return legacy(first.why)
      if (first._tag === "Unsupported") return Effect.fail(Dialect.noneInCommon(requested, first.supported))
      // -32022 naming a revision both speak: ask once more with it, never loop.
      return Effect.flatMap(offer(first.version), (second) => {
        if (second._tag === "Modern") return becomeStateless(second.version, second.discover, capabilities)
        if (second._tag === "Unsupported") return Effect.fail(Dialect.noneInCommon(requested, second.supported))
        return legacy(second._tag === "Legacy" ? second.why : "it rejected the revision it named")
      })
    })
  }

  return { select, handshake }
}
