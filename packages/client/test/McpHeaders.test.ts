/**
 * The HTTP header rules of 2026-07-28 (transports/streamable-http.mdx, "Value Encoding" and
 * "Custom Headers from Tool Parameters"): the spec's examples, then properties. Every encoded
 * value decodes back to the exact string, is plain visible ASCII, and cannot be mistaken for
 * the Base64 sentinel unless it is one; `x-mcp-header` annotations are accepted only as the
 * spec allows; `Mcp-Param-*` values leave out absent and null arguments.
 */
import { describe, expect, it } from "@effect/vitest"
import * as FastCheck from "effect/FastCheck"
import {
  encodeValue,
  nameOf,
  type ParamHeader,
  paramHeaders,
  paramHeaderValues
} from "../src/internal/transport/mcpHeaders.js"

const runs = { fastCheck: { numRuns: Number(process.env.PROP_RUNS ?? 25) * 2 } }

const PREFIX = "=?base64?"
const SUFFIX = "?="

/** What a server does with a header value, as the spec describes it: the sentinel means Base64 of UTF-8. */
const decodeHeader = (value: string): string => {
  if (!(value.startsWith(PREFIX) && value.endsWith(SUFFIX))) return value
  const inner = value.slice(PREFIX.length, value.length - SUFFIX.length)
  const binary = atob(inner)
  const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0))
  return new TextDecoder("utf-8", { fatal: true }).decode(bytes)
}

const isEncoded = (value: string) => value.startsWith(PREFIX) && value.endsWith(SUFFIX)

/** RFC 9110 field-value characters with no CR, LF, other controls or non-ASCII. */
const HEADER_VALUE = /^[\x20-\x7e\t]*$/
const BASE64_SENTINEL = /^=\?base64\?[A-Za-z0-9+/]*={0,2}\?=$/

/** Any well-formed Unicode string (whole code points, astral ones included). */
const anyString = FastCheck.oneof(
  FastCheck.string({ unit: "binary" }),
  FastCheck.string({ unit: "grapheme" }),
  FastCheck.string({
    unit: FastCheck.constantFrom(" ", "\t", "\r", "\n", "\u0000", "\u007f", "a", "=", "?", "é", "世")
  })
)

const visible = FastCheck.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code))
const inner = FastCheck.oneof(visible, FastCheck.constantFrom(" ", "\t"))
/** Plain visible ASCII with spaces and tabs only inside, not the sentinel. */
const safeString = FastCheck.tuple(visible, FastCheck.array(inner, { maxLength: 30 }), FastCheck.option(visible))
  .map(([first, middle, last]) => (last === null ? first : `${first}${middle.join("")}${last}`))
  .filter((value) => !isEncoded(value))

describe("encodeValue", () => {
  it("encodes the spec's examples exactly", () => {
    expect(encodeValue("us-west1")).toBe("us-west1")
    expect(encodeValue("Hello, 世界")).toBe("=?base64?SGVsbG8sIOS4lueVjA==?=")
    expect(encodeValue(" padded ")).toBe("=?base64?IHBhZGRlZCA=?=")
    expect(encodeValue("line1\nline2")).toBe("=?base64?bGluZTEKbGluZTI=?=")
    expect(encodeValue("=?base64?literal?=")).toBe("=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=")
  })

  it("converts integers to decimal and booleans to lowercase", () => {
    expect(encodeValue(42)).toBe("42")
    expect(encodeValue(-7)).toBe("-7")
    expect(encodeValue(0)).toBe("0")
    expect(encodeValue(true)).toBe("true")
    expect(encodeValue(false)).toBe("false")
  })

  it("encodes what has leading or trailing whitespace, controls or nothing at all", () => {
    for (const value of ["\tx", "x\t", " x", "x ", "a\r\nb", "a\u0000b", "a\u007fb", "", " ", "café"]) {
      const encoded = encodeValue(value)
      expect(isEncoded(encoded)).toBe(true)
      expect(decodeHeader(encoded)).toBe(value)
    }
    expect(encodeValue("a b\tc")).toBe("a b\tc")
  })

  it.prop(
    "round-trips: decoding the header gives back the exact string",
    [anyString],
    ([value]) => {
      expect(decodeHeader(encodeValue(value))).toBe(value)
    },
    runs
  )

  it.prop(
    "never puts CR, LF, another control or a non-ASCII character in a header",
    [anyString],
    ([value]) => {
      const encoded = encodeValue(value)
      expect(encoded).toMatch(HEADER_VALUE)
      // Either the value itself (then it is safe) or the sentinel around Base64, nothing in between.
      if (encoded !== value) expect(encoded).toMatch(BASE64_SENTINEL)
      expect(encoded).not.toMatch(/^[ \t]|[ \t]$/)
    },
    runs
  )

  it.prop(
    "leaves safe strings plain",
    [safeString],
    ([value]) => {
      expect(encodeValue(value)).toBe(value)
    },
    runs
  )

  it.prop(
    "encodes values that look like the sentinel",
    [safeString, FastCheck.boolean()],
    ([middle, empty]) => {
      const value = `${PREFIX}${empty ? "" : middle}${SUFFIX}`
      const encoded = encodeValue(value)
      expect(encoded).not.toBe(value)
      expect(encoded).toMatch(BASE64_SENTINEL)
      expect(decodeHeader(encoded)).toBe(value)
    },
    runs
  )

  it.prop(
    "integers (in the safe range) are their decimal text, plain",
    [FastCheck.maxSafeInteger()],
    ([value]) => {
      expect(encodeValue(value)).toBe(String(value))
      expect(encodeValue(value)).toMatch(/^-?\d+$/)
    },
    runs
  )

  // "=?base64?=" starts with `=?base64?` and ends with `?=` (the two markers share its "?"), so
  // it matches the spec's sentinel pattern and must be encoded: sent plain, a server decodes it as "".
  it("encodes a value whose sentinel markers overlap (=?base64?=)", () => {
    const value = "=?base64?="
    expect(encodeValue(value)).toBe("=?base64?PT9iYXNlNjQ/PQ==?=")
    expect(decodeHeader(encodeValue(value))).toBe(value)
  })
})

describe("nameOf", () => {
  it("is the tool or prompt name or the resource URI, encoded; nothing for other methods", () => {
    expect(nameOf("tools/call", { name: "get_weather" })).toBe("get_weather")
    expect(nameOf("prompts/get", { name: "Hello, 世界" })).toBe("=?base64?SGVsbG8sIOS4lueVjA==?=")
    expect(nameOf("resources/read", { uri: "file:///projects/myapp/config.json" })).toBe(
      "file:///projects/myapp/config.json"
    )
    expect(nameOf("resources/read", { name: "x" })).toBeUndefined()
    expect(nameOf("tools/call", { uri: "x" })).toBeUndefined()
    expect(nameOf("tools/call", { name: 5 })).toBeUndefined()
    expect(nameOf("tools/call", undefined)).toBeUndefined()
    expect(nameOf("tools/list", { name: "x" })).toBeUndefined()
  })

  it.prop(
    "round-trips any name",
    [anyString, FastCheck.constantFrom("tools/call", "prompts/get")],
    ([name, method]) => {
      const header = nameOf(method, { name })
      expect(header).toBeDefined()
      expect(decodeHeader(header ?? "")).toBe(name)
    },
    runs
  )
})

// --- x-mcp-header annotations -------------------------------------------------------------

type Schema = { readonly [keyword: string]: unknown }
type Primitive = "string" | "integer" | "boolean"
interface Annotated {
  readonly name: string
  readonly path: ReadonlyArray<string>
  readonly type: Primitive
}

/** RFC 9110 tchar. */
const TCHAR = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
const token = FastCheck.string({ unit: FastCheck.constantFrom(...TCHAR), minLength: 1, maxLength: 12 })
/** Property names, including ones that are JSON Schema keywords (still a chain of `properties`). */
const propertyName = FastCheck.oneof(
  FastCheck.string({ maxLength: 8 }),
  FastCheck.constantFrom("items", "oneOf", "anyOf", "allOf", "$ref", "not", "properties", "x-mcp-header", "$defs")
)

/** Annotations with distinct names (ignoring case), each at its own path through `properties`. */
const annotations: FastCheck.Arbitrary<ReadonlyArray<Annotated>> = FastCheck.uniqueArray(
  FastCheck.record({
    name: token,
    nested: FastCheck.array(propertyName, { maxLength: 3 }),
    type: FastCheck.constantFrom<Primitive>("string", "integer", "boolean")
  }),
  { maxLength: 5, selector: (entry) => entry.name.toLowerCase() }
).map((entries) => entries.map(({ name, nested, type }, index) => ({ name, type, path: [`p${index}`, ...nested] })))

/** Puts `leaf` at `path` through `properties` (objects on the way). */
const place = (schema: Schema, path: ReadonlyArray<string>, leaf: Schema): Schema => {
  const [head, ...rest] = path
  if (head === undefined) return leaf
  const properties = (schema.properties ?? {}) as Schema
  const child = (properties[head] ?? { type: "object" }) as Schema
  return { ...schema, type: "object", properties: { ...properties, [head]: place(child, rest, leaf) } }
}

const schemaOf = (entries: ReadonlyArray<Annotated>, base: Schema = { type: "object" }): Schema =>
  entries.reduce(
    (schema, entry) => place(schema, entry.path, { type: entry.type, "x-mcp-header": entry.name, description: "d" }),
    base
  )

/** One defect the spec says makes the tool definition invalid. */
type Defect = (schema: Schema, taken: ReadonlyArray<Annotated>) => Schema
const defects: Record<string, Defect> = {
  empty: (schema) => place(schema, ["bad"], { type: "string", "x-mcp-header": "" }),
  "not a token (space)": (schema) => place(schema, ["bad"], { type: "string", "x-mcp-header": "Two Words" }),
  "not a token (colon)": (schema) => place(schema, ["bad"], { type: "string", "x-mcp-header": "A:B" }),
  "not a token (CRLF)": (schema) => place(schema, ["bad"], { type: "string", "x-mcp-header": "A\r\nX-Evil: 1" }),
  "not a token (non-ASCII)": (schema) => place(schema, ["bad"], { type: "string", "x-mcp-header": "Grüße" }),
  "not a string": (schema) => place(schema, ["bad"], { type: "string", "x-mcp-header": 7 }),
  "duplicate ignoring case": (schema, taken) => {
    const first = taken[0]
    const name = first === undefined ? "Dup" : first.name
    const once = first === undefined ? place(schema, ["dup"], { type: "string", "x-mcp-header": name }) : schema
    const swapped = name === name.toUpperCase() ? name.toLowerCase() : name.toUpperCase()
    return place(once, ["bad"], { type: "string", "x-mcp-header": swapped })
  },
  "type number": (schema) => place(schema, ["bad"], { type: "number", "x-mcp-header": "Bad" }),
  "type object": (schema) => place(schema, ["bad"], { type: "object", "x-mcp-header": "Bad" }),
  "type array": (schema) => place(schema, ["bad"], { type: "array", "x-mcp-header": "Bad" }),
  "type null": (schema) => place(schema, ["bad"], { type: "null", "x-mcp-header": "Bad" }),
  "no type": (schema) => place(schema, ["bad"], { "x-mcp-header": "Bad" }),
  "under items": (schema) =>
    place(schema, ["bad"], { type: "array", items: { type: "string", "x-mcp-header": "Bad" } }),
  "under items, nested": (schema) =>
    place(schema, ["bad"], {
      type: "array",
      items: { type: "object", properties: { x: { type: "string", "x-mcp-header": "Bad" } } }
    }),
  "under oneOf": (schema) => place(schema, ["bad"], { oneOf: [{ type: "string", "x-mcp-header": "Bad" }] }),
  "under anyOf": (schema) =>
    place(schema, ["bad"], { anyOf: [{ type: "integer" }, { type: "string", "x-mcp-header": "Bad" }] }),
  "under allOf": (schema) => place(schema, ["bad"], { allOf: [{ type: "string", "x-mcp-header": "Bad" }] }),
  "under not": (schema) => place(schema, ["bad"], { not: { type: "string", "x-mcp-header": "Bad" } }),
  "under if/else": (schema) =>
    place(schema, ["bad"], { if: { type: "string" }, else: { type: "string", "x-mcp-header": "Bad" } }),
  "behind $ref": (schema) => ({
    ...place(schema, ["bad"], { $ref: "#/$defs/Bad" }),
    $defs: { Bad: { type: "string", "x-mcp-header": "Bad" } }
  }),
  "under a root-level composition": (schema) => ({
    ...schema,
    allOf: [{ type: "object", properties: { bad: { type: "string", "x-mcp-header": "Bad" } } }]
  })
}

describe("paramHeaders", () => {
  it("accepts the spec's example", () => {
    expect(
      paramHeaders({
        type: "object",
        properties: {
          region: { type: "string", description: "The region", "x-mcp-header": "Region" },
          query: { type: "string" }
        },
        required: ["region", "query"]
      })
    ).toStrictEqual({ _tag: "Valid", headers: [{ name: "Region", path: ["region"] }] })
  })

  it.prop(
    "accepts string/integer/boolean annotations reached through properties alone, and finds them all",
    [annotations],
    ([entries]) => {
      const verdict = paramHeaders(schemaOf(entries))
      if (verdict._tag !== "Valid") return expect.fail(verdict.reason)
      const byName = (a: ParamHeader, b: ParamHeader) => a.name.localeCompare(b.name)
      expect([...verdict.headers].sort(byName)).toStrictEqual(
        entries.map(({ name, path }) => ({ name, path })).sort(byName)
      )
    },
    runs
  )

  for (const [kind, defect] of Object.entries(defects)) {
    it.prop(
      `rejects an annotation that is ${kind}, beside valid ones`,
      [annotations],
      ([entries]) => {
        const verdict = paramHeaders(defect(schemaOf(entries), entries))
        expect(verdict._tag).toBe("Invalid")
      },
      { fastCheck: { numRuns: 10 } }
    )
  }

  // The spec (streamable-http.mdx, Schema Extension): an annotation "anywhere else" than a chain
  // of `properties` keys makes the tool definition invalid, wherever the walk finds it
  // (additionalProperties, patternProperties, contains, dependentSchemas, the root object).
  for (const [kind, schema, where] of [
    [
      "additionalProperties",
      { type: "object", additionalProperties: { type: "string", "x-mcp-header": "Bad" } },
      "additionalProperties"
    ],
    [
      "patternProperties",
      { type: "object", patternProperties: { "^a": { type: "string", "x-mcp-header": "Bad" } } },
      "patternProperties.^a"
    ],
    [
      "contains",
      {
        type: "object",
        properties: { list: { type: "array", contains: { type: "string", "x-mcp-header": "Bad" } } }
      },
      "list.contains"
    ],
    [
      "dependentSchemas",
      {
        type: "object",
        dependentSchemas: { a: { properties: { b: { type: "string", "x-mcp-header": "Bad" } } } }
      },
      "dependentSchemas.a.b"
    ],
    ["the root", { type: "object", "x-mcp-header": "Root", properties: {} }, "the schema itself"]
  ] as const) {
    it(`rejects an annotation under ${kind}, naming where it is`, () => {
      const verdict = paramHeaders(schema)
      expect(verdict._tag).toBe("Invalid")
      expect(verdict._tag === "Invalid" && verdict.reason.split("; ")[0]).toBe(
        `x-mcp-header on ${where} is not reached through properties alone`
      )
    })
  }
})

describe("paramHeaderValues", () => {
  /** What an argument at an annotated path is: absent, null, a value, or blocked by a non-object on the way. */
  type Slot =
    | { readonly _tag: "absent" }
    | { readonly _tag: "null" }
    | { readonly _tag: "value"; readonly value: string | number | boolean }
    | { readonly _tag: "blocked"; readonly by: unknown }

  const valueFor = (type: Primitive): FastCheck.Arbitrary<string | number | boolean> =>
    type === "string" ? anyString : type === "integer" ? FastCheck.maxSafeInteger() : FastCheck.boolean()

  const slot = (entry: Annotated): FastCheck.Arbitrary<Slot> =>
    FastCheck.oneof(
      FastCheck.constant<Slot>({ _tag: "absent" }),
      FastCheck.constant<Slot>({ _tag: "null" }),
      valueFor(entry.type).map((value): Slot => ({ _tag: "value", value })),
      FastCheck.constantFrom(null, "text", 3, [], [{}]).map((by): Slot => ({ _tag: "blocked", by }))
    )

  /** Arguments holding each slot at its path (a blocked slot puts a non-object where an object belongs). */
  const argsOf = (entries: ReadonlyArray<Annotated>, slots: ReadonlyArray<Slot>) => {
    let args: Schema = {}
    const set = (target: Schema, path: ReadonlyArray<string>, value: unknown): Schema => {
      const [head, ...rest] = path
      if (head === undefined) return target
      if (rest.length === 0) return { ...target, [head]: value }
      const child = target[head]
      const next = typeof child === "object" && child !== null && !Array.isArray(child) ? (child as Schema) : {}
      return { ...target, [head]: set(next, rest, value) }
    }
    entries.forEach((entry, index) => {
      const s = slots[index]
      if (s === undefined || s._tag === "absent") return
      if (s._tag === "null") args = set(args, entry.path, null)
      else if (s._tag === "value") args = set(args, entry.path, s.value)
      // A non-object where the path needs an object; at a top-level path, an array (no primitive).
      else args = set(args, [entry.path[0] ?? "p"], entry.path.length > 1 ? s.by : [s.by])
    })
    return args
  }

  it("carries the spec's example and omits absent or null values", () => {
    const headers = [{ name: "Region", path: ["region"] }]
    expect(paramHeaderValues(headers, { region: "us-west1", query: "SELECT 1" })).toStrictEqual({
      "mcp-param-region": "us-west1"
    })
    expect(paramHeaderValues(headers, { query: "SELECT 1" })).toStrictEqual({})
    expect(paramHeaderValues(headers, { region: null })).toStrictEqual({})
    expect(paramHeaderValues(headers, undefined)).toStrictEqual({})
    expect(paramHeaderValues([{ name: "N", path: ["a", "b"] }], { a: { b: 42 } })).toStrictEqual({
      "mcp-param-n": "42"
    })
    expect(paramHeaderValues([{ name: "F", path: ["f"] }], { f: false })).toStrictEqual({ "mcp-param-f": "false" })
  })

  it.prop(
    "has a header for each present, non-null argument (encoded), and none for the others",
    [
      annotations.chain((entries) =>
        FastCheck.tuple(FastCheck.constant(entries), FastCheck.tuple(...entries.map(slot)))
      )
    ],
    ([[entries, slots]]) => {
      // Every path has its own first step (p0, p1, …), so slots never disturb each other.
      const args = argsOf(entries, slots)
      const headers = entries.map(({ name, path }) => ({ name, path }))
      const expected: Record<string, string> = {}
      entries.forEach((entry, index) => {
        const s = slots[index]
        if (s?._tag !== "value") return
        expected[`mcp-param-${entry.name.toLowerCase()}`] = encodeValue(s.value)
      })
      expect(paramHeaderValues(headers, args)).toStrictEqual(expected)
    },
    runs
  )
})
