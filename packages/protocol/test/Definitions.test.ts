/**
 * Every definition of the 2025-11-25 schema.json has a same-named Schema export, whose
 * arbitrary values survive encode → JSON text → decode and validate against the official
 * schema (JSON Schema 2020-12, with formats).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as Schema from "effect/Schema"
import { describeErrors, exportedSchema, oracle, propRuns, throughWire } from "./support/spec.js"

const spec = oracle("2025-11-25")

describe("2025-11-25 definitions", () => {
  it("has the 145 definitions of the revision", () => {
    expect(spec.names).toHaveLength(145)
  })

  it("exports a Schema of the same name for every definition", () => {
    const missing = spec.names.filter((name) => exportedSchema(name) === undefined)
    expect(missing).toEqual([])
  })

  for (const name of spec.names) {
    const schema = exportedSchema(name)
    if (schema === undefined) continue
    const validate = spec.validator(name)
    const decode = Schema.decodeUnknownSync(schema)

    it.prop(
      `${name}: encode → JSON → decode is the identity, and the wire form validates`,
      [Arbitrary.make(schema)],
      ([value]) => {
        const wire = throughWire(schema, value)
        if (!validate(wire)) expect.fail(`${name} encoded to ${JSON.stringify(wire)}\n${describeErrors(validate)}`)
        expect(decode(wire)).toStrictEqual(value)
      },
      { fastCheck: { numRuns: propRuns } }
    )
  }
})
