/**
 * Dialects: how requests go on the wire in each protocol era, and how the era is chosen.
 * The stateful dialect (2024-11-05 … 2025-11-25) sends requests as they are, after an
 * `initialize` handshake; the stateless one (2026-07-28, `stateless.ts`) wraps each request.
 * The era is chosen by a `server/discover` probe, classified as the spec's backward
 * compatibility sections say (never on a single error code), unless the caller pins a revision.
 */

import type * as Peer from "@effect-mcp/jsonrpc/Peer"
import { JsonRpc, McpSchema, ProtocolVersion } from "@effect-mcp/protocol"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import {
  type LegacyServer,
  type RequestError,
  type SessionExpired,
  SessionUnavailable,
  type StreamBroken,
  TransportError
} from "../../McpError.js"
import type { ProbeOutcome, TransportService } from "../../Transport.js"

/** What a request can fail with on the wire: a request error, or a transport's signal for the session. */
export type WireError = RequestError | SessionExpired | LegacyServer | StreamBroken

/** A transport's signal that nothing handled, as the request's transport failure; other errors as they are. */
export const asRequestError = (error: WireError): RequestError =>
  error._tag === "SessionExpired" || error._tag === "LegacyServer" || error._tag === "StreamBroken"
    ? new TransportError({
        server: error.server,
        reason: error.reason,
        ...(error._tag === "StreamBroken"
          ? {}
          : { status: error._tag === "LegacyServer" ? error.status : (error.status ?? 404) })
      })
    : error

/**
 * An `input_required` result answered in a later request (2026-07-28): what that request carries,
 * for a relay that asked its own client and now continues the server's round.
 */
export interface RoundAnswers {
  /** The answers, keyed as the server keyed its input requests. */
  readonly inputResponses: { readonly [key: string]: unknown }
  /** The server's `requestState` of the round it answers, passed back untouched. */
  readonly requestState?: string | undefined
}

/**
 * What a dialect takes with a request: the peer's options, and (2026-07-28) an earlier round it
 * answers and its own log level.
 */
export interface ExchangeOptions extends Peer.RequestOptions {
  readonly answering?: RoundAnswers
  /** The least severe log message the server may send for this request, over the session's level (2026-07-28). */
  readonly logLevel?: McpSchema.LoggingLevel
}

/** How requests of one era go on the wire. */
export interface Dialect {
  readonly era: "stateful" | "stateless"
  /** Sends one request (params already encoded) and returns its final raw result. */
  readonly exchange: (
    method: string,
    wire: Peer.WireObject | undefined,
    options: ExchangeOptions
  ) => Effect.Effect<Peer.WireObject, WireError>
  /** Sends one notification (params already encoded), when the era has it. */
  readonly notify: (method: string, wire: Peer.WireObject | undefined) => Effect.Effect<void, RequestError>
  /**
   * How long the last complete listing of a list method stays fresh, in milliseconds (the least
   * `ttlMs` of its pages, 2026-07-28); none: until the server says the list changed.
   */
  readonly freshness: (method: string) => Option.Option<number>
  /**
   * Whether a notification belongs to this session's current subscriptions: at 2026-07-28 one
   * tagged with another (an ended) subscription's id is dropped; untagged ones always belong.
   */
  readonly accepts: (notification: JsonRpc.JSONRPCNotification) => boolean
}

/**
 * What a session speaks before its first establishment: the stateful era, nothing sent (the
 * steps refuse every request and notification until the session is ready; the handshake speaks
 * the stateful dialect itself).
 */
export const unestablished = (server: () => string): Dialect => {
  const refused = () => new SessionUnavailable({ server: server(), reason: "the session is not established yet" })
  return {
    era: "stateful",
    exchange: () => Effect.fail(refused()),
    notify: () => Effect.fail(refused()),
    freshness: () => Option.none(),
    accepts: () => true
  }
}

/** The stateful dialect: requests and notifications go as they are. */
export const stateful = (peer: Peer.Peer): Dialect => ({
  era: "stateful",
  exchange: (method, wire, options) => peer.request(method, wire, options),
  notify: (method, wire) => peer.notify(method, wire),
  freshness: () => Option.none(),
  accepts: () => true
})

/** The verdict of a probe. */
export type Verdict =
  | {
      readonly _tag: "Modern"
      readonly version: ProtocolVersion.StatelessVersion
      readonly discover: McpSchema.DiscoverResult
    }
  /** The server rejected the offered revision but names one both sides speak: ask again with it (once). */
  | { readonly _tag: "Retry"; readonly version: ProtocolVersion.StatelessVersion }
  | { readonly _tag: "Legacy"; readonly why: string }
  /** A modern server (it answered `server/discover`) that lists no revision this client speaks, in either era. */
  | { readonly _tag: "Unsupported"; readonly supported: ReadonlyArray<string> }

const decodeDiscover = Schema.decodeUnknownEither(McpSchema.DiscoverResult)
const decodeVersionData = Schema.decodeUnknownEither(McpSchema.UnsupportedProtocolVersionData)

const mutual = (versions: ReadonlyArray<string>): ProtocolVersion.StatelessVersion | undefined =>
  versions.find(ProtocolVersion.isStateless)

/**
 * Classifies what a `server/discover` probe got back. A discover result naming a stateless
 * revision both sides speak is modern; one naming only a stateful revision we speak is legacy (a
 * dual-era server); one naming no revision we speak is unsupported (initializing would only meet
 * a refusal). `-32022` naming a revision both speak is modern, asked again; any other answer, an
 * error, or a connection that ended is legacy.
 */
export const classify = (
  answer: Either.Either<Peer.WireObject, { readonly code: number; readonly data?: unknown }>
): Verdict => {
  if (Either.isRight(answer)) {
    const discover = decodeDiscover(answer.right)
    if (Either.isLeft(discover)) return { _tag: "Legacy", why: "server/discover answered something else" }
    const supported = discover.right.supportedVersions
    const version = mutual(supported)
    if (version !== undefined) return { _tag: "Modern", version, discover: discover.right }
    return supported.some(ProtocolVersion.isStateful)
      ? { _tag: "Legacy", why: `the server supports ${supported.join(", ")}` }
      : { _tag: "Unsupported", supported }
  }
  const { code, data } = answer.left
  if (code === JsonRpc.ErrorCode.UnsupportedProtocolVersion) {
    const supported = decodeVersionData(data)
    const version = Either.isRight(supported) ? mutual(supported.right.supported) : undefined
    if (version !== undefined) return { _tag: "Retry", version }
  }
  return { _tag: "Legacy", why: `server/discover failed with ${code}` }
}

/** Where a probe is sent: by the transport's own `probe` (stdio), or through the session's peer. */
export interface ProbeTarget {
  readonly server: () => string
  readonly transport: TransportService
  readonly peer: Peer.Peer
  /** How long a probe waits; silence on stdio means legacy, on HTTP it is an outage. */
  readonly timeout: Duration.DurationInput
}

const probeId = "effect-mcp-era-probe"

/** Sends one `server/discover` with the envelope of `version` and classifies the outcome. */
export const probe = (target: ProbeTarget, meta: Peer.WireObject): Effect.Effect<Verdict, WireError> => {
  const { transport, peer } = target
  if (transport.probe !== undefined) {
    const request: JsonRpc.JSONRPCRequest = {
      jsonrpc: "2.0",
      id: probeId,
      method: "server/discover",
      params: { _meta: meta }
    }
    return Effect.map(transport.probe(request, target.timeout), (outcome: ProbeOutcome): Verdict => {
      if (outcome._tag !== "Answered") {
        return {
          _tag: "Legacy",
          why: outcome._tag === "Ended" ? "the probe's process ended" : "no answer to the probe"
        }
      }
      const message = outcome.message
      if (JsonRpc.isResultResponse(message)) return classify(Either.right(message.result))
      if (JsonRpc.isErrorResponse(message)) return classify(Either.left(message.error))
      return { _tag: "Legacy", why: "the probe's answer is not a response" }
    })
  }
  return peer.request("server/discover", undefined, { meta, timeout: target.timeout, cancellable: false }).pipe(
    Effect.map((result) => classify(Either.right(result))),
    Effect.catchIf(
      (error): error is Extract<RequestError, { readonly _tag: "RpcError" }> => error._tag === "RpcError",
      (error) => Effect.succeed(classify(Either.left({ code: error.code, data: error.data })))
    ),
    // An HTTP 4xx without a modern JSON-RPC answer: a legacy server. 401 and 403 are about
    // authorization, never the era; 5xx, a broken connection or silence are an outage, not a
    // verdict (the error stands).
    Effect.catchIf(
      (error): error is TransportError =>
        error._tag === "TransportError" &&
        error.status !== undefined &&
        error.status >= 400 &&
        error.status < 500 &&
        error.status !== 401 &&
        error.status !== 403,
      (error) => Effect.succeed<Verdict>({ _tag: "Legacy", why: `server/discover answered HTTP ${error.status}` })
    )
  )
}

/** The revision and server description a modern verdict establishes. */
export const fromDiscover = (
  version: ProtocolVersion.StatelessVersion,
  discover: McpSchema.DiscoverResult,
  fallbackName: string
) => {
  const metaInfo = discover._meta?.[McpSchema.MetaKey.serverInfo]
  const serverInfo = Option.getOrElse(
    Option.orElse(Schema.decodeUnknownOption(McpSchema.Implementation)(metaInfo), () =>
      Option.fromNullable(discover.serverInfo)
    ),
    () => ({ name: fallbackName, version: "" })
  )
  return {
    protocolVersion: version,
    serverInfo,
    serverCapabilities: discover.capabilities,
    instructions: Option.fromNullable(discover.instructions)
  }
}

/** The server's `server/discover` lists no revision this client speaks: both lists are said. */
export const noneInCommon = (requested: ProtocolVersion.ProtocolVersion, supported: ReadonlyArray<string>) =>
  new ProtocolVersion.UnsupportedProtocolVersion({
    requested,
    received: supported.length === 0 ? "none" : supported.join(", "),
    serverSupports: supported
  })

/**
 * The server does not speak the stateless revision the caller insisted on (`why`: how that
 * showed); `offered`: the revision it offers instead, when known.
 */
export const noModern = (requested: ProtocolVersion.ProtocolVersion, why: string, offered: string | undefined) =>
  new ProtocolVersion.UnsupportedProtocolVersion({ requested, received: offered ?? "", why })
