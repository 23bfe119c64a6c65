/**
 * A session's event streams and the events sent on them, kept so that a client can resume a
 * stream it lost (Streamable HTTP 2025-11-25, "Resumability and Redelivery"). Every event gets an
 * id `<stream>.<seq>`: the stream it was sent on (0 is the session's GET stream, 1, 2, … one per
 * POST that carried requests) and a sequence number counted across the whole session, so ids are
 * unique within the session and a `Last-Event-ID` names its stream.
 *
 * The store is bounded: it keeps the newest events up to a number and a size in bytes (both must
 * hold), and drops the oldest first. A stream is known while it can still carry events or while
 * any of its events is kept; once an event after a client's last id has been dropped, that id is
 * expired: what the client missed can no longer be replayed.
 */

/**
 * How much a session keeps: at most `events` events, of at most `bytes` bytes in all (each event
 * counted as the encoded frame sent).
 */
export interface Limits {
  readonly events: number
  readonly bytes: number
}

/** The default bound: the newest 1000 events, within 4 MiB. */
export const defaultLimits: Limits = { events: 1000, bytes: 4 * 1024 * 1024 }

/** The stream of the session's GET requests. */
export const LISTENER = 0

/** What a client missed on a stream since the event it names, and whether the stream has ended. */
export interface Replay {
  readonly stream: number
  readonly events: ReadonlyArray<Uint8Array>
  readonly complete: boolean
}

/** The events of one session. */
export interface EventStore {
  /** A new POST stream. */
  readonly open: () => number
  /** Registers the GET stream (from the client's first GET on, its events are kept). */
  readonly openListener: () => void
  /** Whether the GET stream has been registered. */
  readonly listening: () => boolean
  /** An event on `stream`, framed with its new id, kept, and returned to be sent. */
  readonly append: (stream: number, frame: (id: string) => string) => Uint8Array
  /** An event with a new id on `stream` that is not kept (a priming event: a point to resume from). */
  readonly mark: (stream: number, frame: (id: string) => string) => Uint8Array
  /** `stream` will carry nothing more (its last response was sent). */
  readonly complete: (stream: number) => void
  /** The kept events after `lastEventId` on its stream; `undefined` when the id is unknown or expired. */
  readonly replay: (lastEventId: string) => Replay | undefined
  /** How much is kept. */
  readonly size: () => { readonly events: number; readonly bytes: number }
}

interface Kept {
  readonly seq: number
  readonly stream: number
  readonly bytes: Uint8Array
}

interface StreamInfo {
  /** How many of its events are kept. */
  kept: number
  /** The sequence number of its newest dropped event (0: none dropped). */
  dropped: number
  complete: boolean
}

const eventId = /^(\d{1,15})\.(\d{1,15})$/

const encoder = new TextEncoder()

/** An empty store bounded by `limits`. */
export const make = (limits: Limits = defaultLimits): EventStore => {
  const streams = new Map<number, StreamInfo>()
  const kept: Array<Kept> = []
  let bytes = 0
  let seq = 0
  let lastStream = LISTENER

  const forgetIfDone = (stream: number, info: StreamInfo) => {
    if (info.complete && info.kept === 0) streams.delete(stream)
  }

  const dropOldest = () => {
    while (kept.length > limits.events || (bytes > limits.bytes && kept.length > 0)) {
      const oldest = kept.shift()
      if (oldest === undefined) return
      bytes -= oldest.bytes.byteLength
      const info = streams.get(oldest.stream)
      if (info === undefined) continue
      info.kept--
      info.dropped = oldest.seq
      forgetIfDone(oldest.stream, info)
    }
  }

  const next = (stream: number, frame: (id: string) => string) => {
    seq++
    return encoder.encode(frame(`${stream}.${seq}`))
  }

  return {
    open: () => {
      lastStream++
      streams.set(lastStream, { kept: 0, dropped: 0, complete: false })
      return lastStream
    },
    openListener: () => {
      if (!streams.has(LISTENER)) streams.set(LISTENER, { kept: 0, dropped: 0, complete: false })
    },
    listening: () => streams.has(LISTENER),
    append: (stream, frame) => {
      const event = next(stream, frame)
      const info = streams.get(stream)
      if (info === undefined) return event
      kept.push({ seq, stream, bytes: event })
      bytes += event.byteLength
      info.kept++
      dropOldest()
      return event
    },
    mark: next,
    complete: (stream) => {
      const info = streams.get(stream)
      if (info === undefined) return
      info.complete = true
      forgetIfDone(stream, info)
    },
    replay: (lastEventId) => {
      const parsed = eventId.exec(lastEventId)
      if (parsed === null) return undefined
      const stream = Number(parsed[1])
      const after = Number(parsed[2])
      const info = streams.get(stream)
      if (info === undefined || after > seq || info.dropped > after) return undefined
      const events = kept.filter((event) => event.stream === stream && event.seq > after).map((event) => event.bytes)
      return { stream, events, complete: info.complete }
    },
    size: () => ({ events: kept.length, bytes })
  }
}
