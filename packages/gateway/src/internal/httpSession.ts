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
import * as EventStore from "./eventStore.js"
import { type EventSink, type Events, frame } from "./events.js"
import { RelatedRequest } from "./inflight.js"

/** How long a client waits before resuming a stream it lost, in milliseconds (the `retry` field). */
export const RETRY_MS = 1000

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
 * What a GET gets: its events; `Busy` when the GET stream is open already; `Unknown` when its
 * `Last-Event-ID` names no event the session still has; `Finished` when it names a stream that
 * has ended and carried nothing after that event.
 */
export type Listen =
  | { readonly _tag: "Stream"; readonly events: Events }
  | { readonly _tag: "Busy" }
  | { readonly _tag: "Unknown"; readonly lastEventId: string }
  | { readonly _tag: "Finished" }

/** A session's connection. */
export interface HttpSession {
  readonly id: string
  readonly transport: TransportService
  /**
   * A POST's messages: handed to the peer at once when they are only notifications and responses
   * (`undefined`); else the POST's events, which hand them over once connected (no answer can come
   * before its stream). `version` is the request's `MCP-Protocol-Version`.
   */
  readonly post: (items: ReadonlyArray<Incoming>, version: string | undefined) => Events | undefined
  /** A GET: the session's GET stream, or, with `lastEventId`, the rest of the stream that event was on. */
  readonly listen: (request: {
    readonly version: string | undefined
    readonly lastEventId: string | undefined
  }) => Listen
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
  const connections = new Map<number, EventSink>()

  /** Keeps the message as an event of `stream`, and sends it there when the client is connected. */
  const emit = (stream: number, message: JsonRpc.JSONRPCMessage) => {
    const bytes = store.append(stream, (eventId) => frame(message, eventId))
    connections.get(stream)?.write(bytes)
  }

  /**
   * Connects `sink` to `stream` while the scope is open (a newer connection to the stream replaces
   * it); `start` runs once it is connected.
   */
  const connect = (stream: number, start: (sink: EventSink) => void): Events => ({
    connect: (sink) =>
      Effect.acquireRelease(
        Effect.sync(() => {
          connections.get(stream)?.end()
          connections.set(stream, sink)
          start(sink)
        }),
        () =>
          Effect.sync(() => {
            if (connections.get(stream) === sink) connections.delete(stream)
          })
      )
  })

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
          connections.get(exchange.stream)?.end()
          return
        }
        const exchange = related === undefined ? undefined : exchanges.get(related)
        if (exchange !== undefined) emit(exchange.stream, message)
        else if (store.listening()) emit(EventStore.LISTENER, message)
      })
    )

  const resume = (lastEventId: string): Listen => {
    const replay = store.replay(lastEventId)
    if (replay === undefined) return { _tag: "Unknown", lastEventId }
    if (replay.complete && replay.events.length === 0) return { _tag: "Finished" }
    const missed = (sink: EventSink) => {
      for (const bytes of replay.events) sink.write(bytes)
    }
    if (!replay.complete) return { _tag: "Stream", events: connect(replay.stream, missed) }
    return {
      _tag: "Stream",
      events: {
        connect: (sink) =>
          Effect.sync(() => {
            missed(sink)
            sink.end()
          })
      }
    }
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
      if (ids.length === 0) {
        offer()
        return undefined
      }
      const stream = store.open()
      const exchange: Exchange = { stream, unanswered: ids.length }
      for (const requestId of ids) exchanges.set(requestId, exchange)
      return connect(stream, (sink) => {
        if (primes(version)) sink.write(store.mark(stream, priming))
        offer()
      })
    },
    listen: ({ lastEventId, version }) => {
      if (lastEventId !== undefined && lastEventId !== "") return resume(lastEventId)
      if (connections.has(EventStore.LISTENER)) return { _tag: "Busy" }
      store.openListener()
      return {
        _tag: "Stream",
        events: connect(EventStore.LISTENER, (sink) => {
          if (primes(version)) sink.write(store.mark(EventStore.LISTENER, priming))
        })
      }
    },
    close: Effect.sync(() => {
      for (const sink of connections.values()) sink.end()
      connections.clear()
      exchanges.clear()
    }).pipe(Effect.zipRight(inbound.end))
  }
}
