/**
 * Server-sent events: a push parser from bytes to events (WHATWG rules: `data`, `event`, `id`,
 * `retry`, comments, CRLF/LF/CR line ends, even split across chunks) with a maximum event size.
 * It is fed each chunk as it arrives and calls back with each event, with no stream stage in
 * between. An event that was not finished by a blank line when the stream ends is dropped, as
 * the standard says; callers notice that what they waited for did not arrive.
 */

/** One dispatched event, or a new reconnection delay from the server. */
export type SseItem =
  | { readonly _tag: "Event"; readonly event: string; readonly data: string; readonly id: string | undefined }
  | { readonly _tag: "Retry"; readonly millis: number }

/** The parser of one stream. */
export interface SseParser {
  /** Parses a chunk, calling back with each item it completes; `false` once an event exceeded the limit (stop reading). */
  readonly push: (chunk: Uint8Array) => boolean
  /** The stream ended: a last line without its line end is taken (an unfinished event is still dropped). */
  readonly end: () => void
}

/** A parser calling `onItem` with each item, refusing events larger than `maxEventBytes`. */
export const makeParser = (maxEventBytes: number, onItem: (item: SseItem) => void): SseParser => {
  const decoder = new TextDecoder()
  let event = ""
  let data: Array<string> = []
  let size = 0
  let lastId: string | undefined
  // The text after the last line end, and whether the last chunk ended with a CR (its LF may follow).
  let rest = ""
  let afterCr = false
  let tooLarge = false
  // The longest line any event within the limit needs: its data and the field name.
  const maxLine = maxEventBytes + "data: ".length

  /** One line; `false` when the event grew beyond the limit. */
  const line = (text: string): boolean => {
    if (text === "") {
      if (data.length > 0) onItem({ _tag: "Event", event: event || "message", data: data.join("\n"), id: lastId })
      event = ""
      data = []
      size = 0
      return true
    }
    if (text.startsWith(":")) return true
    const colon = text.indexOf(":")
    const field = colon === -1 ? text : text.slice(0, colon)
    let value = colon === -1 ? "" : text.slice(colon + 1)
    if (value.startsWith(" ")) value = value.slice(1)
    switch (field) {
      case "data":
        size += value.length + 1
        if (size > maxEventBytes) return false
        data.push(value)
        return true
      case "event":
        event = value
        return true
      case "id":
        if (!value.includes("\u0000")) lastId = value
        return true
      case "retry":
        if (/^\d+$/.test(value)) onItem({ _tag: "Retry", millis: Number(value) })
        return true
      default:
        return true
    }
  }

  /** Splits `text` at CR, LF and CRLF, keeping what follows the last line end. */
  const lines = (text: string): boolean => {
    // An empty chunk (or one that is all of a character's first bytes) says nothing about a CR's LF.
    if (text === "") return true
    let start = 0
    if (afterCr && text.startsWith("\n")) start = 1
    afterCr = false
    for (let i = start; i < text.length; i++) {
      const code = text.charCodeAt(i)
      if (code !== 10 && code !== 13) continue
      const complete = rest + text.slice(start, i)
      rest = ""
      if (complete.length > maxLine || !line(complete)) return false
      if (code === 13) {
        if (i + 1 === text.length) afterCr = true
        else if (text.charCodeAt(i + 1) === 10) i++
      }
      start = i + 1
    }
    rest += text.slice(start)
    // A line that never ends is bounded too, by the same measure as a whole line (so chunking changes nothing).
    return rest.length <= maxLine
  }

  return {
    push: (chunk) => {
      if (tooLarge) return false
      if (!lines(decoder.decode(chunk, { stream: true }))) tooLarge = true
      return !tooLarge
    },
    end: () => {
      if (tooLarge) return
      const last = rest + decoder.decode()
      rest = ""
      if (last !== "") line(last)
    }
  }
}
