/**
 * The transport seam: a connection that pushes inbound JSON-RPC messages to its reader as
 * they arrive and sends outbound ones. A transport is built by a scoped `Layer`: acquiring it connects,
 * releasing it closes. The peer above it never knows which transport it has.
 */
import { JsonRpc } from "@effect-mcp/protocol"
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Mailbox from "effect/Mailbox"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import type { AuthorizationError } from "./auth/AuthError.js"
import type { LegacyServer, SessionExpired, StreamBroken, TransportError } from "./McpError.js"

/**
 * One inbound item: a decoded message; a value that is not a valid JSON-RPC message; or the
 * failure of one request that the transport could not deliver or answer (HTTP transports
 * post each message separately, so one request can fail while the connection lives on).
 */
export type Incoming =
  | { readonly _tag: "Message"; readonly message: JsonRpc.JSONRPCMessage }
  | { readonly _tag: "Malformed"; readonly raw: unknown; readonly error: ParseResult.ParseError }
  | {
      readonly _tag: "Failed"
      readonly id: JsonRpc.RequestId
      readonly error: TransportError | AuthorizationError | SessionExpired | LegacyServer | StreamBroken
    }

/** The transport service. */
export interface TransportService {
  /**
   * Reads the connection: hands every inbound item, in order, to `deliver` as it arrives (a plain
   * call from the transport's own read, with no queue or fiber per item; `deliver` must not
   * throw or block). Succeeds when the connection ends cleanly, fails when it breaks. One reader
   * at a time; items that arrive while nobody reads wait for the next reader.
   */
  readonly run: (deliver: (item: Incoming) => void) => Effect.Effect<void, TransportError>
  /**
   * Sends one message. Fails when the connection is gone. `headers`: transport headers this
   * message needs (2026-07-28 `Mcp-Param-*` over HTTP); transports without headers ignore them.
   */
  readonly send: (
    message: JsonRpc.JSONRPCMessage,
    headers?: Readonly<Record<string, string>>
  ) => Effect.Effect<void, TransportError>
  /**
   * Writes one message there and then, in the caller, when this transport can (a write to a
   * pipe): `undefined` once written, else why it cannot be. With it a request can start from
   * plain code with no effect run (`PromiseClient`'s calls); transports without it are sent to
   * with `send`. It keeps `send`'s order and failures, and throws only where `send` would die (a
   * value JSON cannot encode). A transport that wraps another and replaces `send` must replace or
   * drop `sendNow` too, or requests begun from plain code go around it (to see every message, use
   * `Middleware`: nothing is begun under it).
   */
  readonly sendNow?: (message: JsonRpc.JSONRPCMessage) => TransportError | undefined
  /**
   * Whether the server keeps a session for this connection that it may forget (Streamable HTTP),
   * so that a `SessionExpired` item may come: the session then recovers (initializes again and
   * resends). Transports without it never deliver `SessionExpired`.
   */
  readonly expiresSessions?: boolean
  /** Told the negotiated revision once the handshake is done (HTTP sends it as a header). */
  readonly setProtocolVersion: (version: string) => Effect.Effect<void>
  /**
   * Sends one request on a connection of its own that is thrown away after (stdio: a second
   * process of the same command), for the protocol-era probe: some legacy servers exit on any
   * request before `initialize`. Transports without it are probed in place.
   */
  readonly probe?: (request: JsonRpc.JSONRPCRequest, timeout: Duration.DurationInput) => Effect.Effect<ProbeOutcome>
}

/** What came back from a probe: the answer, the connection ending without one, or nothing in time. */
export type ProbeOutcome =
  | { readonly _tag: "Answered"; readonly message: JsonRpc.JSONRPCMessage }
  | { readonly _tag: "Ended" }
  | { readonly _tag: "Silent" }

/**
 * The inbound items as a `Stream`, for readers that want one (tests, tools): built on `run`, so
 * it is one more reader, not a second copy of the items.
 */
export const incoming = (transport: TransportService): Stream.Stream<Incoming, TransportError> =>
  Stream.unwrapScoped(
    Effect.gen(function* () {
      const mailbox = yield* Mailbox.make<Incoming, TransportError>()
      yield* transport
        .run((item) => {
          mailbox.unsafeOffer(item)
        })
        .pipe(
          Effect.exit,
          Effect.flatMap((exit) => mailbox.done(exit)),
          Effect.forkScoped
        )
      return Mailbox.toStream(mailbox)
    })
  )

export { type Inbound, make as makeInbound } from "./internal/transport/inbound.js"

/** The connection the client speaks over. */
export class Transport extends Context.Tag("@effect-mcp/client/Transport")<Transport, TransportService>() {}

/**
 * Decodes one parsed JSON value into inbound items: one per message, several for a
 * 2025-03-26 batch. Transports call this once per received JSON text.
 */
export const decodeIncoming = (raw: unknown): ReadonlyArray<Incoming> => {
  if (Array.isArray(raw) && raw.length > 0) return raw.flatMap(decodeIncoming)
  const decoded = JsonRpc.decodeMessage(raw)
  return Either.isRight(decoded)
    ? [{ _tag: "Message", message: decoded.right }]
    : [{ _tag: "Malformed", raw, error: decoded.left }]
}

/** The inbound item for text that is not JSON at all (kept short). */
export const notJson = (text: string): Incoming => {
  const raw = text.length > 200 ? `${text.slice(0, 200)}…` : text
  return {
    _tag: "Malformed",
    raw,
    error: new ParseResult.ParseError({ issue: new ParseResult.Type(Schema.String.ast, raw, "text that is not JSON") })
  }
}

/** Parses one JSON text into inbound items; text that is not JSON is one `Malformed` item. */
export const parseIncoming = (text: string): ReadonlyArray<Incoming> => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return [notJson(text)]
  }
  return decodeIncoming(parsed)
}
