/**
 * JSON building blocks shared by every MCP message: JSON values, `_meta`,
 * and the string formats the specification names (URI, URI template, base64).
 *
 * Decoding is lenient about formats (servers in the field send imperfect URIs);
 * the arbitraries produce values that satisfy the formats, so encoded messages
 * validate against the official `schema.json`.
 */
import * as Arbitrary from "effect/Arbitrary"
import * as Schema from "effect/Schema"

const normalizeJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value))

/** Arbitrary JSON values exactly as they survive `JSON.stringify` and `JSON.parse`. */
export const jsonValueArbitrary =
  (maxDepth = 2): Arbitrary.LazyArbitrary<unknown> =>
  (fc) =>
    fc.jsonValue({ maxDepth }).map(normalizeJson)

/**
 * Any JSON value (object, array, string, number, boolean or null), kept verbatim. It must be
 * present: a required member typed as a JSON value is missing when its key is absent.
 */
export const JsonValue: Schema.Schema<unknown> = Schema.declare(
  (input: unknown): input is unknown => input !== undefined,
  {
    identifier: "JsonValue",
    description: "a JSON value",
    arbitrary: () => jsonValueArbitrary(),
    equivalence: () => (a, b) => JSON.stringify(a) === JSON.stringify(b)
  }
)

/**
 * A member name of a JSON object. Any string decodes, except that `__proto__` members are
 * dropped on decode (Effect's guard against prototype pollution), so arbitraries avoid it.
 */
export const JsonKey = Schema.String.annotations({
  arbitrary: () => (fc) => fc.string({ maxLength: 8 }).filter((key) => key !== "__proto__")
})

/** A JSON object whose member values match `value`. */
export const recordOf = <V extends Schema.Schema.Any>(value: V) => Schema.Record({ key: JsonKey, value })

/** Is this a JSON object (not null, not an array)? */
export const isJsonObject = (input: unknown): input is { readonly [key: string]: unknown } =>
  typeof input === "object" && input !== null && !Array.isArray(input)

/**
 * A JSON object with arbitrary members, kept verbatim: decoding checks that it is an object
 * and keeps the very same value (nothing inside a free-form object needs checking, and a
 * member-by-member copy would cost time on every message).
 */
export const JsonObject: Schema.Schema<{ readonly [key: string]: unknown }> = Schema.declare(isJsonObject, {
  identifier: "JsonObject",
  description: "a JSON object",
  arbitrary: () => (fc) =>
    fc.dictionary(Arbitrary.make(JsonKey), jsonValueArbitrary()(fc), { maxKeys: 4, noNullPrototype: true }),
  equivalence: () => (a, b) => JSON.stringify(a) === JSON.stringify(b)
})

/** The type of {@link JsonObject}. */
export type JsonObject = typeof JsonObject.Type

/** A finite JSON number (no `NaN`, no infinities). */
export const JsonNumber = Schema.Number.pipe(Schema.finite()).annotations({
  arbitrary: () => (fc) => fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (n === 0 ? 0 : n))
})

/** A number in the closed interval [0, 1] (priorities). */
export const UnitInterval = Schema.Number.pipe(Schema.between(0, 1))

/** A JSON integer. */
export const Integer = Schema.Int

/** A non-negative JSON integer. */
export const NonNegativeInteger = Schema.NonNegativeInt

/** A URI (`format: uri` in the specification). */
export const Uri = Schema.String.annotations({
  identifier: "Uri",
  arbitrary: () => (fc) => fc.webUrl()
})

/** A URI template (RFC 6570, `format: uri-template`). */
export const UriTemplate = Schema.String.annotations({
  identifier: "UriTemplate",
  arbitrary: () => (fc) =>
    fc
      .tuple(
        fc.domain(),
        fc.array(fc.stringMatching(/^[a-z0-9]{1,6}$/), { maxLength: 3 }),
        fc.stringMatching(/^[a-z]\w{0,8}$/)
      )
      .map(([host, segments, name]) => `https://${[host, ...segments].join("/")}/{${name}}`)
})

/** Base64-encoded binary data (`format: byte`). */
export const Base64 = Schema.String.annotations({
  identifier: "Base64",
  arbitrary: () => (fc) => fc.base64String({ maxLength: 64 })
})

/**
 * `_meta`: reserved metadata on results, notifications and content; any members,
 * preserved on decode and encode.
 */
export const Meta = JsonObject.annotations({ identifier: "Meta" })
