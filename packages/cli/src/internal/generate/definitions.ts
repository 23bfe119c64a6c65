/**
 * A JSON Schema document's definitions (`#` itself, `#/$defs/X`, `#/definitions/X`) and the
 * `$ref`s between them: which the root reaches, which are on a cycle, and an order to declare
 * them in (each after the definitions it names directly; a reference to one on a cycle is lazy,
 * so it orders nothing).
 */

/** A JSON object. */
export type JsonObject = { readonly [key: string]: unknown }

/** Whether a value is a JSON object (not an array, not null). */
export const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The key of the definition a `$ref` names (percent-encoding undone). */
export const definitionKey = (ref: string): string => {
  try {
    return decodeURIComponent(ref)
  } catch {
    return ref
  }
}

/** Keywords whose value is a map of names to schemas (a name there is not a keyword). */
const SCHEMA_MAPS = ["properties", "patternProperties", "dependentSchemas"]
/** Keywords whose value is data, or definitions read on their own. */
const NOT_SCHEMAS = ["const", "enum", "default", "examples", "$defs", "definitions"]

/** Every `$ref` inside a schema (not inside values such as `const` or `default`). */
const refsOf = (schema: unknown, found: Set<string> = new Set()): Set<string> => {
  if (Array.isArray(schema)) for (const item of schema) refsOf(item, found)
  else if (isObject(schema))
    for (const [key, value] of Object.entries(schema)) {
      if (key === "$ref" && typeof value === "string") found.add(definitionKey(value))
      else if (SCHEMA_MAPS.includes(key) && isObject(value))
        for (const item of Object.values(value)) refsOf(item, found)
      else if (!NOT_SCHEMAS.includes(key)) refsOf(value, found)
    }
  return found
}

const escapePointer = (name: string) => name.replaceAll("~", "~0").replaceAll("/", "~1")

/** The definitions of a document the root reaches. */
export interface Graph {
  /** Each definition the root reaches, by key, the root (`#`) first. */
  readonly schemas: ReadonlyMap<string, unknown>
  /** The definitions on a cycle of references (the root too, when it refers to itself). */
  readonly cyclic: ReadonlySet<string>
  /** The keys in an order to declare them in; the root last unless it is on a cycle. */
  readonly order: ReadonlyArray<string>
}

/** The graph of the document `root`. */
export const graphOf = (root: unknown): Graph => {
  const sources = new Map<string, unknown>([["#", root]])
  if (isObject(root))
    for (const group of ["$defs", "definitions"])
      for (const [key, schema] of Object.entries(isObject(root[group]) ? root[group] : {}))
        sources.set(`#/${group}/${escapePointer(key)}`, schema)
  const edges = new Map([...sources].map(([key, schema]) => [key, [...refsOf(schema)].filter((to) => sources.has(to))]))
  const reaches = (from: string, to: string): boolean => {
    const seen = new Set<string>()
    const stack = [...(edges.get(from) ?? [])]
    for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
      if (next === to) return true
      if (!seen.has(next)) {
        seen.add(next)
        stack.push(...(edges.get(next) ?? []))
      }
    }
    return false
  }
  const reachable = ["#", ...[...sources.keys()].filter((key) => key !== "#" && reaches("#", key))]
  const cyclic = new Set(reachable.filter((key) => reaches(key, key)))
  const order: Array<string> = []
  // References to definitions off every cycle form no cycle: the walk ends.
  const visit = (key: string) => {
    if (order.includes(key)) return
    for (const to of edges.get(key) ?? []) if (!cyclic.has(to)) visit(to)
    order.push(key)
  }
  for (const key of reachable) if (cyclic.has(key) && key !== "#") visit(key)
  visit("#")
  return { schemas: new Map(reachable.map((key) => [key, sources.get(key)])), cyclic, order }
}
