/**
 * Access to the offline MCP specification beside the repository (`../shared/spec`): each
 * revision's `schema.json`, a real JSON Schema validator for it, and the example messages.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { McpSchema } from "@effect-mcp/protocol"
import { Ajv, type ValidateFunction } from "ajv"
import { Ajv2020 } from "ajv/dist/2020.js"
import addFormatsModule from "ajv-formats"
import * as Schema from "effect/Schema"

const here = dirname(fileURLToPath(import.meta.url))

const findSpecRoot = (): string => {
  let dir = here
  for (let depth = 0; depth < 8; depth++) {
    const candidate = join(dir, "shared", "spec")
    if (existsSync(join(candidate, "2025-11-25", "schema.json"))) return candidate
    dir = dirname(dir)
  }
  throw new Error(`The MCP specification (shared/spec) was not found above ${here}`)
}

/** The folder holding one sub-folder per revision. */
export const specRoot = findSpecRoot()

/** The revisions with a `schema.json` the tests use as an oracle. */
export type SpecRevision = "2024-11-05" | "2025-03-26" | "2025-06-18" | "2025-11-25" | "2026-07-28"

/** Every revision, oldest first. */
export const specRevisions: ReadonlyArray<SpecRevision> = [
  "2024-11-05",
  "2025-03-26",
  "2025-06-18",
  "2025-11-25",
  "2026-07-28"
]

interface SpecDocument {
  readonly definitions?: Record<string, unknown>
  readonly $defs?: Record<string, unknown>
}

const readJson = (path: string): unknown => JSON.parse(readFileSync(path, "utf8"))

const isSpecDocument = (value: unknown): value is SpecDocument => typeof value === "object" && value !== null

/** A revision's schema.json and a validator for each of its definitions. */
export interface Oracle {
  readonly names: ReadonlyArray<string>
  /** The revision's definitions, as published (or closed). */
  readonly definitions: { readonly [name: string]: unknown }
  readonly validator: (name: string) => ValidateFunction
}

const oracles = new Map<string, Oracle>()

/**
 * Closes every object schema that declares `properties` and says nothing about other
 * members (`additionalProperties: false`), while still allowing `_meta` everywhere, as
 * every revision does. The official files leave objects open; the closed variant shows
 * members that a revision does not define.
 */
const closeObjects = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(closeObjects)
  if (typeof node !== "object" || node === null) return node
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) {
    // `_meta` values and 2026-07-28's `*MetaObject` definitions stay open, as the spec says.
    out[key] = key === "_meta" || key.endsWith("MetaObject") ? value : closeObjects(value)
  }
  const properties = out.properties
  if (typeof properties === "object" && properties !== null && !("additionalProperties" in out)) {
    out.additionalProperties = false
    if (!("_meta" in properties)) out.properties = { ...properties, _meta: { type: "object" } }
  }
  return out
}

/**
 * Loads (once) the oracle of a revision: draft-07 before 2025-11-25, 2020-12 from then on.
 * With `closed`, objects admit only the members the revision defines (plus `_meta`).
 */
export const oracle = (revision: SpecRevision, options?: { readonly closed?: boolean }): Oracle => {
  const closed = options?.closed === true
  const cacheKey = `${revision}${closed ? ":closed" : ""}`
  const cached = oracles.get(cacheKey)
  if (cached) return cached
  const raw = readJson(join(specRoot, revision, "schema.json"))
  const document = closed ? closeObjects(raw) : raw
  if (!isSpecDocument(document)) throw new Error(`${revision}/schema.json is not an object`)
  const modern = revision >= "2025-11-25"
  const ajv = modern ? new Ajv2020({ strict: false }) : new Ajv({ strict: false })
  addFormatsModule.default(ajv)
  ajv.addSchema(document as object, revision)
  const definitions = (modern ? document.$defs : document.definitions) ?? {}
  const pointer = modern ? "$defs" : "definitions"
  const validators = new Map<string, ValidateFunction>()
  const result: Oracle = {
    names: Object.keys(definitions).sort(),
    definitions,
    validator: (name) => {
      let validate = validators.get(name)
      if (!validate) {
        const found = ajv.getSchema(`${revision}#/${pointer}/${name}`)
        if (!found) throw new Error(`${revision} has no definition ${name}`)
        validate = found
        validators.set(name, validate)
      }
      return validate
    }
  }
  oracles.set(cacheKey, result)
  return result
}

/** Formats a validator's errors for an assertion message. */
export const describeErrors = (validate: ValidateFunction): string =>
  JSON.stringify(validate.errors?.slice(0, 3) ?? [], null, 1)

const registry: Record<string, unknown> = McpSchema

/** The exported schema of that name, if there is one. */
export const exportedSchema = (name: string): Schema.Schema<unknown, unknown> | undefined => {
  const value = registry[name]
  return Schema.isSchema(value) ? (value as Schema.Schema<unknown, unknown>) : undefined
}

/** The spec's example messages (2026-07-28/examples): folder name = type name. */
export const examples = (): ReadonlyArray<{ readonly type: string; readonly file: string; readonly json: unknown }> => {
  const root = join(specRoot, "2026-07-28", "examples")
  return readdirSync(root).flatMap((type) =>
    readdirSync(join(root, type))
      .filter((file) => file.endsWith(".json"))
      .sort()
      .map((file) => ({ type, file, json: readJson(join(root, type, file)) }))
  )
}

/** How many runs each property gets: small in CI, larger with PROP_RUNS=n. */
export const propRuns = Number(process.env.PROP_RUNS ?? 25)

/** Encodes a value with a schema and sends it through JSON text, as the wire does. */
export const throughWire = <A, I>(schema: Schema.Schema<A, I>, value: A): unknown =>
  JSON.parse(JSON.stringify(Schema.encodeSync(schema)(value)))
