/**
 * JSON Schema → `effect/Schema` source text, for `effect-mcp generate`. Pure: a schema in, the
 * declarations of one module out; never fails (what cannot be expressed becomes `Schema.Unknown`
 * with a comment saying why).
 *
 * What is expressed: `type` (one or several), `properties`/`required`, `additionalProperties`
 * (`false`: no other key; a schema: the other keys' values), `items`, `enum`/`const`
 * (`Schema.Literal`), `anyOf`/`oneOf` (`Schema.Union`; the keywords beside them apply to each
 * branch), `allOf` (merged when the parts do not conflict), `$ref` to `#`, `#/$defs/…` and
 * `#/definitions/…` (`Schema.suspend` for a definition on a cycle, declared with its type), string
 * length, `pattern` and the formats `uuid`, `date-time`, `date`, `email`, `uri`, number bounds and
 * `multipleOf`, array length, and `title`/`description` as annotations.
 *
 * What is looser than the JSON Schema (named in a comment where it occurs): assertions with no
 * Schema counterpart here (`not`, `if`, `uniqueItems`, `patternProperties`, …), `oneOf`'s "exactly
 * one", tuples (an array of unknown), and lengths counted in UTF-16 units rather than code points.
 * Stricter: an integer must be a safe one (a JSON integer beyond 2^53 is not exact in JavaScript).
 * A required property of any value accepts a missing key. The client checks every call and
 * structured result against the tool's own JSON Schema, so looser here loses no check.
 */
import { definitionKey, graphOf, isObject, type JsonObject } from "./definitions.js"
import { ANNOTATIONS, merge, mergeAll, withoutKeys } from "./merge.js"
import { commentText, jsDoc, type Names, pascalCase, propertyKey } from "./names.js"

/** An expression: its Schema source, its type's source, and whether its values are objects (arguments can be). */
interface Code {
  readonly schema: string
  readonly type: string
  readonly object: boolean
}

/** A definition of the document (`#` itself, `#/$defs/X`, `#/definitions/X`) and the name it is declared under. */
interface Definition {
  readonly schema: unknown
  readonly name: string
  /** On a cycle of references: declared with its type and referred to through `Schema.suspend`. */
  readonly cyclic: boolean
}

interface Scope {
  readonly definitions: ReadonlyMap<string, Definition>
  /** Whether a definition emitted already has object values. */
  readonly objects: ReadonlyMap<string, boolean>
  readonly indent: string
}

const code = (schema: string, type: string, object = false): Code => ({ schema, type, object })
const UNKNOWN = code("Schema.Unknown", "unknown")
const unknown = (reason: string) => code(`Schema.Unknown /* ${commentText(reason)} */`, "unknown")

/** Assertions with no counterpart here: the Schema accepts more than the JSON Schema when one is present. */
const UNCHECKED = [
  "not",
  "if",
  "uniqueItems",
  "contains",
  "patternProperties",
  "propertyNames",
  "minProperties",
  "maxProperties",
  "dependentRequired",
  "dependentSchemas",
  "dependencies",
  "unevaluatedProperties",
  "unevaluatedItems"
]

const FORMATS: { readonly [format: string]: string } = {
  "date-time": "^\\d{4}-\\d{2}-\\d{2}[Tt ]\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?([Zz]|[+-]\\d{2}:\\d{2})$",
  date: "^\\d{4}-\\d{2}-\\d{2}$",
  email: "^[^\\s@]+@[^\\s@]+$",
  uri: "^[A-Za-z][A-Za-z0-9+.-]*:"
}

const literalType = (value: unknown) => (typeof value === "string" ? JSON.stringify(value) : String(value))

const isPrimitive = (value: unknown): value is string | number | boolean | null =>
  value === null || typeof value === "string" || typeof value === "boolean" || Number.isFinite(value)

const literal = (values: ReadonlyArray<unknown>): Code => {
  const distinct = [...new Set(values)]
  if (distinct.length === 0) return code("Schema.Never", "never")
  if (!distinct.every(isPrimitive)) return unknown("an enum or const of objects or arrays")
  return code(
    `Schema.Literal(${distinct.map((value) => JSON.stringify(value)).join(", ")})`,
    distinct.map(literalType).join(" | ")
  )
}

const joined = (head: string, parts: ReadonlyArray<string>, tail: string, indent: string) => {
  const inline = `${head}${parts.join(", ")}${tail}`
  return inline.length <= 100 && !inline.includes("\n")
    ? inline
    : `${head}\n${parts.map((part) => `${indent}  ${part}`).join(",\n")}\n${indent}${tail}`
}

const union = (members: ReadonlyArray<Code>, indent: string): Code => {
  const [single] = members
  if (members.length === 1 && single !== undefined) return single
  if (members.length === 0) return code("Schema.Never", "never")
  return code(
    joined(
      "Schema.Union(",
      members.map((member) => member.schema),
      ")",
      indent
    ),
    members.map((member) => member.type).join(" | "),
    members.every((member) => member.object)
  )
}

const piped = (base: string, filters: ReadonlyArray<string>) =>
  filters.length === 0 ? base : `${base}.pipe(${filters.join(", ")})`

const finite = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value)
const count = (value: unknown): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 0

const regex = (pattern: string): string | undefined => {
  for (const flags of ["u", ""])
    try {
      new RegExp(pattern, flags)
      return `new RegExp(${JSON.stringify(pattern)}${flags === "" ? "" : `, "${flags}"`})`
    } catch {}
  return undefined
}

const stringCode = (schema: JsonObject): Code => {
  const filters: Array<string> = []
  const notes: Array<string> = []
  if (count(schema.minLength)) filters.push(`Schema.minLength(${schema.minLength})`)
  if (count(schema.maxLength)) filters.push(`Schema.maxLength(${schema.maxLength})`)
  const patterns = [
    ...(typeof schema.pattern === "string" ? [schema.pattern] : []),
    ...(typeof schema.format === "string" && FORMATS[schema.format] !== undefined ? [FORMATS[schema.format]] : [])
  ]
  for (const pattern of patterns) {
    const source = pattern === undefined ? undefined : regex(pattern)
    if (source === undefined) notes.push(`pattern ${pattern} is not a JavaScript regular expression`)
    else filters.push(`Schema.pattern(${source})`)
  }
  const base = schema.format === "uuid" ? "Schema.UUID" : "Schema.String"
  return code(
    piped(base, filters) + notes.map((note) => ` /* not checked here: ${commentText(note)} */`).join(""),
    "string"
  )
}

const numberCode = (schema: JsonObject, integer: boolean): Code => {
  const filters: Array<string> = []
  // Draft 4 writes an exclusive bound as a boolean beside minimum/maximum.
  if (finite(schema.minimum))
    filters.push(
      `Schema.${schema.exclusiveMinimum === true ? "greaterThan" : "greaterThanOrEqualTo"}(${schema.minimum})`
    )
  if (finite(schema.exclusiveMinimum)) filters.push(`Schema.greaterThan(${schema.exclusiveMinimum})`)
  if (finite(schema.maximum))
    filters.push(`Schema.${schema.exclusiveMaximum === true ? "lessThan" : "lessThanOrEqualTo"}(${schema.maximum})`)
  if (finite(schema.exclusiveMaximum)) filters.push(`Schema.lessThan(${schema.exclusiveMaximum})`)
  if (finite(schema.multipleOf) && schema.multipleOf > 0) filters.push(`Schema.multipleOf(${schema.multipleOf})`)
  // JSON has no NaN or infinity; `Schema.Int` is a safe integer (beyond 2^53 a JSON integer is not exact here).
  return code(piped(integer ? "Schema.Int" : "Schema.Finite", filters), "number")
}

const arrayCode = (schema: JsonObject, scope: Scope): Code => {
  const tuple = Array.isArray(schema.items) || "prefixItems" in schema
  const items = tuple
    ? unknown("tuple items are not typed")
    : schema.items === undefined
      ? UNKNOWN
      : emit(schema.items, scope)
  const filters = [
    ...(count(schema.minItems) ? [`Schema.minItems(${schema.minItems})`] : []),
    ...(count(schema.maxItems) ? [`Schema.maxItems(${schema.maxItems})`] : [])
  ]
  return code(piped(`Schema.Array(${items.schema})`, filters), `ReadonlyArray<${items.type}>`)
}

const recordCode = (value: Code) =>
  code(
    `Schema.Record({ key: Schema.String, value: ${value.schema} })`,
    `{ readonly [key: string]: ${value.type} }`,
    true
  )

const objectCode = (schema: JsonObject, scope: Scope): Code => {
  const properties = isObject(schema.properties) ? schema.properties : {}
  const required = new Set(
    Array.isArray(schema.required) ? schema.required.filter((name) => typeof name === "string") : []
  )
  const names = [...new Set([...Object.keys(properties), ...required])]
  const additional = schema.additionalProperties
  if (names.length === 0)
    return recordCode(
      additional === false
        ? code("Schema.Never", "never")
        : additional === undefined || additional === true
          ? UNKNOWN
          : emit(additional, scope)
    )
  const inner = { ...scope, indent: `${scope.indent}  ` }
  const fields = names.map((name) => {
    const optional = !required.has(name)
    // An optional property's Schema is an argument: one level deeper when it does not fit on the line.
    const value =
      name in properties
        ? emit(properties[name], optional ? { ...inner, indent: `${inner.indent}  ` } : inner)
        : UNKNOWN
    const key = propertyKey(name)
    const wrapped = `${key}: Schema.optionalWith(${value.schema}, { exact: true })`
    return {
      schema: !optional
        ? `${key}: ${value.schema}`
        : value.schema.includes("\n") || inner.indent.length + wrapped.length > LINE
          ? `${key}: Schema.optionalWith(\n${inner.indent}  ${value.schema},\n${inner.indent}  { exact: true }\n${inner.indent})`
          : wrapped,
      type: `readonly ${key}${optional ? "?" : ""}: ${value.type}`
    }
  })
  const struct = `Schema.Struct({\n${fields.map((field) => `${inner.indent}${field.schema}`).join(",\n")}\n${scope.indent}})`
  const type = `{\n${fields.map((field) => `${inner.indent}${field.type}`).join("\n")}\n${scope.indent}}`
  if (additional === false)
    return code(`${struct}.annotations({ parseOptions: { onExcessProperty: "error" } })`, type, true)
  if (additional === undefined || additional === true || (isObject(additional) && Object.keys(additional).length === 0))
    return code(struct, type, true)
  // The other keys' values: checked beside the properties (a Record beside a Struct would check every key).
  const others = emit(additional, inner)
  const known = JSON.stringify(names)
  return code(
    `${struct}.annotations({ parseOptions: { onExcessProperty: "preserve" } }).pipe(\n${inner.indent}Schema.filter((value) =>\n${inner.indent}  Object.entries(value).every(([key, item]) => ${known}.includes(key) || Schema.is(${others.schema})(item))\n${inner.indent})\n${scope.indent})`,
    type,
    true
  )
}

const typed = (type: unknown, schema: JsonObject, scope: Scope): Code => {
  switch (type) {
    case "string":
      return stringCode(schema)
    case "number":
      return numberCode(schema, false)
    case "integer":
      return numberCode(schema, true)
    case "boolean":
      return code("Schema.Boolean", "boolean")
    case "null":
      return code("Schema.Null", "null")
    case "array":
      return arrayCode(schema, scope)
    case "object":
      return objectCode(schema, scope)
    default:
      return unknown(`type ${JSON.stringify(type)}`)
  }
}

/** The types a schema without `type` means by its keywords (none: any value). */
const impliedTypes = (schema: JsonObject): ReadonlyArray<string> => {
  if ("properties" in schema || "additionalProperties" in schema || "required" in schema) return ["object"]
  if ("items" in schema || "minItems" in schema || "maxItems" in schema) return ["array"]
  if ("minLength" in schema || "maxLength" in schema || "pattern" in schema || "format" in schema) return ["string"]
  if ("minimum" in schema || "maximum" in schema || "multipleOf" in schema) return ["number"]
  return []
}

const reference = (ref: string, scope: Scope): Code => {
  const key = definitionKey(ref)
  const definition = scope.definitions.get(key)
  if (definition === undefined) return unknown(`$ref ${ref} is not followed`)
  if (definition.cyclic)
    return code(`Schema.suspend((): Schema.Schema<${definition.name}> => ${definition.name})`, definition.name)
  return code(definition.name, `typeof ${definition.name}.Type`, scope.objects.get(key) ?? false)
}

/** A part of `allOf` or a branch, a `$ref` to an acyclic definition read as the definition. */
const resolved = (schema: unknown, scope: Scope): JsonObject | string => {
  if (schema === true) return {}
  if (!isObject(schema)) return "a part that is not a schema"
  if (typeof schema.$ref !== "string") return schema
  const definition = scope.definitions.get(definitionKey(schema.$ref))
  if (definition === undefined || definition.cyclic) return `$ref ${schema.$ref} inside allOf`
  return resolved(definition.schema, scope)
}

const body = (schema: JsonObject, scope: Scope): Code => {
  if (typeof schema.$ref === "string") return reference(schema.$ref, scope)
  if (Array.isArray(schema.allOf)) {
    const merged = mergeAll(schema, (part) => resolved(part, scope))
    return typeof merged === "string" ? unknown(merged) : body(merged, scope)
  }
  const branches = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined
  if (branches !== undefined) {
    const rest = withoutKeys(schema, ["anyOf", "oneOf", ...ANNOTATIONS])
    const inner = { ...scope, indent: `${scope.indent}  ` }
    return union(
      branches.map((branch) => {
        // The keywords beside anyOf hold in every branch.
        if (Object.keys(rest).length === 0) return emit(branch, inner)
        const part = resolved(branch, scope)
        const merged = typeof part === "string" ? part : merge(rest, part)
        return typeof merged === "string" ? unknown(merged) : emit(merged, inner)
      }),
      scope.indent
    )
  }
  if ("const" in schema) return literal([schema.const])
  if (Array.isArray(schema.enum)) return literal(schema.enum)
  const types =
    typeof schema.type === "string" ? [schema.type] : Array.isArray(schema.type) ? schema.type : impliedTypes(schema)
  if (types.length === 0) return UNKNOWN
  return union(
    types.map((type) => typed(type, schema, scope)),
    scope.indent
  )
}

/** The width past which an expression is broken over lines. */
const LINE = 100

const annotated = (schema: JsonObject, inner: Code, indent: string): Code => {
  const annotations = (["title", "description"] as const).flatMap((key) =>
    typeof schema[key] === "string" ? [`${key}: ${JSON.stringify(schema[key])}`] : []
  )
  const unchecked = UNCHECKED.filter((key) => key in schema)
  const note = [
    ...(Array.isArray(schema.oneOf) ? ["oneOf is read as anyOf"] : []),
    ...(unchecked.length === 0 ? [] : [`not checked here: ${unchecked.join(", ")}`])
  ]
  // A comment ends the expression, so annotations go before it.
  const [expression, comment = ""] = inner.schema.endsWith("*/") ? splitComment(inner.schema) : [inner.schema]
  const text =
    (annotations.length === 0
      ? expression
      : `${expression}.annotations({ ${annotations.join(", ")} })`.length + indent.length <= LINE
        ? `${expression}.annotations({ ${annotations.join(", ")} })`
        : `${expression}.annotations({\n${annotations.map((line) => `${indent}  ${line}`).join(",\n")}\n${indent}})`) +
    comment +
    (note.length === 0 ? "" : ` /* ${commentText(note.join("; "))} */`)
  return { ...inner, schema: text }
}

const splitComment = (source: string): readonly [string, string] => {
  const at = source.lastIndexOf(" /* ")
  return at === -1 ? [source, ""] : [source.slice(0, at), source.slice(at)]
}

const emit = (schema: unknown, scope: Scope): Code => {
  if (schema === true) return UNKNOWN
  if (schema === false) return code("Schema.Never", "never")
  if (!isObject(schema)) return unknown("not a JSON Schema")
  return annotated(schema, body(schema, scope), scope.indent)
}

/**
 * The declarations of one schema document (a tool's input or output schema) under `name`, with
 * the definitions it uses; every name is taken from `names`. `object`: its values must be objects
 * (a tool's arguments): anything else is declared as a record of unknown values, with a comment.
 */
export const emitDocument = (
  name: string,
  root: unknown,
  names: Names,
  options: { readonly object: boolean; readonly doc?: string }
): string => {
  const graph = graphOf(root)
  const definitions = new Map<string, Definition>(
    [...graph.schemas].map(([key, schema]) => [
      key,
      {
        schema,
        name: key === "#" ? name : names.take(`${name}${pascalCase(key.split("/").pop() ?? "", "Definition")}`),
        cyclic: graph.cyclic.has(key)
      }
    ])
  )
  const objects = new Map<string, boolean>()
  const declarations: Array<string> = []
  const declare = (key: string, definition: Definition) => {
    const scope: Scope = { definitions, objects, indent: "" }
    const direct = emit(definition.schema, scope)
    const fallback = key === "#" && options.object && !direct.object
    const emitted = fallback ? recordCode(UNKNOWN) : direct
    objects.set(key, emitted.object)
    const description =
      key === "#"
        ? options.doc
        : isObject(definition.schema) && typeof definition.schema.description === "string"
          ? definition.schema.description
          : undefined
    const doc = description === undefined ? "" : `${jsDoc([description])}\n`
    const note = fallback ? " /* not an object schema: any object */" : ""
    declarations.push(
      definition.cyclic
        ? `${doc}export type ${definition.name} = ${emitted.type}\nexport const ${definition.name}: Schema.Schema<${definition.name}> = ${emitted.schema}${note}`
        : `${doc}export const ${definition.name} = ${emitted.schema}${note}\nexport type ${definition.name} = typeof ${definition.name}.Type`
    )
  }
  for (const key of graph.order) {
    const definition = definitions.get(key)
    if (definition !== undefined) declare(key, definition)
  }
  return declarations.join("\n\n")
}
