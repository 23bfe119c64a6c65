/**
 * The pure parts of the bridge, as properties where they have laws: provider-safe tool names,
 * MCP results as the model sees them (any CallToolResult, from the protocol's Schema
 * arbitraries), and sampling requests and answers mapped to and from `@effect/ai` prompts.
 */
import * as Prompt from "@effect/ai/Prompt"
import { describe, expect, it } from "@effect/vitest"
import { McpSchema } from "@effect-mcp/protocol"
import * as Arbitrary from "effect/Arbitrary"
import * as FastCheck from "effect/FastCheck"
import * as Schema from "effect/Schema"
import { McpToolkit, SamplingModel, ToolOutput } from "../src/index.js"

const runs = Number(process.env.PROP_RUNS ?? 50)
const PROVIDER_NAME = /^[A-Za-z0-9_-]{1,64}$/

describe("McpToolkit.modelNameFor", () => {
  it.prop(
    "every name is one a provider accepts, and names stay unique",
    [FastCheck.array(FastCheck.string({ maxLength: 80 }), { maxLength: 20 })],
    ([hostNames]) => {
      const taken = new Set<string>()
      for (const hostName of hostNames) {
        const name = McpToolkit.modelNameFor(hostName, taken)
        expect(name).toMatch(PROVIDER_NAME)
        expect(taken.has(name)).toBe(false)
        taken.add(name)
      }
    },
    { fastCheck: { numRuns: runs } }
  )

  it("keeps names that are already valid, and makes clashes unique", () => {
    expect(McpToolkit.modelNameFor("alpha__echo", new Set())).toBe("alpha__echo")
    expect(McpToolkit.modelNameFor("a.b", new Set(["a_b"]))).toBe("a_b_2")
    expect(McpToolkit.modelNameFor("x".repeat(70), new Set(["x".repeat(64)]))).toBe(`${"x".repeat(62)}_2`)
  })
})

describe("ToolOutput.fromResult", () => {
  it.prop(
    "any tool result becomes a valid output with one block per content block; isError carries over",
    [Arbitrary.make(McpSchema.CallToolResult)],
    ([result]) => {
      const { output, isError } = ToolOutput.fromResult(result)
      expect(Schema.is(ToolOutput.ToolOutput)(output)).toBe(true)
      expect(output.content).toHaveLength(result.content.length)
      expect(isError).toBe(result.isError === true)
      expect(output.structuredContent).toStrictEqual(result.structuredContent)
      // Binary data stays out unless asked for.
      expect(output.content.some((block) => "data" in block)).toBe(false)
    },
    { fastCheck: { numRuns: runs } }
  )

  it("describes media and blobs by size, keeps links and texts, and includes base64 only when asked", () => {
    const png = Buffer.from("not really a png").toString("base64")
    const result: McpSchema.CallToolResult = {
      content: [
        { type: "text", text: "hello" },
        { type: "image", mimeType: "image/png", data: png },
        { type: "resource_link", uri: "file:///a.txt", name: "a", mimeType: "text/plain" },
        { type: "resource", resource: { uri: "file:///b.txt", text: "bee" } },
        { type: "resource", resource: { uri: "file:///c.bin", blob: png, mimeType: "application/octet-stream" } }
      ],
      structuredContent: { answer: 42 }
    }
    expect(ToolOutput.fromResult(result).output).toStrictEqual({
      content: [
        { type: "text", text: "hello" },
        { type: "image", mimeType: "image/png", bytes: 16 },
        { type: "resource_link", uri: "file:///a.txt", name: "a", mimeType: "text/plain" },
        { type: "resource", uri: "file:///b.txt", text: "bee" },
        { type: "resource", uri: "file:///c.bin", mimeType: "application/octet-stream", bytes: 16 }
      ],
      structuredContent: { answer: 42 }
    })
    const included = ToolOutput.fromResult(result, "include").output.content
    expect(included[1]).toMatchObject({ data: png })
    expect(included[4]).toMatchObject({ data: png })
    expect(ToolOutput.plainText(ToolOutput.fromResult(result).output)).toBe(
      "hello\n[image image/png, 16 bytes]\n[link file:///a.txt]\nbee\n[resource file:///c.bin, 16 bytes]"
    )
  })
})

describe("SamplingModel", () => {
  it("turns a sampling conversation with tool use into a prompt: system, user, assistant calls, tool results", () => {
    const prompt = SamplingModel.toPrompt({
      systemPrompt: "Be brief.",
      maxTokens: 10,
      messages: [
        { role: "user", content: { type: "text", text: "What's the weather?" } },
        { role: "assistant", content: [{ type: "tool_use", id: "u1", name: "weather", input: { city: "Oslo" } }] },
        {
          role: "user",
          content: [{ type: "tool_result", toolUseId: "u1", content: [{ type: "text", text: "rain" }], isError: false }]
        },
        { role: "user", content: { type: "image", mimeType: "image/png", data: "AAAA" } }
      ]
    })
    const encoded = Schema.encodeSync(Prompt.Prompt)(prompt)
    expect(encoded.content.map((message) => message.role)).toStrictEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "user"
    ])
    expect(encoded.content[2]).toMatchObject({
      content: [{ type: "tool-call", id: "u1", name: "weather", params: { city: "Oslo" } }]
    })
    expect(encoded.content[3]).toMatchObject({
      content: [{ type: "tool-result", id: "u1", name: "weather", isFailure: false }]
    })
    expect(encoded.content[4]).toMatchObject({ content: [{ type: "file", mediaType: "image/png" }] })
  })
})
