/**
 * One Streamable HTTP session from the server's side, as the transport its peer reads. A POST that
 * carries requests gets an event stream of its own: the responses to those requests, and every
 * message sent as related to one of them ({@link RelatedRequest}: progress, log messages during a
 * call, a server's request caused by it); it ends with the last response. Everything else goes on
 * the session's GET stream when the client holds one open, and is dropped when it does not.
 */
import type { Incoming, TransportService } from "@effect-mcp/jsonrpc/Transport"
import * as Transport from "@effect-mcp/jsonrpc/Transport"
import { JsonRpc } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Mailbox from "effect/Mailbox"
import * as Stream from "effect/Stream"
import { RelatedRequest } from "./inflight.js"

/** One event of an event stream. */
const event = (message: JsonRpc.JSONRPCMessage): string => `event: message\ndata: ${JSON.stringify(message)}\n\n`

const encoder = new TextEncoder()

/** The event stream a mailbox of events becomes. */
const eventStream = (mailbox: Mailbox.ReadonlyMailbox<string>, onEnd: () => void): Stream.Stream<Uint8Array> =>
  Mailbox.toStream(mailbox).pipe(
    Stream.map((text) => encoder.encode(text)),
    Stream.ensuring(Effect.sync(onEnd))
  )

/** The stream of one POST, and how many of its requests are still unanswered. */
interface Exchange {
  readonly mailbox: Mailbox.Mailbox<string>
  unanswered: number
}

/** A session's connection. */
export interface HttpSession {
  readonly id: string
  readonly transport: TransportService
  /** Hands a POST's messages to the peer; the stream of its answers when it carried requests. */
  readonly post: (items: ReadonlyArray<Incoming>) => Effect.Effect<Stream.Stream<Uint8Array> | undefined>
  /** The GET stream; `undefined` while another is open. */
  readonly listen: Effect.Effect<Stream.Stream<Uint8Array> | undefined>
  /** Ends the session: its peer sees the connection end, and its streams close. */
  readonly close: Effect.Effect<void>
}

/** A new session with the given id. */
export const make = (id: string): HttpSession => {
  const inbound = Transport.makeInbound()
  /** Each request's exchange: its POST's stream, and how many of that POST's requests are unanswered. */
  const exchanges = new Map<JsonRpc.RequestId, Exchange>()
  let listening: Mailbox.Mailbox<string> | undefined

  const deliver = (text: string, related: JsonRpc.RequestId | undefined) => {
    const exchange = related === undefined ? undefined : exchanges.get(related)
    if (exchange !== undefined) return exchange.mailbox.unsafeOffer(text)
    listening?.unsafeOffer(text)
  }

  const send: TransportService["send"] = (message) =>
    Effect.flatMap(RelatedRequest, (related) =>
      Effect.sync(() => {
        if (!("method" in message)) {
          if (message.id === undefined || message.id === null) return
          const exchange = exchanges.get(message.id)
          exchanges.delete(message.id)
          if (exchange === undefined) return
          exchange.mailbox.unsafeOffer(event(message))
          exchange.unanswered--
          if (exchange.unanswered === 0) exchange.mailbox.unsafeDone(Exit.void)
          return
        }
        deliver(event(message), related)
      })
    )

  return {
    id,
    transport: { run: inbound.run, send, setProtocolVersion: () => Effect.void },
    post: (items) => {
      const ids = items.flatMap((item) =>
        item._tag === "Message" && JsonRpc.isRequest(item.message) ? [item.message.id] : []
      )
      const offer = Effect.sync(() => {
        for (const item of items) inbound.unsafeOffer(item)
      })
      if (ids.length === 0) return Effect.as(offer, undefined)
      return Effect.map(Mailbox.make<string>(), (mailbox) => {
        const exchange: Exchange = { mailbox, unanswered: ids.length }
        for (const requestId of ids) exchanges.set(requestId, exchange)
        for (const item of items) inbound.unsafeOffer(item)
        return eventStream(mailbox, () => {
          for (const requestId of ids) if (exchanges.get(requestId) === exchange) exchanges.delete(requestId)
        })
      })
    },
    listen: Effect.suspend(() => {
      if (listening !== undefined) return Effect.succeed(undefined)
      return Effect.map(Mailbox.make<string>(), (mailbox) => {
        listening = mailbox
        return eventStream(mailbox, () => {
          if (listening === mailbox) listening = undefined
        })
      })
    }),
    close: Effect.sync(() => {
      for (const exchange of new Set(exchanges.values())) exchange.mailbox.unsafeDone(Exit.void)
      exchanges.clear()
      listening?.unsafeDone(Exit.void)
      listening = undefined
    }).pipe(Effect.zipRight(inbound.end))
  }
}
