/**
 * The result budget as properties and examples: where texts are cut (a boundary near the limit,
 * never inside a surrogate pair, the kept part a prefix), that any output ends up within its
 * budget with one marker and its texts kept as prefixes, how structured content is summarised,
 * the marker's hint, and counting with a provider's tokenizer instead of the estimate.
 */
import * as AiError from "@effect/ai/AiError"
import * as Tokenizer from "@effect/ai/Tokenizer"
import { describe, expect, it } from "@effect/vitest"
import { TextCut } from "@effect-mcp/host"
import { McpSchema } from "@effect-mcp/protocol"
import * as Arbitrary from "effect/Arbitrary"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Schema from "effect/Schema"
import { ResultBudget, TokenEstimate, ToolOutput } from "../src/index.js"

const runs = Number(process.env.PROP_RUNS ?? 50)
const MARKER = "[… cut to fit"

const SPACE = /\s/u
const PUNCTUATION = /[\p{P}\p{S}]/u
const FULL_STOP = /[。！？]/u
const ATTACHED = /\p{M}|\u200c|\u200d|[\ufe00-\ufe0f]/u
const isHigh = (unit: number) => unit >= 0xd800 && unit <= 0xdbff
const isLow = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff

/** Texts made of the pieces that make cutting hard: words, every kind of break, emoji, marks, quotes, CJK, long runs. */
const piece = FastCheck.constantFrom(
  "word",
  "longer-word",
  "Sentence ends.",
  " ",
  "  ",
  "\n",
  "\n\n",
  "\r\n",
  "\t",
  ". ",
  ",",
  "😀",
  "e\u0301",
  "👩\u200d💻",
  "中文。",
  '"quoted"',
  "\\",
  "\u0001",
  "x".repeat(60)
)
const hardText = FastCheck.tuple(FastCheck.array(piece, { minLength: 1, maxLength: 40 }), FastCheck.nat(60)).map(
  ([pieces, times]) => pieces.join("").repeat(times + 1)
)
const anyText = FastCheck.oneof(hardText, FastCheck.string({ unit: "binary", maxLength: 400 }))

describe("where a text is cut", () => {
  it.prop(
    "the kept part fits, is a prefix ending at a boundary, and never splits a surrogate pair",
    [anyText, FastCheck.nat(3000)],
    ([text, maxBytes]) => {
      const cut = TextCut.cutFor(text, maxBytes)
      const limit = TextCut.fitPrefix(text, maxBytes)
      expect(cut).toBeLessThanOrEqual(limit)
      expect(TextCut.jsonBytes(text.slice(0, cut))).toBeLessThanOrEqual(maxBytes)
      // The whole text when it fits; else a cut at a boundary.
      if (TextCut.jsonBytes(text) <= maxBytes) {
        expect(cut).toBe(text.length)
        return
      }
      expect(isHigh(text.charCodeAt(cut - 1)) && isLow(text.charCodeAt(cut))).toBe(false)
      if (cut > 0) expect(SPACE.test(text[cut - 1] ?? "")).toBe(false)
      const from = limit - TextCut.windowOf(limit)
      const spaceInWindow = Array.from({ length: limit - from }, (_, i) => limit - i).some(
        (at) => SPACE.test(text[at] ?? "") && /\S/u.test(text.slice(0, at))
      )
      const punctuationInWindow = Array.from({ length: limit - from }, (_, i) => limit - i).some(
        (at) => PUNCTUATION.test(text[at - 1] ?? "") && !ATTACHED.test(text[at] ?? "")
      )
      // White space, or a CJK full stop (a sentence's end needing no space).
      if (spaceInWindow) expect(SPACE.test(text[cut] ?? "") || FULL_STOP.test(text[cut - 1] ?? "")).toBe(true)
      else if (punctuationInWindow) expect(PUNCTUATION.test(text[cut - 1] ?? "")).toBe(true)
      // Nothing kept splits nothing: a text that starts with a mark may be cut before it at 0.
      else if (cut > 0) expect(ATTACHED.test(text[cut] ?? "")).toBe(false)
      // A blank line within reach is preferred to any other boundary.
      const window = text.slice(Math.max(0, from), limit + 1)
      if (/\S[^\S\n]{0,30}\n[^\S\n]{0,30}\n/u.test(window)) expect(text.slice(cut)).toMatch(/^[^\S\n]*\n[^\S\n]*\n/u)
    },
    { fastCheck: { numRuns: runs * 4 } }
  )

  it("prefers a paragraph's end, then a line's, a sentence's, a word's, and keeps code points whole", () => {
    const paragraphs = `${"One two three. ".repeat(30)}\n\n${"Four five six. ".repeat(5)}`
    expect(paragraphs.slice(TextCut.boundary(paragraphs, paragraphs.length - 20))).toMatch(/^ \n\nFour/)
    const lines = `alpha beta gamma\ndelta epsilon zeta eta theta`
    expect(lines.slice(0, TextCut.boundary(lines, 30))).toBe("alpha beta gamma")
    const sentences = "The first one ends here. The second one goes on and on"
    expect(sentences.slice(0, TextCut.boundary(sentences, 50))).toBe("The first one ends here.")
    const words = "no stops in this text at all just words going on"
    expect(words.slice(0, TextCut.boundary(words, 30))).toBe("no stops in this text at all")
    const minified = `{"a":[1,2,3],"b":"${"x".repeat(100)}"}`
    expect(minified.slice(0, TextCut.boundary(minified, 13))).toBe('{"a":[1,2,3],')
    const emoji = "😀".repeat(100)
    for (const limit of [1, 2, 3, 51]) expect(TextCut.boundary(emoji, limit) % 2).toBe(0)
  })
})

/** Outputs that are often far over a small budget: long hard texts, links, media, embedded text, many rows. */
const bigOutput: FastCheck.Arbitrary<ToolOutput.ToolOutput> = FastCheck.record({
  content: FastCheck.array(
    FastCheck.oneof(
      hardText.map((text): ToolOutput.Block => ({ type: "text", text })),
      hardText.map((text): ToolOutput.Block => ({ type: "resource", uri: "file:///embedded.txt", text })),
      FastCheck.constant<ToolOutput.Block>({ type: "resource_link", uri: "file:///full.txt", name: "full" }),
      FastCheck.constant<ToolOutput.Block>({ type: "image", mimeType: "image/png", bytes: 1234 })
    ),
    { maxLength: 6 }
  ),
  structuredContent: FastCheck.option(
    FastCheck.tuple(FastCheck.nat(3000), hardText).map(([rows, note]) => ({
      note,
      rows: Array.from({ length: rows }, (_, id) => ({ id, name: `row ${id}` }))
    })),
    { nil: undefined }
  )
}).map((output) => (output.structuredContent === undefined ? { content: output.content } : output))

const anyOutput = FastCheck.oneof(
  { arbitrary: bigOutput, weight: 4 },
  {
    arbitrary: Arbitrary.make(McpSchema.CallToolResult).map((result) => ToolOutput.fromResult(result).output),
    weight: 1
  }
)

const textsOf = (output: ToolOutput.ToolOutput): Array<string> =>
  output.content.flatMap((block) =>
    (block.type === "text" || block.type === "resource") && block.text !== undefined ? [block.text] : []
  )

describe("ResultBudget.apply", () => {
  it.prop(
    "any output ends within its budget; a fitting one is untouched; a cut one has one marker and keeps prefixes",
    [anyOutput, FastCheck.integer({ min: 0, max: 4000 })],
    ([output, maxTokens]) => {
      const { output: budgeted, omitted } = ResultBudget.apply(output, { maxTokens, hint: "Ask again." })
      const budget = Math.max(maxTokens, ResultBudget.MIN_TOKENS)
      expect(ResultBudget.tokensOf(budgeted)).toBeLessThanOrEqual(budget)
      if (ResultBudget.tokensOf(output) <= budget) {
        expect(omitted).toBeUndefined()
        expect(budgeted).toBe(output)
        return
      }
      expect(omitted).toBeDefined()
      const texts = textsOf(budgeted)
      const markers = texts.filter((text) => text.startsWith(MARKER))
      expect(markers).toHaveLength(1)
      expect(markers[0]).toContain("Ask again.")
      // Every kept text is the original's, in order; only the last may be cut short.
      const kept = texts.filter((text) => !text.startsWith(MARKER))
      const original = textsOf(output)
      kept.forEach((text, index) => {
        if (index < kept.length - 1) expect(text).toBe(original[index])
        else expect(original[index]?.startsWith(text)).toBe(true)
      })
      if (omitted?.structuredContent === "kept")
        expect(budgeted.structuredContent).toStrictEqual(output.structuredContent)
    },
    { fastCheck: { numRuns: runs } }
  )

  it("summarises long arrays with their length and keeps the first items", () => {
    const rows = Array.from({ length: 5000 }, (_, id) => ({ id, name: `row ${id}` }))
    const { output, omitted } = ResultBudget.apply(
      { content: [{ type: "text", text: "5000 rows" }], structuredContent: { total: 5000, rows } },
      { maxTokens: 1000, hint: "Ask again." }
    )
    expect(omitted?.structuredContent).toBe("summarised")
    expect(output.structuredContent).toMatchObject({ total: 5000 })
    const summary = Schema.decodeUnknownSync(Schema.Struct({ rows: Schema.Array(Schema.Unknown) }))(
      output.structuredContent
    ).rows
    expect(summary.slice(0, 3)).toStrictEqual(rows.slice(0, 3))
    expect(summary.at(-1)).toBe(`[… ${(5000 - summary.length + 1).toLocaleString("en-US")} more items; 5,000 in all]`)
    expect(output.content[0]).toStrictEqual({ type: "text", text: "5000 rows" })
    expect(ToolOutput.plainText(output)).toContain("parts of the structured content")
  })

  it("states what was left out in characters and tokens, and raises tiny budgets to the minimum", () => {
    const text = "word ".repeat(10_000).trim()
    const { output, omitted } = ResultBudget.apply({ content: [{ type: "text", text }] }, { maxTokens: 10, hint: "" })
    expect(ResultBudget.tokensOf(output)).toBeLessThanOrEqual(ResultBudget.MIN_TOKENS)
    const [kept] = textsOf(output)
    expect(omitted?.characters).toBe(text.length - (kept?.length ?? 0))
    expect(omitted?.tokens).toBe(Math.ceil((text.length - (kept?.length ?? 0)) / 4))
    expect(ToolOutput.plainText(output)).toContain(`left out ${omitted?.characters.toLocaleString("en-US")} characters`)
  })

  it("leaves base64 data asked for out of the count and in the output", () => {
    const data = "A".repeat(400_000)
    const output: ToolOutput.ToolOutput = {
      content: [
        { type: "image", mimeType: "image/png", bytes: 300_000, data },
        { type: "text", text: "a picture" }
      ]
    }
    expect(ResultBudget.apply(output, { maxTokens: 300, hint: "" })).toStrictEqual({ output, omitted: undefined })
  })
})

describe("ResultBudget.hintFor", () => {
  const tool = (properties: Record<string, { readonly [keyword: string]: unknown }> = {}): McpSchema.Tool => ({
    name: "read",
    inputSchema: { type: "object", properties }
  })
  const text: ToolOutput.ToolOutput = { content: [{ type: "text", text: "long" }] }

  it("points at the result's resource link, else the tool's paging parameters, else a narrower call", () => {
    const linked: ToolOutput.ToolOutput = {
      content: [...text.content, { type: "resource_link", uri: "file:///full.txt", name: "full" }]
    }
    expect(ResultBudget.hintFor(tool({ offset: {} }), "files__read", linked)).toBe(
      "The result refers to the resource file:///full.txt: read it for the full content."
    )
    expect(ResultBudget.hintFor(tool({ path: {}, start_line: {}, maxResults: {} }), "files__read", text)).toBe(
      'Call files__read again with "start_line", "maxResults" to get the rest.'
    )
    expect(ResultBudget.hintFor(tool({ path: {} }), "files__read", text)).toBe(
      "Call files__read again with narrower arguments to get the part you need."
    )
  })
})

describe("ResultBudget.budget", () => {
  // A tokenizer four times denser than the estimate: one token per character.
  const perCharacter = Tokenizer.make({
    tokenize: (prompt) =>
      Effect.succeed(
        Array.from(
          prompt.content
            .flatMap((message) =>
              message.role === "user"
                ? message.content.flatMap((part) => (part.type === "text" ? [part.text] : []))
                : []
            )
            .join("")
        ).map((_, index) => index)
      )
  })
  const text = "Some words, and more words. ".repeat(2000)
  const output: ToolOutput.ToolOutput = { content: [{ type: "text", text }] }

  it.effect("counts with the context's tokenizer when there is one, and cuts to its counts", () =>
    Effect.gen(function* () {
      const counted = yield* ResultBudget.budget(output, { maxTokens: 1000, hint: "" }).pipe(
        Effect.provideService(Tokenizer.Tokenizer, perCharacter)
      )
      const tokens = (yield* perCharacter.tokenize(JSON.stringify(counted.output))).length
      expect(tokens).toBeLessThanOrEqual(1000)
      expect(tokens).toBeGreaterThan(700)
      // Without one, the estimate lets about four times as much through.
      const estimated = yield* ResultBudget.budget(output, { maxTokens: 1000, hint: "" })
      expect(TokenEstimate.ofJson(estimated.output)).toBeLessThanOrEqual(1000)
      expect(JSON.stringify(estimated.output).length).toBeGreaterThan(3 * JSON.stringify(counted.output).length)
    })
  )

  it.effect("falls back to the estimate when the tokenizer fails", () =>
    Effect.gen(function* () {
      const failing = Tokenizer.make({
        tokenize: () => Effect.fail(new AiError.UnknownError({ module: "Test", method: "tokenize", description: "no" }))
      })
      const result = yield* ResultBudget.budget(output, { maxTokens: 1000, hint: "" }).pipe(
        Effect.provideService(Tokenizer.Tokenizer, failing)
      )
      expect(result).toStrictEqual(ResultBudget.apply(output, { maxTokens: 1000, hint: "" }))
    })
  )
})
