/** Newline framing: whatever the chunking, the lines come back exactly; a line over the limit is refused. */
import { describe, expect, it } from "@effect/vitest"
import * as FastCheck from "effect/FastCheck"
import { LineFramer, lineText } from "../src/Framing.js"

const encoder = new TextEncoder()

const chunked = (bytes: Uint8Array, cuts: ReadonlyArray<number>): ReadonlyArray<Uint8Array> => {
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b)
  const chunks: Array<Uint8Array> = []
  let start = 0
  for (const point of [...points, bytes.length]) {
    chunks.push(bytes.subarray(start, point))
    start = point
  }
  return chunks
}

const line = FastCheck.string({ unit: "binary", maxLength: 40 }).filter((text) => !/[\n\r]/.test(text))

describe("LineFramer", () => {
  it.prop(
    "returns every line exactly, however the bytes are cut",
    [FastCheck.array(line, { maxLength: 12 }), FastCheck.array(FastCheck.nat(), { maxLength: 20 })],
    ([lines, cuts]) => {
      const bytes = encoder.encode(lines.map((text) => `${text}\n`).join(""))
      const framer = new LineFramer(1024)
      const out: Array<string> = []
      for (const chunk of chunked(bytes, cuts)) {
        const framed = framer.push(chunk)
        if (framed._tag === "Overflow") return expect.fail("unexpected overflow")
        for (const piece of framed.lines) out.push(lineText(piece))
      }
      expect(out).toStrictEqual(lines)
      expect(framer.pending).toBe(0)
    },
    { fastCheck: { numRuns: Number(process.env.PROP_RUNS ?? 25) * 8 } }
  )

  it.prop(
    "refuses a line longer than the limit, however it arrives, before storing it",
    [FastCheck.integer({ min: 1, max: 64 }), FastCheck.array(FastCheck.nat(), { maxLength: 10 })],
    ([excess, cuts]) => {
      const limit = 64
      const bytes = encoder.encode(`${"x".repeat(limit + excess)}\n`)
      const framer = new LineFramer(limit)
      const results = chunked(bytes, cuts).map((chunk) => framer.push(chunk)._tag)
      expect(results).toContain("Overflow")
      expect(framer.pending).toBeLessThanOrEqual(limit)
    }
  )

  it("drops a trailing carriage return (CRLF framing)", () => {
    const framed = new LineFramer(100).push(encoder.encode('{"a":1}\r\n'))
    expect(framed._tag === "Lines" ? framed.lines.map(lineText) : []).toStrictEqual(['{"a":1}'])
  })
})
