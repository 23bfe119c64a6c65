/**
 * JSON Schema validation of values against schemas that arrive on the wire (a tool's
 * `outputSchema`, an elicitation's `requestedSchema`): 2020-12 by default, draft-07 when
 * the schema says so. Compiled validators are cached per schema object. Ajv is imported when
 * the first check needs it, not when the program starts.
 */
import type { ValidateFunction } from "ajv"
import * as Effect from "effect/Effect"
import * as OnFirstUse from "../onFirstUse.js"
import type * as Engines from "./jsonSchemaEngines.js"

const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/

const compiled = new WeakMap<object, ValidateFunction | string>()

const compile = (
  { draft07, modern }: typeof Engines,
  schema: { readonly [keyword: string]: unknown }
): ValidateFunction | string => {
  const cached = compiled.get(schema)
  if (cached !== undefined) return cached
  const engine = typeof schema.$schema === "string" && DRAFT_07.test(schema.$schema) ? draft07 : modern
  let result: ValidateFunction | string
  try {
    const { $schema: _ignored, ...rest } = schema
    result = engine.compile(rest)
  } catch (error) {
    result = `the schema cannot be compiled: ${error instanceof Error ? error.message : String(error)}`
  }
  compiled.set(schema, result)
  return result
}

/** Root keywords that constrain nothing (`$id` is not one: Ajv registers it, and refuses a second schema with the same). */
const ANNOTATIONS = new Set(["$schema", "$comment", "title", "description", "examples", "default", "deprecated"])

/** A plain JSON object (not an array, not null). */
const isObject = (value: unknown): value is object =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** Whether a schema constrains nothing but `type: "object"`, read once per schema object. */
const objectOnly = new WeakMap<object, boolean>()

const constrainsOnlyType = (schema: { readonly [keyword: string]: unknown }): boolean => {
  const known = objectOnly.get(schema)
  if (known !== undefined) return known
  const only =
    schema.type === "object" &&
    Object.entries(schema).every(([keyword, given]) =>
      keyword === "type"
        ? true
        : keyword === "properties"
          ? isObject(given) && Object.keys(given).length === 0
          : keyword === "required"
            ? Array.isArray(given) && given.length === 0
            : ANNOTATIONS.has(keyword)
    )
  objectOnly.set(schema, only)
  return only
}

/**
 * Whether `schema` accepts `value` without an engine: `schema` is `type: "object"` with no
 * properties, nothing required and no other keyword that constrains (a tool that takes no
 * arguments), and `value` an object. Such a schema always compiles and Ajv accepts exactly the
 * objects, so the check is the same and Ajv is not loaded for it. What the schema constrains is
 * read once per schema object (a tool's definition is called many times).
 */
export const acceptsAnyObject = (schema: { readonly [keyword: string]: unknown }, value: unknown): boolean =>
  isObject(value) && constrainsOnlyType(schema)

/** Why a value does not match: the reason of an {@link Outcome} that is not `Valid`, else `undefined`. */
export const problemOf = (outcome: Outcome): string | undefined =>
  outcome._tag === "Valid" ? undefined : outcome.reason

/** The outcome of a {@link Check}. */
export type Outcome =
  | { readonly _tag: "Valid" }
  /** `pointer` is the JSON pointer of the first offending value (a missing member's own pointer). */
  | { readonly _tag: "Invalid"; readonly pointer: string; readonly reason: string }
  | { readonly _tag: "Uncompilable"; readonly reason: string }

const pointerOf = (error: { readonly instancePath: string; readonly params: object }): string => {
  const missing: unknown = Reflect.get(error.params, "missingProperty")
  return typeof missing === "string"
    ? `${error.instancePath}/${missing.replaceAll("~", "~0").replaceAll("/", "~1")}`
    : error.instancePath
}

/** Checks values with the engines loaded (see {@link withCheck}). */
export interface Check {
  (schema: { readonly [keyword: string]: unknown }, value: unknown): Outcome
  /** Why `schema` cannot be compiled (then no value can be checked against it), or `undefined` when it can. */
  readonly uncompilable: (schema: { readonly [keyword: string]: unknown }) => string | undefined
}

const checkWith = (loaded: typeof Engines): Check =>
  Object.assign(
    (schema: { readonly [keyword: string]: unknown }, value: unknown): Outcome => {
      const validator = compile(loaded, schema)
      if (typeof validator === "string") return { _tag: "Uncompilable", reason: validator }
      if (validator(value)) return { _tag: "Valid" }
      const errors = validator.errors ?? []
      const first = errors[0]
      return {
        _tag: "Invalid",
        pointer: first === undefined ? "" : pointerOf(first),
        reason: errors
          .slice(0, 5)
          .map(
            (error) => `${error.instancePath === "" ? "(root)" : error.instancePath} ${error.message ?? "is invalid"}`
          )
          .join("; ")
      }
    },
    {
      uncompilable: (schema: { readonly [keyword: string]: unknown }) => {
        const validator = compile(loaded, schema)
        return typeof validator === "string" ? validator : undefined
      }
    }
  )

const checks = OnFirstUse.make(async () => checkWith(await import("./jsonSchemaEngines.js")))

/**
 * `f` given the check (values validated, saying where they first go wrong): once Ajv is loaded,
 * `f(check)` itself, decided when called (a tool call's checks add no effect step); before, an
 * effect that loads it first.
 */
export const withCheck: OnFirstUse.OnFirstUse<Check>["use"] = checks.use

/** The check, once some use loaded Ajv; else `undefined`. */
export const checkNow: () => Check | undefined = checks.now

/** Validates a value: `undefined` when it matches, else a short description of what does not. */
export const validate = (
  schema: { readonly [keyword: string]: unknown },
  value: unknown
): Effect.Effect<string | undefined> => withCheck((check) => Effect.sync(() => problemOf(check(schema, value))))
