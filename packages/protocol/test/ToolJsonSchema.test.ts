import { describe, expect, it } from "@effect/vitest"
import { McpSchema } from "@effect-mcp/protocol"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

const decode = Schema.decodeUnknownEither(McpSchema.Tool)

const issuePaths = (input: unknown) => {
  const decoded = decode(input)
  if (Either.isRight(decoded)) return expect.fail(`accepted ${JSON.stringify(input)}`)
  return ParseResult.ArrayFormatter.formatErrorSync(decoded.left).map((issue) => issue.path.join("."))
}

describe("a tool's JSON Schema", () => {
  it("is kept verbatim, 2020-12 keywords and $ref included, and is the very same object", () => {
    const inputSchema = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      $defs: { address: { type: "object", properties: { city: { type: "string" } } } },
      properties: { home: { $ref: "#/$defs/address" }, tags: { type: "array", prefixItems: [{ const: 1 }] } },
      required: ["home"],
      unevaluatedProperties: false
    }
    const decoded = decode({ name: "t", inputSchema })
    if (Either.isLeft(decoded)) return expect.fail(String(decoded.left))
    expect(decoded.right.inputSchema).toBe(inputSchema)
    expect(Schema.encodeSync(McpSchema.Tool)(decoded.right)).toStrictEqual({ name: "t", inputSchema })
  })

  it("names the member that breaks the rules MCP sets", () => {
    expect(issuePaths({ name: "t", inputSchema: {} })).toStrictEqual(["inputSchema.type"])
    expect(issuePaths({ name: "t", inputSchema: { type: "array" } })).toStrictEqual(["inputSchema.type"])
    expect(issuePaths({ name: "t", inputSchema: { type: "object", $schema: 7 } })).toStrictEqual([
      "inputSchema.$schema"
    ])
    expect(issuePaths({ name: "t", inputSchema: { type: "object", properties: [] } })).toStrictEqual([
      "inputSchema.properties"
    ])
    expect(issuePaths({ name: "t", inputSchema: { type: "object", properties: { a: true } } })).toStrictEqual([
      "inputSchema.properties.a"
    ])
    expect(issuePaths({ name: "t", inputSchema: { type: "object", required: "a" } })).toStrictEqual([
      "inputSchema.required"
    ])
    expect(issuePaths({ name: "t", inputSchema: { type: "object", required: ["a", 1] } })).toStrictEqual([
      "inputSchema.required.1"
    ])
    expect(issuePaths({ name: "t", inputSchema: "object" })).toStrictEqual(["inputSchema"])
    expect(issuePaths({ name: "t", inputSchema: { type: "object" }, outputSchema: { type: "string" } })).toStrictEqual([
      "outputSchema.type"
    ])
  })

  it("explains a missing type in words", () => {
    const decoded = decode({ name: "t", inputSchema: {} })
    if (Either.isRight(decoded)) return expect.fail("accepted")
    expect(ParseResult.TreeFormatter.formatErrorSync(decoded.left)).toContain("is missing")
  })
})
