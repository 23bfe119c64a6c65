/**
 * The transport seam: a connection that pushes inbound JSON-RPC messages to its reader as
 * they arrive and sends outbound ones. A transport is built by a scoped `Layer`: acquiring it connects,
 * releasing it closes. The peer above it never knows which transport it has.
 *
 * @since 0.1.0
 */
import { JsonRpc } from "@effect-mcp/protocol"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Mailbox from "effect/Mailbox"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import type { Incoming, Send, TransportService } from "./internal/transport/types.js"
import type { LegacyServer, SessionExpired, StreamBroken, TransportError } from "./PeerError.js"
import * as PlainForm from "./PlainForm.js"

export type {
  /**
   * One inbound item: a decoded message, a value that is not a valid JSON-RPC message, or the failure
   * of one request that the transport could not deliver or answer.
   *
   * @since 0.1.0
   * @category models
   */
  Incoming,
  /**
   * What came back from a probe: the answer, the connection ending without one, or nothing in time.
   *
   * @since 0.1.0
   * @category models
   */
  ProbeOutcome,
  /**
   * A transport's `send`, with its plain form when it can write in the caller.
   *
   * @since 0.1.0
   * @category models
   */
  Send,
  /**
   * The transport service.
   *
   * @since 0.1.0
   * @category models
   */
  TransportService
} from "./internal/transport/types.js"

/**
 * The failures a transport may end one request with (an `Incoming` `Failed` item), by tag: the
 * connection's, and the transport's signals for the session above. A package whose transports
 * fail a request with an error of its own adds it here by module augmentation (the client adds
 * its OAuth `AuthorizationError`), so that the peer's request failures name it and a caller
 * catches it by tag; this package knows nothing of it.
 *
 * @since 0.1.0
 * @category models
 */
export interface RequestFailures {
  readonly TransportError: TransportError
  readonly SessionExpired: SessionExpired
  readonly LegacyServer: LegacyServer
  readonly StreamBroken: StreamBroken
}

/**
 * One of {@link RequestFailures}.
 *
 * @since 0.1.0
 * @category models
 */
export type TransportFailure = RequestFailures[keyof RequestFailures]

/**
 * The inbound items as a `Stream`, for readers that want one (tests, tools): built on `run`, so
 * it is one more reader, not a second copy of the items.
 *
 * @since 0.1.0
 * @category conversions
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

export {
  /**
   * Where a transport puts what it receives.
   *
   * @since 0.1.0
   * @category models
   */
  type Inbound,
  /**
   * A new inbound with no reader.
   *
   * @since 0.1.0
   * @category constructors
   */
  make as makeInbound
} from "./internal/transport/inbound.js"

/**
 * A `send` made from a write done there and then (`undefined` once written, else why it cannot
 * be): its effect runs the write, and the write is its plain form. For transports over a pipe.
 *
 * @since 0.1.0
 * @category constructors
 */
export const sendFrom = (write: (message: JsonRpc.JSONRPCMessage) => TransportError | undefined): Send =>
  PlainForm.attach(
    (message: JsonRpc.JSONRPCMessage) =>
      Effect.suspend(() => {
        const error = write(message)
        return error === undefined ? Effect.void : Effect.fail(error)
      }),
    write
  )

/**
 * The connection the client speaks over.
 *
 * @since 0.1.0
 * @category services
 */
export class Transport extends Context.Tag("@effect-mcp/jsonrpc/Transport")<Transport, TransportService>() {}

/**
 * How deeply one message may nest arrays and objects (the message itself is the first level), as
 * Jackson's default. A deeper one is malformed: what reads and writes messages (Schema decoding,
 * `JSON.stringify`) recurses, and would overflow the stack on it.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_DEPTH = 1000

/** Whether `value` nests arrays and objects deeper than `max` levels (walked without recursion). */
const deeperThan = (value: unknown, max: number): boolean => {
  if (typeof value !== "object" || value === null) return false
  const values: Array<object> = [value]
  const depths: Array<number> = [1]
  for (let next = values.pop(); next !== undefined; next = values.pop()) {
    const depth = (depths.pop() ?? 0) + 1
    for (const child of Array.isArray(next) ? next : Object.values(next)) {
      if (typeof child !== "object" || child === null) continue
      if (depth > max) return true
      values.push(child)
      depths.push(depth)
    }
  }
  return false
}

/**
 * What of a message nested too deeply is kept: its `jsonrpc`, `id` and `method` (it is answered by
 * its id, or is a response), or of an array an empty one (no message, answered as one).
 */
const envelopeOf = (raw: object): Record<string, unknown> | [] =>
  Array.isArray(raw)
    ? []
    : Object.fromEntries(
        ["jsonrpc", "id", "method"].flatMap((key) => {
          const value: unknown = (raw as Record<string, unknown>)[key]
          return Object.hasOwn(raw, key) && (typeof value !== "object" || value === null) ? [[key, value]] : []
        })
      )

/** One message (or what should be one) as an inbound item; `shallow`: it cannot be too deep (no walk). */
const decodeOne = (raw: unknown, shallow = false): Incoming => {
  if (!shallow && deeperThan(raw, MAX_DEPTH)) {
    const kept = envelopeOf(raw as object)
    const issue = new ParseResult.Type(Schema.Unknown.ast, kept, `a message nested deeper than ${MAX_DEPTH} levels`)
    return { _tag: "Malformed", raw: kept, error: new ParseResult.ParseError({ issue }) }
  }
  const decoded = JsonRpc.decodeMessage(raw)
  return Either.isRight(decoded)
    ? { _tag: "Message", message: decoded.right }
    : { _tag: "Malformed", raw, error: decoded.left }
}

/**
 * Decodes one parsed JSON value into inbound items: one per message, several for a
 * 2025-03-26 batch (an array in a batch is no message: batches do not nest). A message nested
 * deeper than {@link MAX_DEPTH} levels is malformed, only its `jsonrpc`, `id` and `method` kept.
 * Transports call this once per received JSON text.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeIncoming = (raw: unknown): ReadonlyArray<Incoming> => decodeParsed(raw, false)

const decodeParsed = (raw: unknown, shallow: boolean): ReadonlyArray<Incoming> =>
  Array.isArray(raw) && raw.length > 0 ? raw.map((one) => decodeOne(one, shallow)) : [decodeOne(raw, shallow)]

/**
 * The inbound item for text that is not JSON at all (kept short).
 *
 * @since 0.1.0
 * @category constructors
 */
export const notJson = (text: string): Incoming => {
  const raw = text.length > 200 ? `${text.slice(0, 200)}…` : text
  return {
    _tag: "Malformed",
    raw,
    error: new ParseResult.ParseError({ issue: new ParseResult.Type(Schema.String.ast, raw, "text that is not JSON") }),
    notJson: true
  }
}

/**
 * Parses one JSON text into inbound items; text that is not JSON is one `Malformed` item.
 *
 * @since 0.1.0
 * @category decoding
 */
export const parseIncoming = (text: string): ReadonlyArray<Incoming> => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return [notJson(text)]
  }
  // Each level of nesting takes an opening bracket: a text of at most MAX_DEPTH characters cannot
  // nest deeper than MAX_DEPTH levels, so the walk is spared (most messages are that short).
  return decodeParsed(parsed, text.length <= MAX_DEPTH)
}
