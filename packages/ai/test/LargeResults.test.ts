/**
 * Results far too large for a model, from a real stdio server (`fixtures/flood-server.mjs`):
 * megabytes of prose, minified JSON, a line of emoji, 30,000 structured rows, a huge text with
 * a resource link, and one from a tool that pages. The scripted model checks that each result
 * it receives is within the budget, cut at a boundary of the server's own text, and ends with
 * a marker that says how to get the rest.
 */
import { fileURLToPath } from "node:url"
import type * as Prompt from "@effect/ai/Prompt"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it } from "@effect/vitest"
import { Transports } from "@effect-mcp/client"
import { McpHost } from "@effect-mcp/host"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { keepAliveHttpClient } from "../../client/test/support/httpClient.js"
import { stdio } from "../../host/test/support/targets.js"
import { McpToolkit, ResultBudget, TokenEstimate, ToolLoop, ToolOutput } from "../src/index.js"
import { scriptedModel } from "./support/scriptedModel.js"

const floodServer = fileURLToPath(new URL("./fixtures/flood-server.mjs", import.meta.url))
const MARKER = "[… cut to fit"
const TOOLS = ["report", "minified", "emoji", "rows", "linked", "paged"] as const

const host = McpHost.layer({ servers: [{ name: "flood", target: stdio(floodServer) }] }).pipe(
  Layer.provide(Transports.layer),
  Layer.provide(Layer.merge(NodeContext.layer, keepAliveHttpClient))
)

const decodeOutput = Schema.decodeUnknownSync(ToolOutput.ToolOutput)
const Rows = Schema.Struct({ total: Schema.Number, rows: Schema.Array(Schema.Unknown) })

/** A result as the model got it: the JSON text the provider sends, and the output. */
interface Seen {
  readonly json: string
  readonly output: ToolOutput.ToolOutput
}

/** The results of the last tool message, by tool name. */
const results = (prompt: Prompt.Prompt): Map<string, Seen> => {
  const message = [...prompt.content].reverse().find((candidate) => candidate.role === "tool")
  if (message?.role !== "tool") return new Map()
  return new Map(
    message.content.map((part): [string, Seen] => [
      part.name,
      { json: JSON.stringify(part.result), output: decodeOutput(part.result) }
    ])
  )
}

const texts = (output: ToolOutput.ToolOutput) =>
  output.content.flatMap((block) => (block.type === "text" ? [block.text] : []))

/** The server's own full text of a tool's first block. */
const fullText = (tool: string) =>
  Effect.flatMap(McpHost.McpHost, (mcpHost) => mcpHost.callTool(`flood__${tool}`, {})).pipe(
    Effect.map((result) => (result.content[0]?.type === "text" ? result.content[0].text : ""))
  )

describe("results sized for a model", () => {
  it.live("each huge result reaches the model within its budget, cut at a boundary, with a marker", () => {
    const seen = new Map<string, Seen>()
    const model = scriptedModel({
      turns: [
        () => ({ calls: TOOLS.map((tool) => ({ name: `flood__${tool}`, params: {} })) }),
        (request) => {
          for (const [name, result] of results(request.prompt)) seen.set(name, result)
          return { text: "That was a lot." }
        }
      ]
    })
    return Effect.gen(function* () {
      const outcome = yield* ToolLoop.run({ prompt: "Fetch everything", maxResultTokens: 2000 })
      expect(outcome.text).toBe("That was a lot.")
      expect([...seen.keys()].sort()).toStrictEqual(TOOLS.map((tool) => `flood__${tool}`).sort())
      for (const [name, { json, output }] of seen) {
        // What the provider sends, within the budget, and most of the budget used.
        expect(TokenEstimate.ofText(json), name).toBeLessThanOrEqual(2000)
        expect(TokenEstimate.ofText(json), name).toBeGreaterThan(1500)
        expect(
          texts(output).filter((text) => text.startsWith(MARKER)),
          name
        ).toHaveLength(1)
      }
      const kept = (tool: string) => texts(seen.get(`flood__${tool}`)?.output ?? { content: [] })
      const marker = (tool: string) => kept(tool).find((text) => text.startsWith(MARKER)) ?? ""

      // Prose: a prefix of the server's text, ending at a paragraph.
      const report = yield* fullText("report")
      const [prose = ""] = kept("report")
      expect(report.startsWith(prose)).toBe(true)
      expect(report.slice(prose.length)).toMatch(/^\n\nParagraph \d+\. /)
      expect(marker("report")).toContain(
        `left out ${(report.length - prose.length).toLocaleString("en-US")} characters`
      )
      expect(marker("report")).toContain("Call flood__report again with narrower arguments")

      // Minified JSON, no white space at all: after a punctuation mark.
      const minified = yield* fullText("minified")
      const [json = ""] = kept("minified")
      expect(minified.startsWith(json)).toBe(true)
      expect(json).toMatch(/[\p{P}\p{S}]$/u)

      // Emoji only: whole code points.
      const [emoji = ""] = kept("emoji")
      expect(emoji.length % 2).toBe(0)
      expect((yield* fullText("emoji")).startsWith(emoji)).toBe(true)

      // Structured rows: the first rows and the array's length; the text cut too.
      const rows = Schema.decodeUnknownSync(Rows)(seen.get("flood__rows")?.output.structuredContent)
      expect(rows.total).toBe(30000)
      expect(rows.rows[0]).toStrictEqual({ id: 0, name: "row-0", tags: ["a", "b"] })
      expect(rows.rows.at(-1)).toMatch(/^\[… [\d,]+ more items; 30,000 in all\]$/)
      expect(marker("rows")).toContain("parts of the structured content")

      // A link to the whole, kept, and named in the marker; a paging tool's parameters named.
      expect(seen.get("flood__linked")?.output.content.at(-1)).toMatchObject({
        type: "resource_link",
        uri: "flood://report/full"
      })
      expect(marker("linked")).toContain(
        "The result refers to the resource flood://report/full: read it for the full content."
      )
      expect(marker("paged")).toContain('Call flood__paged again with "offset", "limit" to get the rest.')
    }).pipe(Effect.provide(Layer.mergeAll(McpToolkit.layer().pipe(Layer.provideMerge(host)), model.layer)))
  })

  it.live("the toolkit's budget is 8,000 tokens by default, configurable, and can be lifted per call", () =>
    Effect.gen(function* () {
      const toolkit = yield* McpToolkit.McpToolkit
      const byDefault = yield* toolkit.call("flood__report", {})
      expect(ResultBudget.tokensOf(byDefault.output)).toBeLessThanOrEqual(ResultBudget.DEFAULT_MAX_TOKENS)
      expect(ResultBudget.tokensOf(byDefault.output)).toBeGreaterThan(ResultBudget.DEFAULT_MAX_TOKENS - 500)
      expect(byDefault.omitted).toMatchObject({ blocks: 0, structuredContent: "kept" })
      const whole = yield* toolkit.call("flood__report", {}, { maxResultTokens: "unlimited" })
      expect(whole.omitted).toBeUndefined()
      expect(texts(whole.output)[0]).toBe(yield* fullText("report"))

      const small = McpToolkit.make(yield* McpHost.McpHost, { maxResultTokens: 500 })
      const cut = yield* small.call("flood__linked", {})
      expect(ResultBudget.tokensOf(cut.output)).toBeLessThanOrEqual(500)
      expect(cut.isError).toBe(false)
    }).pipe(Effect.provide(McpToolkit.layer().pipe(Layer.provideMerge(host))))
  )
})
