/**
 * The 2026-07-28 schema.json beside the repository (`shared/spec`) as an oracle: an Ajv
 * (JSON Schema 2020-12) validator for each of its definitions, open as published or closed to
 * the members the revision defines (as `protocol/test/support/spec.ts` does for older ones).
 */
import { existsSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import type { ValidateFunction } from "ajv"
import { Ajv2020 } from "ajv/dist/2020.js"
import addFormatsModule from "ajv-formats"

const REVISION = "2026-07-28"
const here = dirname(fileURLToPath(import.meta.url))

const findSchema = (): string => {
  let dir = here
  for (let depth = 0; depth < 8; depth++) {
    const candidate = join(dir, "shared", "spec", REVISION, "schema.json")
    if (existsSync(candidate)) return candidate
    dir = dirname(dir)
  }
  throw new Error(`The ${REVISION} schema (shared/spec/${REVISION}/schema.json) was not found above ${here}`)
}

type Node = { readonly [key: string]: unknown }
const isNode = (value: unknown): value is Node => typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * Closes every object schema that declares `properties` and says nothing about other members,
 * except `_meta` values and the `*MetaObject` definitions, which stay open as the spec says.
 */
const closeObjects = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(closeObjects)
  if (!isNode(node)) return node
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) out[key] = key === "_meta" ? value : closeObjects(value)
  const properties = out.properties
  if (isNode(properties) && !("additionalProperties" in out)) {
    out.additionalProperties = false
    if (!("_meta" in properties)) out.properties = { ...properties, _meta: { type: "object" } }
  }
  return out
}

const closeDocument = (document: Node): Node => {
  const defs = isNode(document.$defs) ? document.$defs : {}
  return {
    ...document,
    $defs: Object.fromEntries(
      Object.entries(defs).map(([name, schema]) => [name, name.endsWith("MetaObject") ? schema : closeObjects(schema)])
    )
  }
}

/** A validator per definition of the 2026-07-28 schema. */
export interface Oracle2026 {
  readonly names: ReadonlyArray<string>
  readonly validator: (name: string) => ValidateFunction
}

const cache = new Map<string, Oracle2026>()

/** Loads (once) the 2026-07-28 oracle; with `closed`, objects admit only the members the revision defines. */
export const oracle2026 = (options?: { readonly closed?: boolean }): Oracle2026 => {
  const closed = options?.closed === true
  const key = closed ? "closed" : "open"
  const cached = cache.get(key)
  if (cached !== undefined) return cached
  const raw: unknown = JSON.parse(readFileSync(findSchema(), "utf8"))
  if (!isNode(raw)) throw new Error(`${REVISION}/schema.json is not an object`)
  const document = closed ? closeDocument(raw) : raw
  const ajv = new Ajv2020({ strict: false })
  addFormatsModule.default(ajv)
  ajv.addSchema(document, REVISION)
  const validators = new Map<string, ValidateFunction>()
  const oracle: Oracle2026 = {
    names: Object.keys(isNode(document.$defs) ? document.$defs : {}).sort(),
    validator: (name) => {
      const known = validators.get(name)
      if (known !== undefined) return known
      const found = ajv.getSchema(`${REVISION}#/$defs/${name}`)
      if (found === undefined) throw new Error(`${REVISION} has no definition ${name}`)
      validators.set(name, found)
      return found
    }
  }
  cache.set(key, oracle)
  return oracle
}

/** Why a value is not valid as `name` (open and closed), or undefined when it is. */
export const problems2026 = (name: string, value: unknown): string | undefined => {
  for (const closed of [false, true]) {
    const validate = oracle2026({ closed }).validator(name)
    if (!validate(value)) {
      return `${closed ? "closed " : ""}${name}: ${JSON.stringify(value)}\n${JSON.stringify(validate.errors?.slice(0, 3) ?? [], null, 1)}`
    }
  }
  return undefined
}
