/**
 * JSON Schema validation of values against schemas that arrive on the wire (a tool's
 * `outputSchema`, an elicitation's `requestedSchema`): 2020-12 by default, draft-07 when
 * the schema says so. Compiled validators are cached per schema object.
 */
import { Ajv, type ValidateFunction } from "ajv"
import { Ajv2020 } from "ajv/dist/2020.js"
import addFormatsModule from "ajv-formats"

const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/

const modern = new Ajv2020({ strict: false, allErrors: true, validateSchema: false })
const draft07 = new Ajv({ strict: false, allErrors: true, validateSchema: false })
addFormatsModule.default(modern)
addFormatsModule.default(draft07)

const compiled = new WeakMap<object, ValidateFunction | string>()

const compile = (schema: { readonly [keyword: string]: unknown }): ValidateFunction | string => {
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

/** Validates a value; `undefined` when it matches, else a short description of what does not. */
export const validate = (schema: { readonly [keyword: string]: unknown }, value: unknown): string | undefined => {
  const outcome = check(schema, value)
  return outcome._tag === "Invalid" ? outcome.reason : outcome._tag === "Uncompilable" ? outcome.reason : undefined
}

/** The outcome of {@link check}. */
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

/** Validates a value, saying where it first goes wrong. */
export const check = (schema: { readonly [keyword: string]: unknown }, value: unknown): Outcome => {
  const validator = compile(schema)
  if (typeof validator === "string") return { _tag: "Uncompilable", reason: validator }
  if (validator(value)) return { _tag: "Valid" }
  const errors = validator.errors ?? []
  const first = errors[0]
  return {
    _tag: "Invalid",
    pointer: first === undefined ? "" : pointerOf(first),
    reason: errors
      .slice(0, 5)
      .map((error) => `${error.instancePath === "" ? "(root)" : error.instancePath} ${error.message ?? "is invalid"}`)
      .join("; ")
  }
}
