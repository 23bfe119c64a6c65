/**
 * Small parsers for what people type: a command line split like a POSIX shell would (quotes
 * and backslashes, no expansion), `Name: value` headers, `KEY=VALUE` pairs, and tool or
 * prompt arguments as `key=value` (read by the input schema's type) or `key:=json`.
 */
import * as Either from "effect/Either"

/** Splits a command line into words; `Left` with a reason when a quote is left open. */
export const splitCommandLine = (line: string): Either.Either<ReadonlyArray<string>, string> => {
  const words: Array<string> = []
  let word = ""
  let inWord = false
  let quote: "'" | '"' | undefined
  for (let i = 0; i < line.length; i++) {
    const char = line[i] as string
    if (quote === "'") {
      if (char === "'") quote = undefined
      else word += char
    } else if (quote === '"') {
      if (char === '"') quote = undefined
      else if (char === "\\" && i + 1 < line.length && '"\\$`'.includes(line[i + 1] as string)) word += line[++i]
      else word += char
    } else if (char === "'" || char === '"') {
      quote = char
      inWord = true
    } else if (char === "\\" && i + 1 < line.length) {
      word += line[++i]
      inWord = true
    } else if (/\s/.test(char)) {
      if (inWord) words.push(word)
      word = ""
      inWord = false
    } else {
      word += char
      inWord = true
    }
  }
  if (quote !== undefined) return Either.left(`unclosed ${quote} quote`)
  if (inWord) words.push(word)
  return Either.right(words)
}

/** `Name: value` (or `Name=value`: a header's name has neither sign) as a header pair. */
export const parseHeader = (text: string): Either.Either<readonly [string, string], string> => {
  const split = text.search(/[:=]/)
  const name = split <= 0 ? "" : text.slice(0, split).trim()
  return /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)
    ? Either.right([name, text.slice(split + 1).trim()] as const)
    : Either.left(`expected "Name: value" (or Name=value), got a header without a valid name`)
}

/** `KEY=VALUE` as a pair. */
export const parseAssignment = (text: string): Either.Either<readonly [string, string], string> => {
  const equals = text.indexOf("=")
  return equals <= 0
    ? Either.left(`expected KEY=VALUE, got "${text.slice(0, 40)}"`)
    : Either.right([text.slice(0, equals), text.slice(equals + 1)] as const)
}

const parseJson = (text: string): Either.Either<unknown, string> =>
  Either.try({ try: () => JSON.parse(text) as unknown, catch: (cause) => String(cause) })

/** What a tool's input schema says of one property, as far as reading `key=value` goes. */
type PropertySchema = { readonly [keyword: string]: unknown }

const JSON_TYPES = ["string", "number", "integer", "boolean", "object", "array", "null"] as const

/** The JSON types a property admits, from its `type`, `enum` or `const`; empty when it does not say. */
const typesOf = (schema: PropertySchema | undefined): ReadonlyArray<string> => {
  if (schema === undefined) return []
  const type = schema.type
  if (typeof type === "string") return [type]
  if (Array.isArray(type)) return type.filter((one): one is string => typeof one === "string")
  const values = Array.isArray(schema.enum) ? schema.enum : "const" in schema ? [schema.const] : []
  if (values.length === 0) return []
  return [...new Set(values.map((value) => (value === null ? "null" : Array.isArray(value) ? "array" : typeof value)))]
}

const jsonTypeOf = (value: unknown): string =>
  value === null
    ? "null"
    : Array.isArray(value)
      ? "array"
      : typeof value === "number" && Number.isInteger(value)
        ? "integer"
        : typeof value

const admits = (types: ReadonlyArray<string>, value: unknown): boolean => {
  const type = jsonTypeOf(value)
  return types.includes(type) || (type === "integer" && types.includes("number"))
}

const isObject = (value: unknown): value is PropertySchema =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The schema of property `key`, when `properties` is an object holding one (2020-12 also allows `true`). */
const propertyOf = (properties: unknown, key: string): PropertySchema | undefined => {
  if (!isObject(properties) || !Object.hasOwn(properties, key)) return undefined
  const schema = properties[key]
  return isObject(schema) ? schema : undefined
}

/**
 * One `key=value` value, read by what the property's schema says: verbatim for a string, JSON
 * for other types, JSON when it parses else a string when the schema does not say.
 */
const readValue = (key: string, raw: string, schema: PropertySchema | undefined): Either.Either<unknown, string> => {
  const types = typesOf(schema).filter((type) => (JSON_TYPES as ReadonlyArray<string>).includes(type))
  if (types.length === 0) return Either.right(Either.getOrElse(parseJson(raw), () => raw))
  const parsed = Either.getRight(parseJson(raw))
  if (parsed._tag === "Some" && admits(types, parsed.value) && !(types.includes("string") && types.length === 1))
    return Either.right(parsed.value)
  if (types.includes("string")) return Either.right(raw)
  const wanted = types.join(" or ")
  return Either.left(
    `${key}=${raw.length > 40 ? `${raw.slice(0, 40)}…` : raw}: "${key}" takes ${/^[aeiou]/.test(wanted) ? "an" : "a"} ${wanted}` +
      ` (write ${key}:=<json> to give any JSON value)`
  )
}

/** The property names positional values fill, in order: the required ones, then the others as declared. */
const positionalOrder = (schema: unknown): ReadonlyArray<string> => {
  if (!isObject(schema)) return []
  const declared = isObject(schema.properties) ? Object.keys(schema.properties) : []
  const required = Array.isArray(schema.required)
    ? schema.required.filter((name): name is string => typeof name === "string" && declared.includes(name))
    : []
  return [...required, ...declared.filter((name) => !required.includes(name))]
}

/**
 * Arguments from `key=value` and `key:=json` words, and positional values. `key=value` is read by
 * the property's type in the tool's input schema (`properties`): a string property keeps the text
 * as it is (`123` stays `"123"`), other types read it as JSON; with no schema, JSON when it
 * parses, else a string. `key:=json` is always JSON. A word with neither is a positional value:
 * the values fill the properties not given by name, the required ones first, then the others in
 * the order the schema declares them, each read as `key=value` would be.
 */
export const parseArguments = (
  words: ReadonlyArray<string>,
  /** The tool's input schema, as the server sent it (any JSON: only object members are read). */
  schema: unknown = {}
): Either.Either<{ readonly [key: string]: unknown }, string> => {
  const properties = isObject(schema) ? schema.properties : undefined
  const result: Record<string, unknown> = {}
  const positional: Array<string> = []
  for (const word of words) {
    const typed = word.indexOf(":=")
    const plain = word.indexOf("=")
    if (typed > 0 && (plain === -1 || typed < plain)) {
      const key = word.slice(0, typed)
      const value = parseJson(word.slice(typed + 2))
      if (Either.isLeft(value)) return Either.left(`${key}:= needs JSON: ${value.left}`)
      result[key] = value.right
    } else if (plain > 0) {
      const key = word.slice(0, plain)
      const value = readValue(key, word.slice(plain + 1), propertyOf(properties, key))
      if (Either.isLeft(value)) return Either.left(value.left)
      result[key] = value.right
    } else {
      positional.push(word)
    }
  }
  if (positional.length === 0) return Either.right(result)
  const open = positionalOrder(schema).filter((name) => !Object.hasOwn(result, name))
  if (open.length === 0)
    return Either.left(
      `"${positional[0]?.slice(0, 40)}" is neither key=value nor key:=json, and the input schema has no property left for a positional value`
    )
  if (positional.length > open.length)
    return Either.left(
      `${positional.length} positional values for ${open.length} ${open.length === 1 ? "property" : "properties"} (${open.join(", ")})`
    )
  for (const [index, raw] of positional.entries()) {
    const key = open[index] ?? ""
    const value = readValue(key, raw, propertyOf(properties, key))
    if (Either.isLeft(value)) return Either.left(value.left)
    result[key] = value.right
  }
  return Either.right(result)
}

/**
 * Prompt arguments are strings: `key=value` words, values taken verbatim. With `order` (the
 * prompt's argument names, the required first), a word without `=` is a bare value: the bare
 * values fill the arguments not given by name, in that order, as a tool's positional values do.
 */
export const parseStringArguments = (
  words: ReadonlyArray<string>,
  order: ReadonlyArray<string> = []
): Either.Either<{ readonly [key: string]: string }, string> => {
  const result: Record<string, string> = {}
  const bare: Array<string> = []
  for (const word of words) {
    if (order.length > 0 && !word.includes("=")) {
      bare.push(word)
      continue
    }
    const pair = parseAssignment(word)
    if (Either.isLeft(pair)) return Either.left(pair.left)
    result[pair.right[0]] = pair.right[1]
  }
  const open = order.filter((name) => !Object.hasOwn(result, name))
  if (bare.length > open.length)
    return Either.left(
      open.length === 0
        ? `"${bare[0]?.slice(0, 40)}" is not KEY=VALUE, and no argument is left for a bare value`
        : `${bare.length} bare values for ${open.length} ${open.length === 1 ? "argument" : "arguments"} (${open.join(", ")})`
    )
  for (const [index, value] of bare.entries()) result[open[index] ?? ""] = value
  return Either.right(result)
}
