/**
 * Values generated from a revision's own `schema.json`: a fast-check arbitrary for any of its
 * definitions, valid by construction (the oracle's validator confirms each). Covers the JSON
 * Schema keywords the MCP schema files use: `$ref`, `type` (one or several), `properties`,
 * `required`, `additionalProperties`, `items`, `enum`, `const`, `anyOf`, `allOf`, `minimum`,
 * `maximum`, `maxItems`, `format`, `propertyNames` (listed names), a member's `not` (absent). Optional members are present or absent at random, and open
 * objects sometimes carry a member the revision does not name (valid, and a decoder must
 * tolerate it). Recursion stops at a depth: past it, optional members and free JSON are left out.
 */
import * as FastCheck from "effect/FastCheck"

type Node = { readonly [key: string]: unknown }
const isNode = (value: unknown): value is Node => typeof value === "object" && value !== null && !Array.isArray(value)

const MAX_DEPTH = 6

// Besides made-up names, keywords a JSON Schema object may carry: where a revision leaves them free, any value is valid.
const key = FastCheck.constantFrom("a", "b", "note", "x-extra", "com.example/k", "properties", "required", "items")
const freeJson = (depth: number): FastCheck.Arbitrary<unknown> =>
  depth >= MAX_DEPTH
    ? FastCheck.constantFrom(null, 1, "s", true)
    : FastCheck.jsonValue({ maxDepth: 2 }).map((value) => JSON.parse(JSON.stringify(value)))

const formatted = (format: string): FastCheck.Arbitrary<string> => {
  switch (format) {
    case "uri":
      return FastCheck.constantFrom("https://example.com/a", "file:///tmp/x.txt", "urn:example:1")
    case "uri-template":
      return FastCheck.constantFrom("file:///{path}", "https://example.com/{id}")
    case "byte":
      return FastCheck.uint8Array({ maxLength: 6 }).map((bytes) => Buffer.from(bytes).toString("base64"))
    case "date-time":
      return FastCheck.constantFrom("2026-01-02T03:04:05Z", "2025-11-25T00:00:00.000Z")
    case "email":
      return FastCheck.constant("a@example.com")
    default:
      return FastCheck.string({ maxLength: 8 })
  }
}

/** Builds the arbitrary of one definition of a revision's `$defs`/`definitions`. */
export const arbitraryOf = (
  definitions: { readonly [name: string]: unknown },
  name: string
): FastCheck.Arbitrary<unknown> => {
  const resolve = (node: Node): Node => {
    const ref = node.$ref
    if (typeof ref !== "string") return node
    const target = definitions[ref.slice(ref.lastIndexOf("/") + 1)]
    if (!isNode(target)) throw new Error(`unresolved ${ref}`)
    return resolve(target)
  }
  /** `allOf` of object schemas, merged (the MCP files use it only that way). */
  const merged = (node: Node): Node => {
    const parts = node.allOf
    if (!Array.isArray(parts)) return node
    const { allOf: _, ...rest } = node
    const out: Record<string, unknown> = { ...rest }
    const properties: Record<string, unknown> = isNode(rest.properties) ? { ...rest.properties } : {}
    const required: Array<unknown> = Array.isArray(rest.required) ? [...rest.required] : []
    for (const part of parts.filter(isNode).map((one) => merged(resolve(one)))) {
      Object.assign(out, part)
      if (isNode(part.properties)) Object.assign(properties, part.properties)
      if (Array.isArray(part.required)) required.push(...part.required)
    }
    return { ...out, properties, required }
  }

  const of = (raw: unknown, depth: number): FastCheck.Arbitrary<unknown> => {
    if (raw === true || (isNode(raw) && Object.keys(raw).filter((k) => k !== "description").length === 0))
      return freeJson(depth)
    if (!isNode(raw)) throw new Error(`not a schema: ${JSON.stringify(raw)}`)
    const node = merged(resolve(raw))
    if ("const" in node) return FastCheck.constant(node.const)
    if (Array.isArray(node.enum)) return FastCheck.constantFrom(...node.enum)
    if (Array.isArray(node.anyOf)) {
      const options = node.anyOf.map((option) => of(option, depth + 1))
      return FastCheck.oneof(...options)
    }
    const type = node.type
    if (Array.isArray(type)) return FastCheck.oneof(...type.map((one) => of({ ...node, type: one }, depth)))
    switch (type) {
      case "string":
        return typeof node.format === "string" ? formatted(node.format) : FastCheck.string({ maxLength: 8 })
      case "integer":
        return FastCheck.integer({
          min: typeof node.minimum === "number" ? node.minimum : -1000,
          max: typeof node.maximum === "number" ? node.maximum : 1000
        })
      case "number":
        return FastCheck.double({
          min: typeof node.minimum === "number" ? node.minimum : -1000,
          max: typeof node.maximum === "number" ? node.maximum : 1000,
          noNaN: true,
          noDefaultInfinity: true
        }).map((n) => (Object.is(n, -0) ? 0 : n))
      case "boolean":
        return FastCheck.boolean()
      case "null":
        return FastCheck.constant(null)
      case "array": {
        if (depth >= MAX_DEPTH) return FastCheck.constant([])
        const maxLength = Math.min(typeof node.maxItems === "number" ? node.maxItems : 3, depth >= MAX_DEPTH ? 0 : 3)
        return FastCheck.array(node.items === undefined ? freeJson(depth) : of(node.items, depth + 1), { maxLength })
      }
      default:
        return objectOf(node, depth)
    }
  }

  const objectOf = (node: Node, depth: number): FastCheck.Arbitrary<unknown> => {
    const properties = isNode(node.properties) ? node.properties : {}
    const required = new Set(Array.isArray(node.required) ? node.required.filter((k) => typeof k === "string") : [])
    const shallow = depth >= MAX_DEPTH
    const members: Record<string, FastCheck.Arbitrary<unknown>> = {}
    const additional = node.additionalProperties
    const extraValue = () => (isNode(additional) ? of(additional, depth + 1) : freeJson(depth + 1))
    for (const [member, schema] of Object.entries(properties)) {
      if (shallow && !required.has(member)) continue
      // `{ not: … }`: a member that must be absent.
      if (isNode(schema) && "not" in schema) continue
      members[member] = of(schema, depth + 1)
    }
    // `propertyNames` that lists the names: required ones not among `properties` take `additionalProperties`.
    const names = namesOf(node.propertyNames)
    for (const member of required) if (!(member in members) && names !== undefined) members[member] = extraValue()
    const declared = FastCheck.record(members, { requiredKeys: [...required].filter((k) => k in members) })
    if (additional === false || shallow) return declared
    const extras = FastCheck.dictionary(
      (names === undefined ? key : FastCheck.constantFrom(...names)).filter((k) => !(k in properties)),
      extraValue(),
      { maxKeys: Object.keys(properties).length === 0 ? 3 : 1, noNullPrototype: true }
    )
    return FastCheck.tuple(declared, extras).map(([known, extra]) => ({ ...extra, ...known }))
  }

  const namesOf = (node: unknown): ReadonlyArray<string> | undefined => {
    if (!isNode(node)) return undefined
    if (Array.isArray(node.enum)) return node.enum.filter((n) => typeof n === "string")
    if (!Array.isArray(node.anyOf)) return undefined
    const names = node.anyOf.flatMap((option) =>
      isNode(option) && typeof option.const === "string" ? [option.const] : []
    )
    return names.length === node.anyOf.length ? names : undefined
  }

  return of({ $ref: `#/$defs/${name}` }, 0)
}
