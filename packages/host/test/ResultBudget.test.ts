/**
 * A server's result budget (`maxResultBytes`) on made-up results: untouched within it; cut to it
 * with a closing note, the structured content kept when it fits its share and left out when not
 * (then `isError` when the tool's output schema promised it), blocks after the cut left out.
 */
import { describe, expect, it } from "@effect/vitest"
import * as ResultBudget from "../src/internal/resultBudget.js"

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value))
const long = "All work and no play makes Jack a dull boy. ".repeat(100)
const image = { type: "image" as const, data: "iVBORw0KGgo=", mimeType: "image/png" }

describe("the result budget", () => {
  it("leaves a result within the budget as it is", () => {
    const result = { content: [{ type: "text" as const, text: "short" }] }
    expect(ResultBudget.cut(result, 1024, false)).toBe(result)
  })

  it("cuts the text at a boundary, leaves out the blocks after it, keeps a small structured content, and says so", () => {
    const result = {
      content: [{ type: "text" as const, text: long }, image],
      structuredContent: { ok: true }
    }
    const cut = ResultBudget.cut(result, 1024, true)
    expect(bytes(cut)).toBeLessThanOrEqual(1024)
    expect(cut.structuredContent).toStrictEqual({ ok: true })
    expect(cut.isError).toBeUndefined()
    const texts = cut.content.map((block) => (block.type === "text" ? block.text : block.type))
    expect(texts).toHaveLength(2)
    expect(long.startsWith(texts[0] ?? "")).toBe(true)
    expect(texts[0]).toMatch(/boy\.$/)
    expect(texts[1]).toMatch(
      /^\[… cut to fit the server's result budget of 1,024 bytes \(maxResultBytes\): left out [\d,]+ characters of text and 1 content block, of a result of [\d,]+ bytes\]$/
    )
  })

  it("leaves out a structured content too large for its share: an error when the output schema promised it", () => {
    const result = { content: [{ type: "text" as const, text: "done" }], structuredContent: { text: long } }
    const promised = ResultBudget.cut(result, 1024, true)
    expect(bytes(promised)).toBeLessThanOrEqual(1024)
    expect(promised.structuredContent).toBeUndefined()
    expect(promised.isError).toBe(true)
    expect(promised.content.map((block) => (block.type === "text" ? block.text : ""))).toStrictEqual([
      "done",
      expect.stringMatching(/left out the structured content, of a result/)
    ])
    expect(ResultBudget.cut(result, 1024, false).isError).toBeUndefined()
  })
})
