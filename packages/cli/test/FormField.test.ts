/**
 * An elicitation form's text answers are checked as the server checks them: the official SDKs
 * validate a form's answers with ajv and ajv-formats (full mode), and an answer taken here but
 * refused there loses the whole form. ajv is the oracle: whatever `checkText` takes, it takes.
 */
import { describe, expect, it } from "@effect/vitest"
import type { McpSchema } from "@effect-mcp/protocol"
import { Ajv } from "ajv"
import addFormatsModule from "ajv-formats"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import { checkText } from "../src/internal/formField.js"

// ajv-formats is CommonJS: its function is the module's default, or that default's own.
const addFormats: (ajv: Ajv) => Ajv =
  "default" in addFormatsModule ? (addFormatsModule.default as unknown as (ajv: Ajv) => Ajv) : addFormatsModule
const ajv = addFormats(new Ajv({ strict: false, validateFormats: true, allErrors: true }))

type Field = McpSchema.PrimitiveSchemaDefinition

/** Whether the server would take `value` for `field` (as a required property of the form). */
const serverTakes = (field: Field, value: unknown) =>
  ajv.validate({ type: "object", properties: { answer: field }, required: ["answer"] }, { answer: value })

const formats = ["email", "uri", "date", "date-time"] as const

const tricky: Record<(typeof formats)[number], ReadonlyArray<string>> = {
  email: [
    "ada@example.com",
    "ada.lovelace+tag@mail.example.co.uk",
    "ada@exa_mple.com",
    "ada@example..com",
    "ada..b@example.com",
    "ada@-example.com",
    "\u00e4da@example.com",
    "ada\u0015@example.com",
    "ada@example"
  ],
  uri: [
    "https://example.com/a?b=c#d",
    "urn:isbn:0451450523",
    "mailto:ada@example.com",
    "http://[::1]:8080/",
    "https://example.com/a b",
    "https://example.com/[x]",
    "https://example.com/#a#b",
    "https://example.com/%zz",
    "example.com"
  ],
  date: ["2024-02-29", "2023-02-29", "2024-13-01", "2024-1-01", "2024-01-01T00:00:00Z"],
  "date-time": [
    "2024-01-01T10:00:00Z",
    "2024-01-01t10:00:00.5+02:00",
    "2024-01-01 10:00:00-0130",
    "2024-01-01T10:00Z",
    "2024-01-01T10:00:00",
    "2024-01-01T24:00:00Z",
    "2024-02-30T10:00:00Z"
  ]
}

describe("a form's text answers, checked as the server checks them", () => {
  for (const format of formats)
    it(`format ${format}: taken here only when the server takes it, and what the server takes is taken`, () => {
      const field: Field = { type: "string", format }
      for (const text of tricky[format])
        expect([text, Either.isRight(checkText(field, text, true))]).toStrictEqual([text, serverTakes(field, text)])
    })

  it("stricter than the server only where the text is no working URI: a port that is no number", () => {
    const field: Field = { type: "string", format: "uri" }
    expect(serverTakes(field, "http://a:b:c/")).toBe(true)
    expect(checkText(field, "http://a:b:c/", true)).toStrictEqual(Either.left("enter a URI (https://example.com/…)"))
  })

  it.prop(
    "no text this check takes is refused by the server's schema",
    [
      FastCheck.constantFrom<Field>(
        { type: "string", format: "email" },
        { type: "string", format: "uri" },
        { type: "string", format: "date" },
        { type: "string", format: "date-time" },
        { type: "string", minLength: 2, maxLength: 3 },
        { type: "integer", minimum: 0, maximum: 150 },
        { type: "number", minimum: -1.5 }
      ),
      // Made of pieces of addresses, URIs and dates, so that many come close to valid.
      FastCheck.array(
        FastCheck.constantFrom(
          ..."aZ1.-_@:/?#%+!' \u00e4\u{1f600}T".split(""),
          "//",
          "%41",
          "%g",
          "[::1]",
          "[",
          "ex.com",
          "http:",
          "mailto:",
          "a@",
          "2024-02-29T",
          "2024-02-29",
          "2023-02-29",
          "10:00:00",
          "23:59:60",
          "10:00",
          "Z",
          "+01:00",
          "-0130",
          ".5",
          "42",
          "1e2",
          "0x10"
        ),
        { maxLength: 6 }
      ).map((pieces) => pieces.join(""))
    ],
    ([field, text]) => {
      const checked = checkText(field, text, true)
      if (Either.isRight(checked))
        expect([field, text, serverTakes(field, checked.right)]).toStrictEqual([field, text, true])
    },
    { fastCheck: { numRuns: Number(process.env.PROPERTY_RUNS ?? 500) } }
  )

  it("lengths are counted in characters, as JSON Schema counts them (an emoji is one)", () => {
    const field: Field = { type: "string", maxLength: 2 }
    expect(checkText(field, "\u{1f600}\u{1f600}", true)).toStrictEqual(Either.right("\u{1f600}\u{1f600}"))
    expect(serverTakes(field, "\u{1f600}\u{1f600}")).toBe(true)
  })
})
