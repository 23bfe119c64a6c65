/**
 * Schemas that must all hold, as one (`allOf`, and the keywords beside `anyOf` with each branch):
 * properties and `required` joined, anything else equal or a reason why they cannot be merged.
 */
import { isObject, type JsonObject } from "./definitions.js"

/** Keywords that describe rather than constrain. */
export const ANNOTATIONS: ReadonlySet<string> = new Set([
  "title",
  "description",
  "default",
  "examples",
  "deprecated",
  "readOnly",
  "writeOnly",
  "$schema",
  "$id",
  "$comment",
  "$defs",
  "definitions"
])

/** `schema` without `keys`. */
export const withoutKeys = (schema: JsonObject, keys: Iterable<string>): JsonObject => {
  const dropped = new Set(keys)
  return Object.fromEntries(Object.entries(schema).filter(([key]) => !dropped.has(key)))
}

/** Two schemas that must both hold, as one; a reason when they constrain the same keyword differently. */
export const merge = (left: JsonObject, right: JsonObject): JsonObject | string => {
  const merged: { [key: string]: unknown } = { ...left }
  for (const [key, value] of Object.entries(right)) {
    const before = merged[key]
    if (before === undefined || ANNOTATIONS.has(key)) merged[key] = value
    else if (key === "required" && Array.isArray(before) && Array.isArray(value))
      merged[key] = [...new Set([...before, ...value])]
    else if (key === "properties" && isObject(before) && isObject(value)) {
      for (const name of Object.keys(value))
        if (name in before && JSON.stringify(before[name]) !== JSON.stringify(value[name]))
          return `allOf constrains property ${name} twice`
      merged[key] = { ...before, ...value }
    } else if (JSON.stringify(before) !== JSON.stringify(value)) return `allOf constrains ${key} twice`
  }
  return merged
}

/**
 * A schema with `allOf` as one schema without it; `resolve` reads a part (following a `$ref`) or
 * says why it cannot.
 */
export const mergeAll = (schema: JsonObject, resolve: (part: unknown) => JsonObject | string): JsonObject | string => {
  let merged: JsonObject | string = withoutKeys(schema, ["allOf"])
  for (const part of Array.isArray(schema.allOf) ? schema.allOf : []) {
    const next = resolve(part)
    if (typeof next === "string") return next
    const flat = Array.isArray(next.allOf) ? mergeAll(next, resolve) : next
    if (typeof flat === "string") return flat
    merged = merge(merged, flat)
    if (typeof merged === "string") return merged
  }
  return merged
}
