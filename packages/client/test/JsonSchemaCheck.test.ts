/**
 * The check a tool call makes without the JSON Schema engine (`acceptsAnyObject`): only where
 * Ajv would accept the same value, so skipping Ajv changes no verdict.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { acceptsAnyObject, withCheck } from "../src/internal/features/jsonSchema.js"

const open: ReadonlyArray<{ readonly [keyword: string]: unknown }> = [
  { type: "object" },
  { type: "object", properties: {}, required: [] },
  { type: "object", properties: {}, description: "no arguments", title: "t", $comment: "c", default: {} },
  { $schema: "http://json-schema.org/draft-07/schema#", type: "object", properties: {} },
  { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", examples: [{}], deprecated: false }
]

const constraining: ReadonlyArray<{ readonly [keyword: string]: unknown }> = [
  { type: "object", properties: { a: { type: "number" } } },
  { type: "object", required: ["a"] },
  { type: "object", additionalProperties: false },
  { type: "object", minProperties: 1 },
  { type: "object", $id: "urn:x" },
  { type: "object", properties: [] },
  { type: ["object", "null"] },
  { properties: {} },
  {}
]

const values: ReadonlyArray<unknown> = [{}, { a: 1 }, { a: "x", b: [1] }, [], null, "x", 1]

describe("acceptsAnyObject", () => {
  it.effect("says yes only for an open object schema and an object, where Ajv says valid too", () =>
    withCheck((check) =>
      Effect.sync(() => {
        for (const schema of open)
          for (const value of values) {
            const object = typeof value === "object" && value !== null && !Array.isArray(value)
            expect(acceptsAnyObject(schema, value), JSON.stringify([schema, value])).toBe(object)
            if (object) expect(check(schema, value)._tag, JSON.stringify([schema, value])).toBe("Valid")
          }
        for (const schema of constraining)
          for (const value of values) expect(acceptsAnyObject(schema, value), JSON.stringify(schema)).toBe(false)
      })
    )
  )

  it("reads what a schema constrains once per schema object, not on every call", () => {
    let reads = 0
    const counted = (schema: { readonly [keyword: string]: unknown }) =>
      new Proxy(schema, {
        ownKeys: (target) => {
          reads += 1
          return Reflect.ownKeys(target)
        }
      })
    const schemas = [counted({ type: "object", properties: {} }), counted({ type: "object", required: ["a"] })]
    for (let call = 0; call < 100; call++) for (const schema of schemas) acceptsAnyObject(schema, { a: call })
    expect(reads).toBe(schemas.length)
    expect(schemas.map((schema) => acceptsAnyObject(schema, {}))).toEqual([true, false])
  })
})
