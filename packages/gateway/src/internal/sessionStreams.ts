/**
 * The event streams of one Streamable HTTP session (see `httpSession.ts`): the events kept of each
 * stream ({@link EventStore}), the client's connection to each while it has one (a newer connection
 * to a stream replaces it), and a `Last-Event-ID` resumed from what the store still keeps.
 */

import type { JsonRpc } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as EventStore from "./eventStore.js"
import { type EventSink, type Events, frame } from "./events.js"

/** What a resumed GET gets (the `Listen` of `httpSession.ts` but `Busy`). */
export type Resumed =
  | { readonly _tag: "Stream"; readonly events: Events }
  | { readonly _tag: "Unknown"; readonly lastEventId: string }
  | { readonly _tag: "Finished" }

/** A session's streams. */
export interface SessionStreams {
  readonly store: EventStore.EventStore
  /** The client's connection to each stream, while it has one. */
  readonly connections: Map<number, EventSink>
  /** Keeps the message as an event of `stream`, and sends it there when the client is connected. */
  readonly emit: (stream: number, message: JsonRpc.JSONRPCMessage) => void
  /** Connects a sink to `stream` while its scope is open; `start` runs once it is connected. */
  readonly connect: (stream: number, start: (sink: EventSink) => void) => Events
  /** The rest of the stream `lastEventId` was on, as the store still keeps it. */
  readonly resume: (lastEventId: string) => Resumed
  /** Ends every connection. */
  readonly endAll: () => void
}

/** The streams of a new session, keeping its events within `limits`. */
export const make = (limits: EventStore.Limits): SessionStreams => {
  const store = EventStore.make(limits)
  const connections = new Map<number, EventSink>()

  const emit: SessionStreams["emit"] = (stream, message) => {
    const bytes = store.append(stream, (eventId) => frame(message, eventId))
    connections.get(stream)?.write(bytes)
  }

  const connect: SessionStreams["connect"] = (stream, start) => ({
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

  const resume: SessionStreams["resume"] = (lastEventId) => {
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

  const endAll = () => {
    for (const sink of connections.values()) sink.end()
    connections.clear()
  }

  return { store, connections, emit, connect, resume, endAll }
}
