/**
 * An event stream's body as the gateway produces it: pushed into a sink that the HTTP adapter
 * connects (a Node response written directly, or an Effect `Stream` for `@effect/platform`).
 * Push keeps the hot path free of a stream per response; the sink is connected for as long as
 * the client holds the response, and the producer ends it when the events are over.
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

/** Where a connected response's events go. */
export interface EventSink {
  /** Writes one event, already framed. */
  readonly write: (bytes: Uint8Array) => void
  /** The events are over: the response ends. */
  readonly end: () => void
}

/**
 * A body of events. `connect` attaches a sink for as long as its scope is open: the adapter closes
 * the scope when the client goes away or after the sink was ended.
 */
export interface Events {
  readonly connect: (sink: EventSink) => Effect.Effect<void, never, Scope.Scope>
}

const encoder = new TextEncoder()

/** The text of one `message` event carrying `message`, with an id when the stream is resumable. */
export const frame = (message: unknown, id?: string): string =>
  `${id === undefined ? "" : `id: ${id}\n`}event: message\ndata: ${JSON.stringify(message)}\n\n`

/** One `message` event carrying `message`, without an id. */
export const event = (message: unknown): Uint8Array => encoder.encode(frame(message))

/** The events as an Effect `Stream` (the `@effect/platform` adapter's body; tests read it too). */
export const toStream = (events: Events): Stream.Stream<Uint8Array> =>
  Stream.asyncScoped<Uint8Array>((emit) =>
    events.connect({
      write: (bytes) => {
        void emit.single(bytes)
      },
      end: () => {
        void emit.end()
      }
    })
  )

/** Events written by `run`, forked in the connection's scope (a client that goes away interrupts it); the sink ends after. */
export const running = (run: (sink: EventSink) => Effect.Effect<void>): Events => ({
  connect: (sink) => Effect.asVoid(Effect.forkScoped(Effect.ensuring(run(sink), Effect.sync(sink.end))))
})
