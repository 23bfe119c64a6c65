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
 * Holding a connection per call costs a local gateway little, and clients before 2025-11-25
 * cannot resume at all.
 *
 * The specification leaves open what an id that cannot be replayed gets: an unknown or expired one
 * is refused with 400 (as the official SDK's server does), never given a stream that would silently
 * miss the response; a stream that has ended with nothing after the id gets 204, the SSE
 * standard's "stop reconnecting" (SDK v1's client resumes a stream that ended with an error
 * response, and would otherwise poll it forever). A second connection to a stream takes it over.
 *
 * A POST with one request waits up to {@link ANSWER_WINDOW} for its first message: when that is the
 * response, it is the POST's JSON answer (no stream: nothing to parse as events, nothing kept);
 * anything else first (progress, a server request), or nothing yet, opens the stream as above.
 */
import type { Incoming, TransportService } from "@effect-mcp/jsonrpc/Transport"
import * as Transport from "@effect-mcp/jsonrpc/Transport"
import { JsonRpc, ProtocolVersion } from "@effect-mcp/protocol"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as EventStore from "./eventStore.js"
import type { Events } from "./events.js"
import { RelatedRequest } from "./inflight.js"
import * as Streams from "./sessionStreams.js"

/** How long a client waits before resuming a stream it lost, in milliseconds (the `retry` field). */
export const RETRY_MS = 1000

/** The priming event: an id to resume from and the retry interval, no message. */
const priming = (id: string): string => `id: ${id}\nretry: ${RETRY_MS}\ndata: \n\n`

/** Whether a client at `version` reads a priming event (older clients choke on empty data). */
const primes = (version: string | undefined): boolean =>
  version !== undefined && ProtocolVersion.isSupported(version) && ProtocolVersion.isAtLeast(version, "2025-11-25")

/** How long a POST with one request waits for its response before it opens its event stream. */
export const ANSWER_WINDOW = Duration.seconds(1)

/**
 * The requests of one POST and how many are still unanswered; their stream, once it is open (a
 * POST with one request has none while it waits for its answer, which is then kept here).
 */
interface Exchange {
  stream: number | undefined
  unanswered: number
  /** The revision of the POST (whether its stream starts with a priming event). */
  readonly version: string | undefined
  /** The priming event of a stream opened while the POST waited, sent first when it connects. */
  priming?: Uint8Array
  answer?: JsonRpc.JSONRPCMessage
  /** Tells the waiting POST that its first message came. */
  wake?: (() => void) | undefined
}

/**
 * What a POST gets: nothing to wait for (only notifications and responses); its one request's
 * response; or its event stream. `Closed`: the session ended while it waited.
 */
export type Posted =
  | { readonly _tag: "Accepted" }
  | { readonly _tag: "Answered"; readonly message: JsonRpc.JSONRPCMessage }
  | { readonly _tag: "Stream"; readonly events: Events }
  | { readonly _tag: "Closed" }

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
   * A POST's messages, handed to the peer: at once when they are only notifications and responses
   * or one request (whose answer is awaited); else once the POST's events are connected (no answer can come
   * before its stream). `version` is the request's `MCP-Protocol-Version`.
   */
  readonly post: (
    items: ReadonlyArray<Incoming>,
    version: string | undefined,
    /** Whether one request may be answered with JSON (the client accepts it, and sent no batch). */
    answerJson: boolean
  ) => Effect.Effect<Posted>
  /** A GET: the session's GET stream, or, with `lastEventId`, the rest of the stream that event was on. */
  readonly listen: (request: {
    readonly version: string | undefined
    readonly lastEventId: string | undefined
  }) => Listen
  /** Whether a client is connected to one of its streams, or one of its requests is unanswered. */
  readonly busy: () => boolean
  /** Whether one of its requests is unanswered, or a client follows one of their streams (the GET stream aside). */
  readonly working: () => boolean
  /** Whether the client has opened the GET stream (from then on, what is sent there is kept for it). */
  readonly listened: () => boolean
  /** Ends the session: its peer sees the connection end, and its streams close. */
  readonly close: Effect.Effect<void>
}

/** What {@link deliver} routes a message with: the session's streams, its exchanges, and how an exchange's stream opens. */
interface Routes {
  readonly streams: Streams.SessionStreams
  readonly exchanges: Map<JsonRpc.RequestId, Exchange>
  readonly openFor: (exchange: Exchange) => number
}

/**
 * Routes one message the server sends: a response to its request's exchange (the waiting POST's
 * answer, or its stream, which ends with its last response); a message related to an unanswered
 * request to that request's stream (opening it when the POST still waited); anything else to the
 * GET stream, when the client has one open.
 */
const deliver = (
  { exchanges, openFor, streams: { connections, emit, store } }: Routes,
  message: JsonRpc.JSONRPCMessage,
  related: JsonRpc.RequestId | undefined
): void => {
  if (!("method" in message)) {
    if (message.id === undefined || message.id === null) return
    const exchange = exchanges.get(message.id)
    exchanges.delete(message.id)
    if (exchange === undefined) return
    exchange.unanswered--
    if (exchange.stream === undefined) {
      exchange.answer = message
      exchange.wake?.()
      return
    }
    emit(exchange.stream, message)
    if (exchange.unanswered > 0) return
    store.complete(exchange.stream)
    connections.get(exchange.stream)?.end()
    return
  }
  const exchange = related === undefined ? undefined : exchanges.get(related)
  if (exchange === undefined) {
    if (store.listening()) emit(EventStore.LISTENER, message)
    return
  }
  const waiting = exchange.stream === undefined
  emit(openFor(exchange), message)
  if (waiting) exchange.wake?.()
}

/** A new session with the given id, keeping its events within `limits`, a POST waiting up to `answerWindow` for its answer. */
export const make = (
  id: string,
  limits: EventStore.Limits = EventStore.defaultLimits,
  answerWindow: Duration.DurationInput = ANSWER_WINDOW
): HttpSession => {
  const inbound = Transport.makeInbound()
  const streams = Streams.make(limits)
  const { store, connections, connect, resume, endAll } = streams
  /** Each unanswered request's exchange. */
  const exchanges = new Map<JsonRpc.RequestId, Exchange>()
  let closed = false

  /** Opens the stream of an exchange that had none: what comes now is kept and sent there. */
  const openFor = (exchange: Exchange): number => {
    if (exchange.stream !== undefined) return exchange.stream
    const stream = store.open()
    exchange.stream = stream
    // Its id comes before any event of the stream: resuming from it misses nothing.
    if (primes(exchange.version)) exchange.priming = store.mark(stream, priming)
    return stream
  }

  const send: TransportService["send"] = (message) =>
    Effect.flatMap(RelatedRequest, (related) =>
      Effect.sync(() => deliver({ streams, exchanges, openFor }, message, related))
    )

  /** The events of an exchange's stream: its priming event and what it carried so far, then the rest as it comes. */
  const streamOf = (exchange: Exchange, stream: number): Events =>
    connect(stream, (sink) => {
      if (exchange.priming !== undefined) sink.write(exchange.priming)
      // What the store still keeps of it (the oldest events of a session may have been dropped).
      for (const bytes of store.replay(`${stream}.0`)?.events ?? []) sink.write(bytes)
      if (exchange.unanswered === 0) sink.end()
    })

  /** A POST with one request: its answer if it is the first message within the window, else its stream. */
  const awaitFirst = (id: JsonRpc.RequestId, exchange: Exchange) =>
    Effect.async<void>((resume) => {
      // Its first message may have come already.
      if (exchange.answer !== undefined || exchange.stream !== undefined || closed) return resume(Effect.void)
      exchange.wake = () => resume(Effect.void)
    }).pipe(
      Effect.timeoutOption(answerWindow),
      Effect.map((): Posted => {
        exchange.wake = undefined
        if (exchange.answer !== undefined) return { _tag: "Answered", message: exchange.answer }
        if (closed) return { _tag: "Closed" }
        return { _tag: "Stream", events: streamOf(exchange, openFor(exchange)) }
      }),
      // The client went away while it waited (it has no event id to resume from): its response is
      // dropped; what the request sends meanwhile goes on the GET stream, if it has one.
      Effect.onInterrupt(() =>
        Effect.sync(() => {
          if (exchanges.get(id) === exchange) exchanges.delete(id)
        })
      )
    )

  return {
    id,
    transport: { run: inbound.run, send, setProtocolVersion: () => Effect.void },
    post: (items, version, answerJson) =>
      Effect.suspend((): Effect.Effect<Posted> => {
        const ids = items.flatMap((item) =>
          item._tag === "Message" && JsonRpc.isRequest(item.message) ? [item.message.id] : []
        )
        const offer = () => {
          for (const item of items) inbound.unsafeOffer(item)
        }
        const [only] = ids
        if (only === undefined) {
          offer()
          return Effect.succeed({ _tag: "Accepted" })
        }
        if (ids.length === 1 && answerJson) {
          const exchange: Exchange = { stream: undefined, unanswered: 1, version }
          exchanges.set(only, exchange)
          offer()
          return awaitFirst(only, exchange)
        }
        const stream = store.open()
        const exchange: Exchange = { stream, unanswered: ids.length, version }
        for (const requestId of ids) exchanges.set(requestId, exchange)
        return Effect.succeed({
          _tag: "Stream",
          events: connect(stream, (sink) => {
            if (primes(version)) sink.write(store.mark(stream, priming))
            offer()
          })
        })
      }),
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
    busy: () => connections.size > 0 || exchanges.size > 0,
    working: () => exchanges.size > 0 || connections.size > (connections.has(EventStore.LISTENER) ? 1 : 0),
    listened: store.listening,
    close: Effect.sync(() => {
      closed = true
      endAll()
      for (const exchange of exchanges.values()) exchange.wake?.()
      exchanges.clear()
    }).pipe(Effect.zipRight(inbound.end))
  }
}
