/**
 * Negotiation: which era and revision the session speaks, and establishing it. A pinned stateful
 * revision initializes; otherwise a `server/discover` probe chooses (`Dialect.classify`): a server
 * that has a stateless revision both sides speak gets the stateless dialect, any other initializes
 * (negotiating down), unless the caller insisted on a stateless revision. A saved session is
 * taken up as it was established, with no handshake, over a transport that can reattach to it.
 * Negotiation returns what it established; the session makes that its own (`lifecycle.ts`).
 *
 * The probe waits `probeTimeout` (10 s) only on stdio, where the transport probes the live process
 * (silence there means a legacy server); elsewhere as long as any request: HTTP silence is an
 * outage, not an era. 401/403, 5xx and network errors stand as errors, never an era. A pinned
 * 2026-07-28 against a legacy server fails with `UnsupportedProtocolVersion` naming the revision
 * the server offers (learnt from an `initialize` never followed by `initialized`).
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
import type { Speaking } from "./lifecycle.js"
import { establishedOf, type SavedSession } from "./saved.js"
import * as Stateless from "./stateless.js"
import type { Steps } from "./steps.js"
import type { SessionOptions } from "./types.js"

/** What negotiation needs from the session. */
export interface NegotiationOptions {
  readonly server: () => string
  readonly transport: TransportService
  readonly peer: Peer.Peer
  /** The session's steps: `initialize` is prepared and its result decoded as any request is. */
  readonly steps: Pick<Steps, "prepareUngated" | "decode">
  readonly session: Pick<
    SessionOptions,
    | "capabilities"
    | "clientInfo"
    | "protocolVersion"
    | "probeTimeout"
    | "requestTimeout"
    | "maxInputRounds"
    | "serve"
    | "reattach"
  >
}

/**
 * What a negotiation established: what the session is to speak, and whether an `initialize`
 * handshake made it (then `notifications/initialized` follows, once the session is established).
 */
export interface Negotiated extends Speaking {
  readonly initialized: boolean
}

/** The session's negotiation: the first establishment (`select`) and a stateful one again (`handshake`). */
export interface Negotiation {
  /** Takes up the saved session, or chooses the era (pinned, or by a probe) and what to speak in it. */
  readonly select: Effect.Effect<Negotiated, InitializeError>
  /** The `initialize` handshake at the revision chosen. */
  readonly handshake: Effect.Effect<Negotiated, InitializeError>
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
const mapWireError = <A>(effect: Effect.Effect<A, Dialect.WireError>): Effect.Effect<A, RequestError> =>
  Effect.mapError(effect, Dialect.asRequestError)

/** The negotiation of one session; a stateless dialect it chooses lives in the scope. */
export const make = (options: NegotiationOptions): Effect.Effect<Negotiation, never, Scope.Scope> =>
  Effect.map(Effect.scope, (scope) => {
    const { server, peer, steps } = options
    const { capabilities, clientInfo } = options.session
    const stateful = Dialect.stateful(peer)
    // The stateful revision offered in `initialize`: the newest, or the one pinned.
    const pinned = options.session.protocolVersion
    const offered = pinned !== "auto" && ProtocolVersion.isStateful(pinned) ? pinned : ProtocolVersion.LATEST_STATEFUL

    // Sent before the session is ready, so past the gate, and never cancelled: a new session is never left half made.
    const initialize = Effect.suspend(() =>
      Either.match(
        steps.prepareUngated(
          "initialize",
          { protocolVersion: offered, capabilities, clientInfo },
          { cancellable: false }
        ),
        {
          onLeft: Effect.fail,
          onRight: (request) =>
            Effect.flatMap(mapWireError(stateful.exchange(request.method, request.wire, request.options)), (raw) =>
              steps.decode("initialize", raw)
            )
        }
      )
    )

    const handshake: Negotiation["handshake"] = Effect.flatMap(initialize, (result) =>
      Either.map(ProtocolVersion.negotiate(offered, result.protocolVersion), (negotiated) => ({
        established: {
          protocolVersion: negotiated,
          serverInfo: result.serverInfo,
          serverCapabilities: result.capabilities,
          instructions: Option.fromNullable(result.instructions)
        },
        dialect: stateful,
        initialized: true
      }))
    )

    // The stateless revision: no handshake; discovery said what the server is.
    const becomeStateless = (version: ProtocolVersion.StatelessVersion, discover: McpSchema.DiscoverResult) =>
      Stateless.make({
        server,
        peer,
        version,
        capabilities,
        clientInfo,
        serve: options.session.serve,
        maxRounds: options.session.maxInputRounds,
        requestTimeout: Duration.decode(options.session.requestTimeout),
        serverCapabilities: discover.capabilities
      }).pipe(
        Scope.extend(scope),
        Effect.map(
          (dialect): Negotiated => ({
            established: Dialect.fromDiscover(version, discover, server()),
            dialect,
            initialized: false
          })
        )
      )

    // The saved session's id is sent from the first message on; nothing is sent to take it up. A
    // server that forgot it refuses the first request, and recovery initializes as after a restart.
    const reattach = (saved: SavedSession): Effect.Effect<Negotiated, RequestError> => {
      const take = options.transport.reattach
      if (take === undefined) {
        return new SessionUnavailable({
          server: server(),
          reason: "a saved session cannot be reattached to over this transport (only Streamable HTTP keeps sessions)"
        })
      }
      return Effect.as(take(saved.sessionId), {
        established: establishedOf(saved),
        dialect: stateful,
        initialized: false
      })
    }

    const chosen = (pinned: ProtocolVersion.StatelessVersion | "auto"): Effect.Effect<Negotiated, InitializeError> => {
      const timeout = probeTimeoutOf(options.transport, options.session.probeTimeout, options.session.requestTimeout)
      const target = { server, transport: options.transport, peer, timeout }
      const offer = (version: ProtocolVersion.StatelessVersion) =>
        mapWireError(Dialect.probe(target, Stateless.envelope(version, capabilities, clientInfo, undefined)))
      const legacy = (why: string): Effect.Effect<Negotiated, InitializeError> =>
        pinned === "auto"
          ? Effect.zipRight(Effect.logDebug(`${server()}: a stateful server (${why}); initializing`), handshake)
          : // Which revision it offers, asked plainly (an initialize with no initialized after it),
            // bounded as the probe is: a server that did not answer that need not hold the error up.
            initialize.pipe(
              Effect.timeout(timeout),
              Effect.option,
              Effect.flatMap((result) =>
                Effect.fail(Dialect.noModern(pinned, why, Option.getOrUndefined(result)?.protocolVersion))
              )
            )
      const requested = pinned === "auto" ? ProtocolVersion.STATELESS[0] : pinned
      return Effect.flatMap(offer(requested), (first) => {
        if (first._tag === "Modern") return becomeStateless(first.version, first.discover)
        if (first._tag === "Legacy") return legacy(first.why)
        if (first._tag === "Unsupported") return Effect.fail(Dialect.noneInCommon(requested, first.supported))
        // -32022 naming a revision both speak: ask once more with it, never loop.
        return Effect.flatMap(offer(first.version), (second) => {
          if (second._tag === "Modern") return becomeStateless(second.version, second.discover)
          if (second._tag === "Unsupported") return Effect.fail(Dialect.noneInCommon(requested, second.supported))
          return legacy(second._tag === "Legacy" ? second.why : "it rejected the revision it named")
        })
      })
    }

    const saved = options.session.reattach
    const select: Negotiation["select"] =
      saved !== undefined
        ? reattach(saved)
        : pinned !== "auto" && ProtocolVersion.isStateful(pinned)
          ? handshake
          : Effect.suspend(() => chosen(pinned))

    return { select, handshake }
  })
