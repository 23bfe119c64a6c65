/**
 * How a tool reads for a person: its signature (`get-sum a:number b:number [c:string]`),
 * title, behaviour hints (read-only, destructive, idempotent, open-world), and its input and
 * output schemas as an indented tree; an MCP Apps view's mark and what its resource declares.
 */
import type { McpClient } from "@effect-mcp/client"
import { McpApps } from "@effect-mcp/protocol"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { sanitize } from "../internal/controls.js"

type JsonObject = { readonly [keyword: string]: unknown }

const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const refName = (ref: unknown) => (typeof ref === "string" ? (ref.split("/").at(-1) ?? ref) : "ref")

/** A short type of a JSON Schema: `string`, `number`, `"a"|"b"`, `string[]`, `object`, `Ref`. */
export const typeOf = (schema: unknown): string => {
  if (!isObject(schema)) return "any"
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => JSON.stringify(value)).join("|")
  if ("const" in schema) return JSON.stringify(schema.const)
  if (schema.$ref !== undefined) return refName(schema.$ref)
  for (const keyword of ["anyOf", "oneOf"] as const) {
    const members = schema[keyword]
    if (Array.isArray(members)) return members.map(typeOf).join("|")
  }
  const type = schema.type
  if (Array.isArray(type)) return type.map((one) => (typeof one === "string" ? one : "any")).join("|")
  if (type === "array") return `${typeOf(schema.items)}[]`
  return typeof type === "string" ? type : "any"
}

const propertiesOf = (schema: JsonObject): ReadonlyArray<readonly [string, unknown]> =>
  isObject(schema.properties) ? Object.entries(schema.properties) : []

const requiredOf = (schema: JsonObject): ReadonlyArray<unknown> =>
  Array.isArray(schema.required) ? schema.required : []

/** `name a:number b:number [c:string]`: required arguments first as declared, optional ones in brackets. */
export const signature = (tool: McpClient.Tool): string => {
  const required = requiredOf(tool.inputSchema)
  const args = propertiesOf(tool.inputSchema).map(([name, schema]) =>
    required.includes(name) ? `${name}:${typeOf(schema)}` : `[${name}:${typeOf(schema)}]`
  )
  return sanitize([tool.name, ...args].join(" "))
}

/** The behaviour hints a tool declares, in words. */
export const hints = (tool: McpClient.Tool): ReadonlyArray<string> => {
  const annotations = tool.annotations
  if (annotations === undefined) return []
  return [
    annotations.readOnlyHint === true ? "read-only" : undefined,
    annotations.destructiveHint === true && annotations.readOnlyHint !== true ? "destructive" : undefined,
    annotations.idempotentHint === true ? "idempotent" : undefined,
    annotations.openWorldHint === true ? "open-world" : undefined
  ].filter((hint) => hint !== undefined)
}

/** The tool's title, from `title` or its annotations. */
export const titleOf = (tool: McpClient.Tool): string | undefined => tool.title ?? tool.annotations?.title

/** The description column of `tools list`: title, description and hints. */
export const summary = (tool: McpClient.Tool): string => {
  const title = titleOf(tool)
  const marks = hints(tool)
  return [
    title === undefined || title === tool.name ? undefined : `${title}:`,
    tool.description,
    marks.length === 0 ? undefined : `(${marks.join(", ")})`,
    viewMark(tool)
  ]
    .filter((part) => part !== undefined && part !== "")
    .join(" ")
}

const constraints = (schema: JsonObject): string => {
  const words: Array<string> = []
  for (const keyword of ["format", "pattern", "minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems"])
    if (schema[keyword] !== undefined) words.push(`${keyword} ${JSON.stringify(schema[keyword])}`)
  if (schema.default !== undefined) words.push(`default ${JSON.stringify(schema.default)}`)
  return words.join(", ")
}

/**
 * A JSON Schema object as lines: one per property (`name  type  required  description`),
 * nested objects and arrays of objects indented under their property.
 */
export const schemaTree = (schema: unknown, indent = "  ", depth = 0): ReadonlyArray<string> => {
  if (!isObject(schema) || depth > 6) return []
  const required = requiredOf(schema)
  const rows = propertiesOf(schema)
  const width = Math.max(0, ...rows.map(([name]) => name.length))
  return rows.flatMap(([name, property]) => {
    const details = isObject(property) ? property : {}
    const parts = [
      `${name.padEnd(width)}  ${typeOf(property)}`,
      required.includes(name) ? "required" : "optional",
      typeof details.description === "string" ? details.description.replace(/\s+/g, " ") : undefined,
      constraints(details) || undefined
    ].filter((part) => part !== undefined)
    const nested = details.type === "array" && isObject(details.items) ? details.items : details
    return [sanitize(`${indent}${parts.join("  ")}`), ...schemaTree(nested, `${indent}  `, depth + 1)]
  })
}

/** `[view]` for a tool with an MCP Apps view, `[view, app only]` when the model is not given it. */
export const viewMark = (tool: McpClient.Tool): string | undefined => {
  const ui = tool.ui
  if (ui === undefined) return undefined
  const appOnly = !McpApps.visibleToModel(ui)
  if (ui.resourceUri === undefined) return appOnly ? "[app only]" : undefined
  return appOnly ? "[view, app only]" : "[view]"
}

const domains = (label: string, list: ReadonlyArray<string> | undefined) =>
  list === undefined || list.length === 0 ? [] : [`${label} ${list.map(sanitize).join(" ")}`]

/**
 * What a view's resource declares, as lines: its CSP domains (none: the specification's restrictive
 * default), the permissions it asks for, its dedicated origin and border preference.
 */
export const viewDeclaration = (meta: McpApps.ResourceMeta | undefined): ReadonlyArray<string> => {
  const csp = meta?.csp
  const allowed = [
    ...domains("connect", csp?.connectDomains),
    ...domains("resources", csp?.resourceDomains),
    ...domains("frames", csp?.frameDomains),
    ...domains("base-uri", csp?.baseUriDomains)
  ]
  const permissions = Object.keys(meta?.permissions ?? {})
  return [
    `csp  ${allowed.length === 0 ? "no external domains (the restrictive default)" : allowed.join("; ")}`,
    ...(permissions.length === 0 ? [] : [`permissions  ${permissions.join(", ")}`]),
    ...(meta?.domain === undefined ? [] : [`domain  ${sanitize(meta.domain)}`]),
    ...(meta?.prefersBorder === undefined ? [] : [`border  ${meta.prefersBorder ? "yes" : "no"}`])
  ]
}

const decodeResourceMeta = Schema.decodeUnknownOption(McpApps.ResourceMeta)

/** A view's declaration from a resource's `_meta.ui` (none when absent or malformed). */
export const resourceMetaOf = (
  meta: { readonly [key: string]: unknown } | undefined
): McpApps.ResourceMeta | undefined =>
  meta?.ui === undefined ? undefined : Option.getOrUndefined(decodeResourceMeta(meta.ui))
