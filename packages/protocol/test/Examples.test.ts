/**
 * The specification's own example messages (2026-07-28/examples, one folder per type).
 * For every type that exists in 2025-11-25, our decoder's verdict must equal the official
 * schema's: what 2025-11-25 allows decodes, what it forbids (shapes new in 2026-07-28) is
 * rejected. The rejected examples are listed so that any change is seen.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { examples, exportedSchema, oracle } from "./support/spec.js"

const spec = oracle("2025-11-25")

const asObject = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null ? { ...value } : { value }
const all = examples()
const applicable = all.filter((example) => spec.names.includes(example.type))

/** 2026-07-28 shapes that 2025-11-25 does not allow, with why. */
const newIn2026: Record<string, string> = {
  "CallToolResult/result-with-array-structured-content.json": "structuredContent may be an array only from 2026-07-28",
  "Tool/tool-with-array-output-schema.json": "outputSchema may have a non-object type only from 2026-07-28",
  "CreateMessageRequest/sampling-request.json": "2026-07-28 embeds server requests in results, without an envelope",
  "ElicitRequest/elicitation-request.json": "2026-07-28 embeds server requests in results, without an envelope",
  "ListRootsRequest/list-roots-request.json": "2026-07-28 embeds server requests in results, without an envelope",
  "ElicitRequestURLParams/elicit-sensitive-data.json": "2026-07-28 dropped the required elicitationId"
}

describe("the specification's examples", () => {
  it("has examples for 2025-11-25 types", () => {
    expect(applicable.length).toBeGreaterThanOrEqual(50)
  })

  for (const { type, file, json } of applicable) {
    const key = `${type}/${file}`
    it(`${key}: our verdict equals the official schema's`, () => {
      const schema = exportedSchema(type)
      if (schema === undefined) return expect.fail(`no schema named ${type}`)
      const officiallyValid = spec.validator(type)(json)
      const decoded = Schema.decodeUnknownEither(schema)(json)
      expect(Either.isRight(decoded)).toBe(officiallyValid)
      expect(officiallyValid).toBe(newIn2026[key] === undefined)
      if (Either.isRight(decoded)) {
        // Unknown members are tolerated and dropped; everything kept is the example's own.
        const reencoded = Schema.encodeSync(schema)(decoded.right)
        expect(spec.validator(type)(reencoded)).toBe(true)
        expect(json).toMatchObject(asObject(reencoded))
      }
    })
  }
})
