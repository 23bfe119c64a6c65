/**
 * The push SSE parser: the same events however the bytes are cut into chunks (across a CRLF, inside
 * a multi-byte character), every line end the standard allows, the size limit on an event and on a
 * line that never ends, and what the end of the stream keeps and drops.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import { makeParser, type SseItem } from "../src/internal/transport/sse.js"

const encoder = new TextEncoder()

/** Everything the parser calls back with for `chunks`, and whether it refused at some point. */
const parseAll = (chunks: ReadonlyArray<Uint8Array>, maxBytes = 1 << 20, end = true) => {
  const items: Array<SseItem> = []
  const parser = makeParser(maxBytes, (item) => items.push(item))
  let refused = false
  for (const chunk of chunks) {
    if (!parser.push(chunk)) {
      refused = true
      break
    }
  }
  if (end && !refused) parser.end()
  return { items, refused }
}

/** `bytes` cut at the given positions. */
const cut = (bytes: Uint8Array, at: ReadonlyArray<number>) => {
  const points = [...new Set(at.map((n) => n % (bytes.length + 1)))].sort((a, b) => a - b)
  const chunks: Array<Uint8Array> = []
  let start = 0
  for (const point of points) {
    chunks.push(bytes.subarray(start, point))
    start = point
  }
  chunks.push(bytes.subarray(start))
  return chunks
}

/** Text without line ends (any character otherwise, astral ones included). */
const lineText = FastCheck.string({ unit: "binary", maxLength: 12 }).filter((s) => !/[\r\n\0]/.test(s))

const event = FastCheck.record({
  event: FastCheck.option(
    lineText.filter((s) => s !== ""),
    { nil: undefined }
  ),
  data: FastCheck.array(lineText, { minLength: 1, maxLength: 3 }),
  id: FastCheck.option(lineText, { nil: undefined }),
  comment: FastCheck.boolean()
})

describe("SSE parser", () => {
  it.prop(
    "chunking and line ends change nothing: every event arrives whole, with the last id",
    [
      FastCheck.array(event, { minLength: 1, maxLength: 5 }),
      FastCheck.constantFrom("\n", "\r", "\r\n"),
      FastCheck.array(FastCheck.nat(), { maxLength: 12 })
    ],
    ([events, eol, at]) => {
      let text = ""
      const expected: Array<SseItem> = []
      let lastId: string | undefined
      for (const e of events) {
        if (e.comment) text += `: keep-alive${eol}`
        if (e.event !== undefined) text += `event: ${e.event}${eol}`
        if (e.id !== undefined) {
          text += `id: ${e.id}${eol}`
          lastId = e.id
        }
        for (const line of e.data) text += `data: ${line}${eol}`
        text += eol
        expected.push({ _tag: "Event", event: e.event ?? "message", data: e.data.join("\n"), id: lastId })
      }
      const bytes = encoder.encode(text)
      expect(parseAll([bytes]).items).toEqual(expected)
      expect(parseAll(cut(bytes, at)).items).toEqual(expected)
      // One byte at a time: every CRLF and every multi-byte character is split.
      expect(parseAll(cut(bytes, Array.from(bytes.keys()))).items).toEqual(expected)
    }
  )

  it.prop(
    "with a small limit, chunking changes neither the events delivered nor where the parser refuses",
    [
      FastCheck.array(FastCheck.record({ field: FastCheck.constantFrom("data", "id", "event", ""), value: lineText }), {
        maxLength: 12
      }),
      FastCheck.integer({ min: 1, max: 16 }),
      FastCheck.array(FastCheck.nat(), { maxLength: 12 })
    ],
    ([lines, maxBytes, at]) => {
      const text = lines.map(({ field, value }) => (field === "" ? "\n" : `${field}: ${value}\n`)).join("")
      const bytes = encoder.encode(text)
      const whole = parseAll([bytes], maxBytes)
      expect(parseAll(cut(bytes, at), maxBytes)).toEqual(whole)
      expect(parseAll(cut(bytes, Array.from(bytes.keys())), maxBytes)).toEqual(whole)
    }
  )

  it.effect("an empty chunk between a CR and its LF does not make the LF a second line end", () =>
    Effect.sync(() => {
      const { items } = parseAll([encoder.encode("data: a\r"), new Uint8Array(0), encoder.encode("\ndata: b\n\n")])
      expect(items).toEqual([{ _tag: "Event", event: "message", data: "a\nb", id: undefined }])
    })
  )

  it.effect("retry, fields without a colon, and ids with NUL", () =>
    Effect.sync(() => {
      const { items } = parseAll([
        encoder.encode("retry: 2500\nretry: soon\ndata\nid: a\0b\n\nid: x\ndata:no space\n\n")
      ])
      expect(items).toEqual([
        { _tag: "Retry", millis: 2500 },
        { _tag: "Event", event: "message", data: "", id: undefined },
        { _tag: "Event", event: "message", data: "no space", id: "x" }
      ])
    })
  )

  it.effect("the end of the stream takes a last line without its line end, and drops an unfinished event", () =>
    Effect.sync(() => {
      expect(parseAll([encoder.encode("data: a\n\ndata: b")]).items).toEqual([
        { _tag: "Event", event: "message", data: "a", id: undefined }
      ])
      // The last line completes an event only with its blank line.
      expect(parseAll([encoder.encode("data: a\n")]).items).toEqual([])
      // `id` on the last line without an end still counts for the stream (no event to carry it).
      expect(parseAll([encoder.encode("data: a\n\n"), encoder.encode(": bye")]).items).toHaveLength(1)
    })
  )

  it.effect("an event over the limit, or a line that never ends past it, is refused and stops the parser", () =>
    Effect.sync(() => {
      const big = parseAll([encoder.encode("data: small\n\n"), encoder.encode(`data: ${"x".repeat(40)}\n`)], 32)
      expect(big.refused).toBe(true)
      expect(big.items).toHaveLength(1)
      // Many lines, each small, add up.
      const many = parseAll([encoder.encode("data: 0123456789\n".repeat(4))], 32)
      expect(many.refused).toBe(true)
      // A line with no end arriving in pieces is bounded too.
      const endless = parseAll(
        Array.from({ length: 10 }, () => encoder.encode("yyyyyyyy")),
        32,
        false
      )
      expect(endless.refused).toBe(true)
      // Exactly at the limit is fine.
      expect(parseAll([encoder.encode(`data: ${"z".repeat(31)}\n\n`)], 32)).toEqual({
        items: [{ _tag: "Event", event: "message", data: "z".repeat(31), id: undefined }],
        refused: false
      })
    })
  )
})
