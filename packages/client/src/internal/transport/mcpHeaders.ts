/**
 * The HTTP headers of the stateless revision (2026-07-28): header values encoded as the spec
 * says (plain when safe, else `=?base64?…?=`), `Mcp-Name` for the requests that name something,
 * and `Mcp-Param-*` headers from a tool's `x-mcp-header` annotations, which are checked first
 * (a tool with an invalid annotation cannot be called over HTTP).
 */
import { McpSchema } from "@effect-mcp/protocol"

/** A value that looks encoded (the markers may share their `?`) is encoded again, so it reads back as itself. */
const looksEncoded = (value: string): boolean => value.startsWith("=?base64?") && value.endsWith("?=")

/** Plain visible ASCII, with spaces and tabs only inside. */
const isSafe = (value: string): boolean =>
  /^[\x21-\x7e]([\x20-\x7e\t]*[\x21-\x7e])?$/.test(value) && !looksEncoded(value)

const base64 = (value: string): string => {
  const bytes = new TextEncoder().encode(value)
  let binary = ""
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary)
}

/** A header value: strings as they are when safe, else Base64 in the spec's sentinel; numbers and booleans as text. */
export const encodeValue = (value: string | number | boolean): string => {
  const text = typeof value === "string" ? value : String(value)
  return isSafe(text) ? text : `=?base64?${base64(text)}?=`
}

/** The `Mcp-Name` of a request: the tool or prompt name, or the resource URI. */
export const nameOf = (method: string, params: { readonly [key: string]: unknown } | undefined): string | undefined => {
  const value =
    method === "tools/call" || method === "prompts/get"
      ? params?.name
      : method === "resources/read"
        ? params?.uri
        : method === "tasks/get" || method === "tasks/update" || method === "tasks/cancel"
          ? params?.taskId
          : undefined
  return typeof value === "string" ? encodeValue(value) : undefined
}

/** An RFC 9110 token. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

/** One `x-mcp-header` annotation: the header's name and the path of the argument it carries. */
export interface ParamHeader {
  readonly name: string
  readonly path: ReadonlyArray<string>
}

/**
 * The `x-mcp-header` annotations of an input schema, or why they are invalid: each must be a
 * non-empty token, unique (ignoring case), on a `string`, `integer` or `boolean` property that
 * is reached through `properties` alone.
 */
export const paramHeaders = (schema: {
  readonly [keyword: string]: unknown
}):
  | { readonly _tag: "Valid"; readonly headers: ReadonlyArray<ParamHeader> }
  | { readonly _tag: "Invalid"; readonly reason: string } => {
  const found: Array<ParamHeader> = []
  const problems: Array<string> = []
  const walk = (node: unknown, path: ReadonlyArray<string>, direct: boolean): void => {
    if (!McpSchema.isJsonObject(node)) return
    const annotation = node["x-mcp-header"]
    if (annotation !== undefined) {
      const at = path.length === 0 ? "the schema itself" : path.join(".")
      if (!direct || path.length === 0) problems.push(`x-mcp-header on ${at} is not reached through properties alone`)
      else if (typeof annotation !== "string" || annotation === "") problems.push(`x-mcp-header on ${at} is empty`)
      else if (!TOKEN.test(annotation)) problems.push(`x-mcp-header ${JSON.stringify(annotation)} is not a header name`)
      else if (!["string", "integer", "boolean"].includes(String(node.type)))
        problems.push(`x-mcp-header ${annotation} is on a property of type ${JSON.stringify(node.type ?? "none")}`)
      else if (found.some((header) => header.name.toLowerCase() === annotation.toLowerCase()))
        problems.push(`x-mcp-header ${annotation} is used twice`)
      else found.push({ name: annotation, path })
    }
    // Only a chain of `properties` reaches an argument: every other keyword's subschemas (items,
    // compositions, $defs, additionalProperties, patternProperties, …) is somewhere else.
    for (const [keyword, value] of Object.entries(node)) {
      if (keyword === "x-mcp-header" || keyword === "enum" || keyword === "const" || keyword === "default") continue
      if (keyword === "properties" && McpSchema.isJsonObject(value)) {
        for (const [key, child] of Object.entries(value)) walk(child, [...path, key], direct)
        continue
      }
      const children = Array.isArray(value)
        ? value
        : McpSchema.isJsonObject(value)
          ? [value, ...Object.values(value)]
          : []
      for (const child of children) walk(child, [...path, keyword], false)
    }
  }
  walk(schema, [], true)
  return problems.length === 0 ? { _tag: "Valid", headers: found } : { _tag: "Invalid", reason: problems.join("; ") }
}

/** The `Mcp-Param-*` headers of a call: each annotated argument that is present and not null. */
export const paramHeaderValues = (
  headers: ReadonlyArray<ParamHeader>,
  args: { readonly [key: string]: unknown } | undefined
): Readonly<Record<string, string>> => {
  const out: Record<string, string> = {}
  for (const header of headers) {
    let value: unknown = args
    for (const key of header.path) value = McpSchema.isJsonObject(value) ? value[key] : undefined
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
      out[`mcp-param-${header.name.toLowerCase()}`] = encodeValue(value)
    }
  }
  return out
}
