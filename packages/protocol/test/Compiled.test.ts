/**
 * The compiled codecs against the Schema parser they stand for: for every Schema the package
 * exports, on generated valid values and on those values broken in random places, a compiled
 * check vouches for a value exactly when the parser accepts it, with the same value (members in
 * the same order); and the codec's outcome, error included, is the parser's.
 */
import { describe, expect, it } from "@effect/vitest"
import { McpApps, McpSchema, Methods, Skills } from "@effect-mcp/protocol"
import * as Arbitrary from "effect/Arbitrary"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Compiled from "../src/internal/compiled.js"
import { propRuns } from "./support/spec.js"

const schemasOf = (module: Record<string, unknown>, prefix: string) =>
  Object.entries(module).flatMap(([name, value]) =>
    Schema.isSchema(value) ? [[`${prefix}.${name}`, value as Schema.Schema<unknown, unknown, never>] as const] : []
  )

/** What the method table holds for a request method. */
interface TableEntry {
  readonly params: unknown
  readonly result: unknown
  readonly stateless?: { readonly params?: unknown; readonly result?: unknown }
}

/** The method table's definitions, each era's, as roots (some are only a field of an exported schema). */
const tableSchemas = [
  ...Object.entries(Methods.requests).flatMap(([method, entry]: readonly [string, TableEntry]) =>
    schemasOf(
      {
        params: entry.params,
        result: entry.result,
        statelessParams: entry.stateless?.params,
        statelessResult: entry.stateless?.result
      },
      method
    )
  ),
  ...Object.entries(Methods.notifications).flatMap(([method, entry]) => schemasOf({ params: entry.params }, method))
]

const schemas = [
  ...schemasOf(McpSchema, "McpSchema"),
  ...schemasOf(McpApps, "McpApps"),
  ...schemasOf(Skills, "Skills"),
  ...tableSchemas
]

/**
 * A value with every member listed in order (and a prototype other than a plain object's), so
 * that equal forms mean the same JSON text and the same value.
 */
const ordered = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(ordered)
  if (typeof value !== "object" || value === null) return value
  const members: Array<unknown> = Reflect.ownKeys(value).map((key) => [
    key,
    ordered((value as Record<PropertyKey, unknown>)[key])
  ])
  const prototype: unknown = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
    ? members
    : [...members, ["[[Prototype]]", ordered(prototype)]]
}

/** Where a value is broken: the n-th node in depth-first order, and what is done there. */
type Break =
  | { readonly _tag: "Set"; readonly at: number; readonly key: string; readonly value: unknown }
  | { readonly _tag: "Delete"; readonly at: number; readonly key: number }
  | { readonly _tag: "Replace"; readonly at: number; readonly value: unknown }

const keys = FastCheck.constantFrom(
  "type",
  "name",
  "text",
  "uri",
  "_meta",
  "id",
  "result",
  "content",
  "x",
  "0",
  "tools"
)
const junk = FastCheck.oneof(
  FastCheck.jsonValue({ maxDepth: 2 }),
  FastCheck.constantFrom(undefined, null, "text", "image", "resource", "2.0", 1.5, -1, true, [], {})
)
const breakArbitrary: FastCheck.Arbitrary<Break> = FastCheck.oneof(
  FastCheck.record({ _tag: FastCheck.constant("Set" as const), at: FastCheck.nat(40), key: keys, value: junk }),
  FastCheck.record({ _tag: FastCheck.constant("Delete" as const), at: FastCheck.nat(40), key: FastCheck.nat(8) }),
  FastCheck.record({ _tag: FastCheck.constant("Replace" as const), at: FastCheck.nat(40), value: junk })
)

const containers = (value: unknown): Array<object> => {
  const found: Array<object> = []
  const visit = (node: unknown) => {
    if (typeof node !== "object" || node === null) return
    found.push(node)
    for (const child of Object.values(node)) visit(child)
  }
  visit(value)
  return found
}

/** A copy of a JSON value with one thing broken (or the value itself replaced). */
const broken = (value: unknown, change: Break): unknown => {
  const copy: unknown = value === undefined ? undefined : structuredClone(value)
  const nodes = containers(copy)
  if (change._tag === "Replace" && (nodes.length === 0 || change.at % (nodes.length + 1) === nodes.length)) {
    return change.value
  }
  const node = nodes[change.at % Math.max(nodes.length, 1)]
  if (node === undefined) return copy
  const record = node as Record<string, unknown>
  const members = Object.keys(record)
  switch (change._tag) {
    case "Set":
      record[Array.isArray(node) ? String(change.at % (members.length + 1)) : change.key] = change.value
      break
    case "Delete": {
      const key = members[change.key % Math.max(members.length, 1)]
      if (key !== undefined) {
        if (Array.isArray(node)) node.splice(Number(key), 1)
        else delete record[key]
      }
      break
    }
    case "Replace": {
      const key = members[change.at % Math.max(members.length, 1)]
      if (key !== undefined) record[key] = change.value
      break
    }
  }
  return copy
}

/**
 * The compiled check agrees with the parser on `input` (vouching for its value, refusing it, or,
 * unless `sure`, leaving it to the parser), and the codec gives the parser's outcome.
 */
const agrees = <A, I>(
  direction: "decode" | "encode",
  schema: Schema.Schema<A, I, never>,
  input: unknown,
  sure = true
) => {
  const expected: Either.Either<unknown, ParseResult.ParseError> =
    direction === "decode" ? Schema.decodeUnknownEither(schema)(input) : Schema.encodeUnknownEither(schema)(input)
  const vouched = Compiled.check(schema.ast, direction)(input)
  if (sure) expect(vouched).not.toBe(Compiled.Unsure)
  if (Either.isRight(expected)) {
    expect(vouched).not.toBe(Compiled.Invalid)
    if (vouched !== Compiled.Unsure) expect(ordered(vouched)).toStrictEqual(ordered(expected.right))
  } else {
    expect(vouched === Compiled.Invalid || vouched === Compiled.Unsure).toBe(true)
  }
  const outcome: Either.Either<unknown, ParseResult.ParseError> =
    direction === "decode" ? Compiled.decoder(schema)(input) : Compiled.encoder(schema)(input)
  if (Either.isRight(expected)) expect(Either.isRight(outcome)).toBe(true)
  else expect(Either.isLeft(outcome) && outcome.left.message).toBe(expected.left.message)
}

const wireOf = (schema: Schema.Schema<unknown, unknown, never>, value: unknown): unknown => {
  const encoded = Schema.encodeUnknownEither(schema)(value)
  if (Either.isLeft(encoded)) return undefined
  const text = JSON.stringify(encoded.right)
  return text === undefined ? undefined : JSON.parse(text)
}

describe("compiled codecs", () => {
  it("cover the package's schemas", () => {
    expect(schemas.length).toBeGreaterThan(200)
  })

  for (const [name, schema] of schemas) {
    const arbitrary = Arbitrary.make(schema)
    it.prop(
      `${name}: decoding the wire form of a valid value, and of it broken`,
      [arbitrary, FastCheck.array(breakArbitrary, { maxLength: 3 })],
      ([value, changes]) => {
        const wire = wireOf(schema, value)
        agrees("decode", schema, wire)
        agrees("decode", schema, changes.reduce(broken, wire))
      },
      { fastCheck: { numRuns: propRuns } }
    )
    it.prop(
      `${name}: encoding a valid value, and it broken`,
      [arbitrary, breakArbitrary],
      ([value, change]) => {
        agrees("encode", schema, value)
        agrees("encode", schema, broken(value, change))
      },
      { fastCheck: { numRuns: propRuns } }
    )
  }

  it("decode members in the order declared, drop unknown ones and keep optional ones absent", () => {
    const decode = Compiled.decoder(McpSchema.CallToolResult)
    const input = { isError: false, extra: 1, content: [{ text: "hi", type: "text", more: true }] }
    const decoded = Either.getOrThrow(decode(input))
    expect(Object.keys(decoded)).toEqual(["content", "isError"])
    expect(decoded.content[0]).toStrictEqual({ type: "text", text: "hi" })
    expect(Object.hasOwn(decoded, "structuredContent")).toBe(false)
  })

  it("refuse what the parser refuses, with the parser's error", () => {
    const decode = Compiled.decoder(McpSchema.CallToolResult)
    const input = { content: [{ type: "text", text: 1 }] }
    const outcome = decode(input)
    const expected = Schema.decodeUnknownEither(McpSchema.CallToolResult)(input)
    expect(Either.isLeft(outcome) && Either.isLeft(expected) && outcome.left.message === expected.left.message).toBe(
      true
    )
    expect(Either.isLeft(decode({ content: [{ type: "text", text: "x", annotations: { priority: 2 } }] }))).toBe(true)
    expect(Either.isLeft(decode({ content: [], structuredContent: [] }))).toBe(true)
    expect(Either.isLeft(decode({ content: [], isError: undefined }))).toBe(true)
  })

  it("take a union's member by its literal, else the first that accepts", () => {
    const decode = Compiled.decoder(McpSchema.EmbeddedResource)
    const both = { type: "resource", resource: { uri: "a", text: "t", blob: "b" } }
    expect(Either.getOrThrow(decode(both)).resource).toStrictEqual({ uri: "a", text: "t" })
    expect(Either.isLeft(decode({ type: "image", resource: { uri: "a", text: "t" } }))).toBe(true)
  })

  it("keep the members an index signature admits, and check declared members against it too", () => {
    const Headers = Schema.Struct(
      { name: Schema.String },
      Schema.Record({ key: Schema.String.pipe(Schema.startsWith("x-")), value: Schema.String })
    )
    const decode = Compiled.decoder(Headers)
    expect(Either.getOrThrow(decode({ name: "a", other: 1, "x-one": "1" }))).toStrictEqual({ name: "a", "x-one": "1" })
    expect(Either.isLeft(decode({ name: "a", "x-one": 1 }))).toBe(true)
    agrees("decode", Headers, { name: "a", other: 1, "x-one": "1" })
  })

  it("pick a union's member as the parser does when encoding, by the literal of its type side", () => {
    const A = Schema.transform(Schema.String, Schema.Literal("a"), {
      strict: true,
      decode: () => "a" as const,
      encode: () => "x"
    })
    const Members = Schema.Union(Schema.Tuple(Schema.String), Schema.Tuple(A))
    expect(Either.getOrThrow(Compiled.encoder(Members)(["a"]))).toStrictEqual(["x"])
    agrees("encode", Members, ["a"])
  })

  it("leave a value to the parser when a declaration answers with an effect", () => {
    const Tagged = Schema.declare([], {
      decode: () => (input, _, ast) =>
        typeof input === "string" ? Effect.succeed({ tagged: input }) : Effect.fail(new ParseResult.Type(ast, input)),
      encode: () => (input) => Effect.succeed(input)
    })
    const TaggedOrText = Schema.Union(Tagged, Schema.String)
    expect(Compiled.check(TaggedOrText.ast, "decode")("hi")).toBe(Compiled.Unsure)
    expect(Either.getOrThrow(Compiled.decoder(TaggedOrText)("hi"))).toStrictEqual({ tagged: "hi" })
    agrees("decode", TaggedOrText, "hi", false)
    const Filed = Schema.Union(
      Schema.Struct({ type: Schema.Literal("a"), value: Tagged }),
      Schema.Struct({ type: Schema.Literal("a"), value: Schema.String })
    )
    agrees("decode", Filed, { type: "a", value: "hi" }, false)
  })

  it("leave to the parser the names its bookkeeping reads from Object.prototype", () => {
    const Proto = Schema.Union(
      Schema.Struct({ type: Schema.Literal("__proto__"), a: Schema.String }),
      Schema.Struct({ type: Schema.Literal("b") })
    )
    const input: unknown = JSON.parse('{"type":"__proto__","a":"x"}')
    expect(Either.isLeft(Compiled.decoder(Proto)(input))).toBe(true)
    agrees("decode", Proto, input)
    const Declared = Schema.Struct(
      { ["__proto__"]: Schema.Unknown },
      Schema.Record({ key: Schema.String, value: Schema.Struct({ x: Schema.Number }) })
    )
    agrees("decode", Declared, JSON.parse('{"__proto__":{"x":1,"y":2}}'))
    const Keyed = Schema.Union(
      Schema.Struct({ constructor: Schema.Literal("a"), n: Schema.Number }),
      Schema.Struct({ constructor: Schema.Literal("b") })
    )
    // The parser cannot be built for it (it reads `constructor` from the prototype): neither can a codec.
    expect(() => Compiled.decoder(Keyed)({ constructor: "a", n: 1 })).toThrow()
  })

  it("follow a recursive schema", () => {
    interface Tree {
      readonly value: number
      readonly children: ReadonlyArray<Tree>
    }
    const Tree: Schema.Schema<Tree> = Schema.Struct({
      value: Schema.Number,
      children: Schema.Array(Schema.suspend(() => Tree))
    })
    const decode = Compiled.decoder(Tree)
    const deep = { value: 1, children: [{ value: 2, children: [{ value: 3, children: [], x: 1 }] }] }
    expect(Either.getOrThrow(decode(deep))).toStrictEqual({
      value: 1,
      children: [{ value: 2, children: [{ value: 3, children: [] }] }]
    })
    expect(Either.isLeft(decode({ value: 1, children: [{ value: "2", children: [] }] }))).toBe(true)
  })

  it("leave transformations, and parts under parse options, to the parser", () => {
    const Transformed = Schema.Struct({ n: Schema.NumberFromString, s: Schema.String })
    expect(Either.getOrThrow(Compiled.decoder(Transformed)({ n: "12", s: "x" }))).toStrictEqual({ n: 12, s: "x" })
    expect(Either.getOrThrow(Compiled.encoder(Transformed)({ n: 12, s: "x" }))).toStrictEqual({ n: "12", s: "x" })
    const Strict = Schema.Struct({ a: Schema.String }).annotations({ parseOptions: { onExcessProperty: "error" } })
    expect(Either.isLeft(Compiled.decoder(Strict)({ a: "x", b: 1 }))).toBe(true)
    const Kept = Schema.Struct({ a: Schema.String }).annotations({ parseOptions: { onExcessProperty: "preserve" } })
    expect(Either.getOrThrow(Compiled.decoder(Kept)({ a: "x", b: 1 }))).toStrictEqual({ a: "x", b: 1 })
  })
})
