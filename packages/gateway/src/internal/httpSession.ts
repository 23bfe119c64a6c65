/**
 * One Streamable HTTP session from the server's side, as the transport its peer reads. A POST that
 * carries requests gets an event stream of its own: the responses to those requests, and every
 * message sent as related to one of them ({@link RelatedRequest}: progress, log messages during a
 * call, a server's request caused by it); it ends with the last response. Everything else goes on
 * the session's GET stream once the client has opened one, and is dropped before.
 *
 * Every stream is resumable (2025-11-25, "Resumability and Redelivery"): each event has an id
 * naming its stream, the session keeps its newest events ({@link EventStore}), and a GET with
 * `Last-Event-ID` gets what that stream carried after that event, then, while the stream's requests
 * are unanswered, the rest as it comes. A stream whose client went away lives on: its messages are
 * kept until the client resumes (a disconnection is not a cancellation). When the client speaks
 * 2025-11-25 or later, a new stream starts with a priming event (an id, the `retry` interval and
 * no data), so that a client that loses it before any message can still resume it. The gateway
 * never closes a stream early itself (no SSE polling): a call's stream stays open until it ends.
 */
import type { Incoming, TransportService } from "@effect-mcp/jsonrpc/Transport"
import * as Transport from "@effect-mcp/jsonrpc/Transport"
import { JsonRpc, ProtocolVersion } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Mailbox from "effect/Mailbox"
import * as Stream from "effect/Stream"
import * as EventStore from "./eventStore.js"
import { RelatedRequest } from "./inflight.js"

/** How long a client waits before resuming a stream it lost, in milliseconds (the `retry` field). */
export const RETRY_MS = 1000

/** One event of an event stream. */
const event =
  (message: JsonRpc.JSONRPCMessage) =>
  (id: string): string =>
    `id: ${id}\nevent: message\ndata: ${JSON.stringify(message)}\n\n`

/** The priming event: an id to resume from and the retry interval, no message. */
const priming = (id: string): string => `id: ${id}\nretry: ${RETRY_MS}\ndata: \n\n`

/** Whether a client at `version` reads a priming event (older clients choke on empty data). */
const primes = (version: string | undefined): boolean =>
  version !== undefined && ProtocolVersion.isSupported(version) && ProtocolVersion.isAtLeast(version, "2025-11-25")

/** The requests of one POST, on their stream, and how many of them are still unanswered. */
interface Exchange {
  readonly stream: number
  unanswered: number
}

/**
 * What a GET gets: a stream; `Busy` when the GET stream is open already; `Unknown` when its
 * `Last-Event-ID` names no event the session still has; `Finished` when it names a stream that
 * has ended and carried nothing after that event.
 */
export type Listen =
  | { readonly _tag: "Stream"; readonly stream: Stream.Stream<Uint8Array> }
  | { readonly _tag: "Busy" }
  | { readonly _tag: "Unknown"; readonly lastEventId: string }
  | { readonly _tag: "Finished" }

/** A session's connection. */
export interface HttpSession {
  readonly id: string
  readonly transport: TransportService
  /**
   * Hands a POST's messages to the peer; the stream of its answers when it carried requests.
   * `version` is the request's `MCP-Protocol-Version`.
   */
  readonly post: (
    items: ReadonlyArray<Incoming>,
    version: string | undefined
  ) => Effect.Effect<Stream.Stream<Uint8Array> | undefined>
  /** A GET: the session's GET stream, or, with `lastEventId`, the rest of the stream that event was on. */
  readonly listen: (request: {
    readonly version: string | undefined
    readonly lastEventId: string | undefined
  }) => Effect.Effect<Listen>
  /** Ends the session: its peer sees the connection end, and its streams close. */
  readonly close: Effect.Effect<void>
}

/** A new session with the given id, keeping its events within `limits`. */
export const make = (id: string, limits: EventStore.Limits = EventStore.defaultLimits): HttpSession => {
  const inbound = Transport.makeInbound()
  const store = EventStore.make(limits)
  /** Each unanswered request's exchange. */
  const exchanges = new Map<JsonRpc.RequestId, Exchange>()
  /** The client's connection to each stream, while it has one. */
  const connections = new Map<number, Mailbox.Mailbox<Uint8Array>>()

  /** Keeps the message as an event of `stream`, and sends it there when the client is connected. */
  const emit = (stream: number, message: JsonRpc.JSONRPCMessage) => {
    const bytes = store.append(stream, event(message))
    connections.get(stream)?.unsafeOffer(bytes)
  }

  /** The event stream of a connection to `stream`; the stream forgets the connection when it ends. */
  const connect = (stream: number, mailbox: Mailbox.Mailbox<Uint8Array>): Stream.Stream<Uint8Array> => {
    connections.get(stream)?.unsafeDone(Exit.void)
    connections.set(stream, mailbox)
    return Mailbox.toStream(mailbox).pipe(
      Stream.ensuring(
        Effect.sync(() => {
          if (connections.get(stream) === mailbox) connections.delete(stream)
        })
      )
    )
  }

  const send: TransportService["send"] = (message) =>
    Effect.flatMap(RelatedRequest, (related) =>
      Effect.sync(() => {
        if (!("method" in message)) {
          if (message.id === undefined || message.id === null) return
          const exchange = exchanges.get(message.id)
          exchanges.delete(message.id)
          if (exchange === undefined) return
          emit(exchange.stream, message)
          exchange.unanswered--
          if (exchange.unanswered > 0) return
          store.complete(exchange.stream)
          connections.get(exchange.stream)?.unsafeDone(Exit.void)
          return
        }
        const exchange = related === undefined ? undefined : exchanges.get(related)
        if (exchange !== undefined) emit(exchange.stream, message)
        else if (store.listening()) emit(EventStore.LISTENER, message)
      })
    )

  const resume = (lastEventId: string, mailbox: Mailbox.Mailbox<Uint8Array>): Listen => {
    const replay = store.replay(lastEventId)
    if (replay === undefined) return { _tag: "Unknown", lastEventId }
    if (replay.complete && replay.events.length === 0) return { _tag: "Finished" }
    for (const bytes of replay.events) mailbox.unsafeOffer(bytes)
    if (replay.complete) {
      mailbox.unsafeDone(Exit.void)
      return { _tag: "Stream", stream: Mailbox.toStream(mailbox) }
    }
    return { _tag: "Stream", stream: connect(replay.stream, mailbox) }
  }

  return {
    id,
    transport: { run: inbound.run, send, setProtocolVersion: () => Effect.void },
    post: (items, version) => {
      const ids = items.flatMap((item) =>
        item._tag === "Message" && JsonRpc.isRequest(item.message) ? [item.message.id] : []
      )
      const offer = () => {
        for (const item of items) inbound.unsafeOffer(item)
      }
      if (ids.length === 0) return Effect.as(Effect.sync(offer), undefined)
      return Effect.map(Mailbox.make<Uint8Array>(), (mailbox) => {
        const stream = store.open()
        const exchange: Exchange = { stream, unanswered: ids.length }
        for (const requestId of ids) exchanges.set(requestId, exchange)
        if (primes(version)) mailbox.unsafeOffer(store.mark(stream, priming))
        const answers = connect(stream, mailbox)
        offer()
        return answers
      })
    },
    listen: ({ lastEventId, version }) =>
      Effect.map(Mailbox.make<Uint8Array>(), (mailbox): Listen => {
        if (lastEventId !== undefined && lastEventId !== "") return resume(lastEventId, mailbox)
        if (connections.has(EventStore.LISTENER)) return { _tag: "Busy" }
        store.openListener()
        if (primes(version)) mailbox.unsafeOffer(store.mark(EventStore.LISTENER, priming))
        return { _tag: "Stream", stream: connect(EventStore.LISTENER, mailbox) }
      }),
    close: Effect.sync(() => {
      for (const mailbox of connections.values()) mailbox.unsafeDone(Exit.void)
      connections.clear()
      exchanges.clear()
    }).pipe(Effect.zipRight(inbound.end))
  }
}
