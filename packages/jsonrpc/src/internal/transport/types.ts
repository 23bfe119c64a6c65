/**
 * The transport seam's types: an inbound item, the service, a probe's outcome. The public
 * `Transport` module re-exports them.
 */
import type { JsonRpc } from "@effect-mcp/protocol"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as ParseResult from "effect/ParseResult"
import type { TransportError } from "../../PeerError.js"
import type * as PlainForm from "../../PlainForm.js"
import type { TransportFailure } from "../../Transport.js"

/**
 * One inbound item: a decoded message; a value that is not a valid JSON-RPC message; or the
 * failure of one request that the transport could not deliver or answer (HTTP transports
 * post each message separately, so one request can fail while the connection lives on).
 */
export type Incoming =
  | {
      readonly _tag: "Message"
      readonly message: JsonRpc.JSONRPCMessage
      /**
       * The request whose own stream carried this message (a notification on a POST's event
       * stream, over Streamable HTTP), when the transport knows; most transports never do.
       */
      readonly relatedRequest?: JsonRpc.RequestId
    }
  | {
      readonly _tag: "Malformed"
      readonly raw: unknown
      readonly error: ParseResult.ParseError
      /** The text was not JSON at all (`raw` is the text, cut short). */
      readonly notJson?: true
    }
  | {
      readonly _tag: "Failed"
      readonly id: JsonRpc.RequestId
      readonly error: TransportFailure
    }

/**
 * A transport's `send`. Its plain form, when it has one, writes the message there and then in the
 * caller: `undefined` once written, else why it cannot be. It keeps `send`'s order and failures,
 * and throws only where `send` would die (a value JSON cannot encode). With it a request starts
 * from plain code with no effect run (`PromiseClient`'s calls).
 */
export interface Send extends PlainForm.Carrier<(message: JsonRpc.JSONRPCMessage) => TransportError | undefined> {
  (message: JsonRpc.JSONRPCMessage, headers?: Readonly<Record<string, string>>): Effect.Effect<void, TransportError>
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
   * A transport that can write in the caller (a pipe) gives its `send` that plain form
   * ({@link Send}); a `send` that wraps it has none, so every message goes through the wrapper.
   */
  readonly send: Send
  /**
   * Whether the server keeps a session for this connection that it may forget (Streamable HTTP),
   * so that a `SessionExpired` item may come: the session then recovers (initializes again and
   * resends). Transports without it never deliver `SessionExpired`.
   */
  readonly expiresSessions?: boolean
  /** The id of the session the server keeps for this connection, once it gave one (Streamable HTTP). */
  readonly sessionId?: () => string | undefined
  /**
   * Takes up a session the server gave another connection (another process's, say): its id is sent
   * from the next message on, as if this connection had been given it. Transports without it keep
   * no session to reattach to.
   */
  readonly reattach?: (sessionId: string) => Effect.Effect<void>
  /** Told the negotiated revision once the handshake is done (HTTP sends it as a header). */
  readonly setProtocolVersion: (version: string) => Effect.Effect<void>
  /**
   * Sends the protocol-era probe itself and waits (at most `timeout`) for its answer, which the
   * reader of `run` never sees (stdio: on the live process; some legacy servers exit on any
   * request before `initialize`, and such a server is started again, once: `Ended`). Transports
   * without it are probed through the session's peer.
   */
  readonly probe?: (request: JsonRpc.JSONRPCRequest, timeout: Duration.DurationInput) => Effect.Effect<ProbeOutcome>
}

/** What came back from a probe: the answer, the connection ending without one, or nothing in time. */
export type ProbeOutcome =
  | { readonly _tag: "Answered"; readonly message: JsonRpc.JSONRPCMessage }
  | { readonly _tag: "Ended" }
  | { readonly _tag: "Silent" }
