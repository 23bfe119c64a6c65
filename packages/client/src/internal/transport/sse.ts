/**
 * Server-sent events: a parser from bytes to events (WHATWG rules: `data`, `event`, `id`,
 * `retry`, comments, CRLF/LF/CR line ends) with a maximum event size. An event that was not
 * finished by a blank line when the stream ends is dropped, as the standard says; callers
 * notice that what they waited for did not arrive.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"

/** One dispatched event, or a new reconnection delay from the server. */
export type SseItem =
  | { readonly _tag: "Event"; readonly event: string; readonly data: string; readonly id: string | undefined }
  | { readonly _tag: "Retry"; readonly millis: number }

/** An event larger than the limit. */
export class SseTooLarge {
  readonly _tag = "SseTooLarge"
  constructor(readonly maxBytes: number) {}
}

interface State {
  event: string
  data: Array<string>
  size: number
  id: string | undefined
}

/** Parses a byte stream into events. */
export const parse =
  (maxEventBytes: number) =>
  <E, R>(bytes: Stream.Stream<Uint8Array, E, R>): Stream.Stream<SseItem, E | SseTooLarge, R> => {
    const state: State = { event: "", data: [], size: 0, id: undefined }
    let lastId: string | undefined
    return bytes.pipe(
      Stream.decodeText(),
      Stream.splitLines,
      Stream.mapEffect((line): Effect.Effect<Option.Option<SseItem>, SseTooLarge> => {
        if (line === "") {
          if (state.data.length === 0) {
            state.event = ""
            return Effect.succeed(Option.none())
          }
          const item: SseItem = {
            _tag: "Event",
            event: state.event || "message",
            data: state.data.join("\n"),
            id: lastId
          }
          state.event = ""
          state.data = []
          state.size = 0
          return Effect.succeed(Option.some(item))
        }
        if (line.startsWith(":")) return Effect.succeed(Option.none())
        const colon = line.indexOf(":")
        const field = colon === -1 ? line : line.slice(0, colon)
        let value = colon === -1 ? "" : line.slice(colon + 1)
        if (value.startsWith(" ")) value = value.slice(1)
        switch (field) {
          case "data":
            state.size += value.length + 1
            if (state.size > maxEventBytes) return Effect.fail(new SseTooLarge(maxEventBytes))
            state.data.push(value)
            return Effect.succeed(Option.none())
          case "event":
            state.event = value
            return Effect.succeed(Option.none())
          case "id":
            if (!value.includes("\u0000")) lastId = value
            return Effect.succeed(Option.none())
          case "retry":
            return Effect.succeed(
              /^\d+$/.test(value) ? Option.some({ _tag: "Retry", millis: Number(value) }) : Option.none()
            )
          default:
            return Effect.succeed(Option.none())
        }
      }),
      Stream.filterMap((item) => item)
    )
  }
