/**
 * A form generated from a JSON Schema (a tool's `inputSchema`): primitives, enums, nested objects,
 * arrays, `anyOf`/`oneOf` (a choice of branch), `$ref`/`$defs`, `allOf` (merged), defaults and
 * nullable. What it cannot draw (maps, tuples, no type) it edits as JSON.
 */
import { type ReactNode, useState } from "react"
import { isObject, type JsonObject, pretty } from "../mcp.js"

type Kind =
  | { readonly k: "enum"; readonly values: ReadonlyArray<unknown>; readonly labels: ReadonlyArray<string> }
  | { readonly k: "const"; readonly value: unknown }
  | { readonly k: "union"; readonly branches: ReadonlyArray<JsonObject> }
  | { readonly k: "object" }
  | { readonly k: "array" }
  | { readonly k: "string" }
  | { readonly k: "number"; readonly integer: boolean }
  | { readonly k: "boolean" }
  | { readonly k: "null" }
  | { readonly k: "json" }

const MaxDepth = 12

/** Follows `$ref` (a JSON pointer into the root) and merges `allOf`; siblings of a `$ref` win. */
export const resolve = (schema: unknown, root: JsonObject, depth = 0): JsonObject => {
  if (!isObject(schema)) return {}
  let s: JsonObject = schema
  if (typeof s.$ref === "string" && depth < MaxDepth) {
    const { $ref, ...rest } = s
    s = { ...resolve(pointer(root, $ref), root, depth + 1), ...rest }
  }
  if (Array.isArray(s.allOf) && depth < MaxDepth) {
    const { allOf, ...rest } = s
    let merged: JsonObject = {}
    for (const part of allOf) {
      const r = resolve(part, root, depth + 1)
      merged = {
        ...merged,
        ...r,
        properties: {
          ...(isObject(merged.properties) ? merged.properties : {}),
          ...(isObject(r.properties) ? r.properties : {})
        },
        required: [
          ...(Array.isArray(merged.required) ? merged.required : []),
          ...(Array.isArray(r.required) ? r.required : [])
        ]
      }
    }
    s = { ...merged, ...rest }
  }
  return s
}

const pointer = (root: JsonObject, ref: string): unknown => {
  if (!ref.startsWith("#")) return {}
  const parts = ref
    .slice(1)
    .split("/")
    .filter((p) => p !== "")
    .map((p) => decodeURIComponent(p).replaceAll("~1", "/").replaceAll("~0", "~"))
  let at: unknown = root
  for (const p of parts) at = isObject(at) ? at[p] : Array.isArray(at) ? at[Number(p)] : undefined
  return at
}

const isNullSchema = (s: unknown) => isObject(s) && s.type === "null"

/** Splits "X or null" into X and a flag. */
const unNull = (s: JsonObject, root: JsonObject): { schema: JsonObject; nullable: boolean } => {
  if (Array.isArray(s.type) && s.type.includes("null")) {
    const types = s.type.filter((t) => t !== "null")
    return { schema: { ...s, type: types.length === 1 ? types[0] : types }, nullable: true }
  }
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = s[key]
    if (Array.isArray(branches) && branches.some((b) => isNullSchema(resolve(b, root)))) {
      const rest = branches.filter((b) => !isNullSchema(resolve(b, root)))
      const { [key]: _, ...others } = s
      const inner = rest.length === 1 ? { ...others, ...resolve(rest[0], root) } : { ...others, [key]: rest }
      return { schema: inner, nullable: true }
    }
  }
  if (s.nullable === true) return { schema: s, nullable: true }
  return { schema: s, nullable: false }
}

const kindOf = (s: JsonObject, root: JsonObject): Kind => {
  if (Array.isArray(s.enum)) return { k: "enum", values: s.enum, labels: s.enum.map(label) }
  if ("const" in s) return { k: "const", value: s.const }
  const branches = Array.isArray(s.oneOf) ? s.oneOf : Array.isArray(s.anyOf) ? s.anyOf : undefined
  if (branches !== undefined) {
    const resolved = branches.map((b) => resolve(b, root))
    // A oneOf of consts is an enum with titles (as elicitation schemas write it).
    if (resolved.every((b) => "const" in b))
      return {
        k: "enum",
        values: resolved.map((b) => b.const),
        labels: resolved.map((b) => (typeof b.title === "string" ? b.title : label(b.const)))
      }
    return { k: "union", branches: resolved }
  }
  const type = Array.isArray(s.type) ? s.type[0] : s.type
  switch (type) {
    case "string":
      return { k: "string" }
    case "number":
      return { k: "number", integer: false }
    case "integer":
      return { k: "number", integer: true }
    case "boolean":
      return { k: "boolean" }
    case "null":
      return { k: "null" }
    case "object":
      return isObject(s.properties) ? { k: "object" } : { k: "json" }
    case "array":
      return isObject(s.items) ? { k: "array" } : { k: "json" }
    default:
      if (isObject(s.properties)) return { k: "object" }
      if (isObject(s.items)) return { k: "array" }
      return { k: "json" }
  }
}

const label = (v: unknown): string => (typeof v === "string" ? v : JSON.stringify(v))

const requiredOf = (s: JsonObject): ReadonlySet<string> =>
  new Set(Array.isArray(s.required) ? s.required.filter((r): r is string => typeof r === "string") : [])

/** The value a fresh form starts with: defaults, and what is required. */
export const initialValue = (schema: unknown, root: JsonObject, required: boolean, depth = 0): unknown => {
  const resolved = resolve(schema, root)
  if ("default" in resolved) return resolved.default
  const { schema: s, nullable } = unNull(resolved, root)
  if ("default" in s) return s.default
  if (depth > MaxDepth) return undefined
  const kind = kindOf(s, root)
  switch (kind.k) {
    case "object": {
      const req = requiredOf(s)
      const out: Record<string, unknown> = {}
      for (const [key, child] of Object.entries(isObject(s.properties) ? s.properties : {})) {
        const v = initialValue(child, root, req.has(key), depth + 1)
        if (v !== undefined) out[key] = v
      }
      return required || Object.keys(out).length > 0 ? out : undefined
    }
    case "array":
      return required ? [] : undefined
    case "string":
      return required && !nullable ? "" : undefined
    case "boolean":
      return required ? false : undefined
    case "enum":
      return required ? kind.values[0] : undefined
    case "const":
      return kind.value
    case "union":
      return required && kind.branches[0] !== undefined
        ? initialValue(kind.branches[0], root, true, depth + 1)
        : undefined
    case "null":
      return null
    default:
      return undefined
  }
}

const matches = (v: unknown, s: JsonObject, root: JsonObject): boolean => {
  if ("const" in s) return JSON.stringify(s.const) === JSON.stringify(v)
  const kind = kindOf(unNull(s, root).schema, root)
  switch (kind.k) {
    case "string":
      return typeof v === "string"
    case "number":
      return typeof v === "number"
    case "boolean":
      return typeof v === "boolean"
    case "null":
      return v === null
    case "array":
      return Array.isArray(v)
    case "enum":
      return kind.values.some((x) => JSON.stringify(x) === JSON.stringify(v))
    case "object": {
      if (!isObject(v)) return false
      const props = isObject(s.properties) ? s.properties : {}
      for (const key of requiredOf(s)) if (!(key in v)) return false
      for (const [key, p] of Object.entries(props)) {
        const r = resolve(p, root)
        if ("const" in r && key in v && JSON.stringify(v[key]) !== JSON.stringify(r.const)) return false
      }
      return true
    }
    default:
      return v !== undefined
  }
}

const branchTitle = (b: JsonObject, i: number, root: JsonObject): string => {
  if (typeof b.title === "string") return b.title
  const props = isObject(b.properties) ? b.properties : {}
  for (const p of Object.values(props)) {
    const r = resolve(p, root)
    if ("const" in r) return label(r.const)
  }
  const t = Array.isArray(b.type) ? b.type.join(" | ") : typeof b.type === "string" ? b.type : undefined
  return t ?? `Option ${i + 1}`
}

interface FieldProps {
  readonly schema: unknown
  readonly root: JsonObject
  readonly value: unknown
  readonly onChange: (v: unknown) => void
  readonly name: string
  readonly id: string
  readonly required: boolean
  readonly depth: number
}

/** The whole form: the root schema is an object whose properties are the fields. */
export function SchemaForm(props: {
  readonly schema: JsonObject
  readonly value: unknown
  readonly onChange: (v: unknown) => void
  readonly idPrefix: string
}) {
  return (
    <div className="schema-form">
      <Field
        schema={props.schema}
        root={props.schema}
        value={props.value}
        onChange={props.onChange}
        name=""
        id={props.idPrefix}
        required
        depth={0}
      />
    </div>
  )
}

const safeId = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, (c) => `_${c.charCodeAt(0).toString(16)}`)

function Field(p: FieldProps) {
  const resolved = resolve(p.schema, p.root)
  const { schema, nullable } = unNull(resolved, p.root)
  const kind = kindOf(schema, p.root)
  const title = typeof schema.title === "string" ? schema.title : p.name
  const description = typeof schema.description === "string" ? schema.description : undefined
  const descId = description !== undefined ? `${p.id}-desc` : undefined

  if (p.depth > MaxDepth) return <JsonField {...p} label={title} descId={descId} description={description} />
  // A tool that takes no arguments says `{ type: "object" }` and nothing more.
  if (
    p.depth === 0 &&
    kind.k === "json" &&
    !isObject(schema.additionalProperties) &&
    schema.additionalProperties !== true
  )
    return <p className="muted">No arguments.</p>

  const isNull = nullable && p.value === null
  const nullToggle = nullable ? (
    <label className="null-toggle">
      <input
        type="checkbox"
        checked={isNull}
        onChange={(e) => p.onChange(e.target.checked ? null : initialValue(schema, p.root, true, p.depth + 1))}
      />
      null
      <span className="visually-hidden"> ({title || "value"})</span>
    </label>
  ) : null

  if (kind.k === "object") {
    const props = isObject(schema.properties) ? schema.properties : {}
    const req = requiredOf(schema)
    const obj = isObject(p.value) ? p.value : {}
    const fields = Object.entries(props).map(([key, child]) => (
      <Field
        key={key}
        schema={child}
        root={p.root}
        value={obj[key]}
        onChange={(v) => {
          const next: Record<string, unknown> = { ...obj }
          if (v === undefined) delete next[key]
          else next[key] = v
          p.onChange(next)
        }}
        name={key}
        id={`${p.id}-${safeId(key)}`}
        required={req.has(key)}
        depth={p.depth + 1}
      />
    ))
    if (p.depth === 0) return <>{fields.length > 0 ? fields : <p className="muted">No arguments.</p>}</>
    return (
      <fieldset className="field-object" aria-describedby={descId}>
        <legend>
          {title}
          {p.required ? <Req /> : null}
        </legend>
        {description !== undefined ? <Desc id={descId} text={description} /> : null}
        {nullToggle}
        {isNull ? null : fields}
      </fieldset>
    )
  }

  if (kind.k === "array") {
    const items = Array.isArray(p.value) ? p.value : []
    return (
      <fieldset className="field-array" aria-describedby={descId}>
        <legend>
          {title}
          {p.required ? <Req /> : null}
        </legend>
        {description !== undefined ? <Desc id={descId} text={description} /> : null}
        {nullToggle}
        {isNull ? null : (
          <>
            <ol className="array-items">
              {items.map((item, i) => (
                // Items have no identity but their place.
                // biome-ignore lint/suspicious/noArrayIndexKey: the index is the item's identity here
                <li key={i} className="array-item">
                  <Field
                    schema={schema.items}
                    root={p.root}
                    value={item}
                    onChange={(v) => p.onChange(items.map((x, j) => (j === i ? v : x)))}
                    name={`${title} ${i + 1}`}
                    id={`${p.id}-${i}`}
                    required
                    depth={p.depth + 1}
                  />
                  <button
                    type="button"
                    className="small"
                    aria-label={`Remove ${title} ${i + 1}`}
                    onClick={() => p.onChange(items.filter((_, j) => j !== i))}
                  >
                    Remove
                  </button>
                </li>
              ))}
            </ol>
            <button
              type="button"
              className="small"
              aria-label={`Add ${title} item`}
              onClick={() => p.onChange([...items, initialValue(schema.items, p.root, true, p.depth + 1)])}
            >
              + Add item
            </button>
          </>
        )}
      </fieldset>
    )
  }

  if (kind.k === "union") return <UnionField {...p} schema={schema} branches={kind.branches} title={title} />

  const labelEl = (
    <label htmlFor={p.id}>
      {title}
      {p.required ? <Req /> : null}
      {typeof schema.type === "string" || kind.k === "enum" ? (
        <span className="type-hint">{kind.k === "enum" ? "enum" : String(schema.type)}</span>
      ) : null}
    </label>
  )
  let control: ReactNode
  switch (kind.k) {
    case "enum": {
      const index = kind.values.findIndex((v) => JSON.stringify(v) === JSON.stringify(p.value))
      control = (
        <select
          id={p.id}
          aria-describedby={descId}
          value={index === -1 ? "" : String(index)}
          disabled={isNull}
          onChange={(e) => p.onChange(e.target.value === "" ? undefined : kind.values[Number(e.target.value)])}
        >
          {p.required && index !== -1 ? null : <option value="">—</option>}
          {kind.labels.map((l, i) => (
            <option key={l} value={String(i)}>
              {l}
            </option>
          ))}
        </select>
      )
      break
    }
    case "const":
      control = (
        <output id={p.id} className="const">
          {label(kind.value)}
        </output>
      )
      break
    case "string":
      control = (
        <input
          id={p.id}
          aria-describedby={descId}
          type={inputType(schema.format)}
          value={typeof p.value === "string" ? p.value : ""}
          disabled={isNull}
          placeholder={typeof schema.format === "string" ? schema.format : undefined}
          minLength={typeof schema.minLength === "number" ? schema.minLength : undefined}
          maxLength={typeof schema.maxLength === "number" ? schema.maxLength : undefined}
          onChange={(e) => p.onChange(e.target.value === "" && !p.required ? undefined : e.target.value)}
        />
      )
      break
    case "number":
      control = (
        <NumberInput
          id={p.id}
          descId={descId}
          value={p.value}
          integer={kind.integer}
          disabled={isNull}
          min={typeof schema.minimum === "number" ? schema.minimum : undefined}
          max={typeof schema.maximum === "number" ? schema.maximum : undefined}
          onChange={p.onChange}
        />
      )
      break
    case "boolean":
      return (
        <div className="field field-boolean">
          <input
            id={p.id}
            type="checkbox"
            aria-describedby={descId}
            checked={p.value === true}
            disabled={isNull}
            onChange={(e) => p.onChange(e.target.checked)}
          />
          {labelEl}
          {nullToggle}
          {description !== undefined ? <Desc id={descId} text={description} /> : null}
        </div>
      )
    case "null":
      control = (
        <output id={p.id} className="const">
          null
        </output>
      )
      break
    default:
      return <JsonField {...p} label={title} descId={descId} description={description} />
  }
  return (
    <div className="field">
      {labelEl}
      <div className="field-control">
        {control}
        {nullToggle}
      </div>
      {description !== undefined ? <Desc id={descId} text={description} /> : null}
    </div>
  )
}

const inputType = (format: unknown): string => {
  switch (format) {
    case "email":
      return "email"
    case "uri":
    case "url":
      return "url"
    case "date":
      return "date"
    case "time":
      return "time"
    default:
      return "text"
  }
}

const Req = () => (
  <span className="required" title="required">
    *<span className="visually-hidden"> (required)</span>
  </span>
)

const Desc = (props: { readonly id: string | undefined; readonly text: string }) => (
  <p id={props.id} className="field-desc">
    {props.text}
  </p>
)

/** Keeps the text as typed (`1.`, `-`), and hands on the number once it is one. */
function NumberInput(props: {
  readonly id: string
  readonly descId: string | undefined
  readonly value: unknown
  readonly integer: boolean
  readonly disabled: boolean
  readonly min: number | undefined
  readonly max: number | undefined
  readonly onChange: (v: unknown) => void
}) {
  const [text, setText] = useState(typeof props.value === "number" ? String(props.value) : "")
  const shown = typeof props.value === "number" && Number(text) !== props.value ? String(props.value) : text
  return (
    <input
      id={props.id}
      aria-describedby={props.descId}
      type="number"
      inputMode={props.integer ? "numeric" : "decimal"}
      step={props.integer ? 1 : "any"}
      min={props.min}
      max={props.max}
      disabled={props.disabled}
      value={props.value === undefined ? (text === "" ? "" : text) : shown}
      onChange={(e) => {
        setText(e.target.value)
        const n = e.target.valueAsNumber
        props.onChange(e.target.value === "" || Number.isNaN(n) ? undefined : n)
      }}
    />
  )
}

function UnionField(
  p: FieldProps & { readonly schema: JsonObject; readonly branches: ReadonlyArray<JsonObject>; readonly title: string }
) {
  const found = p.branches.findIndex((b) => p.value !== undefined && matches(p.value, b, p.root))
  const [chosen, setChosen] = useState(found === -1 ? 0 : found)
  // The branch chosen stays while the value fits it; a value from outside (raw JSON) picks its own.
  const index =
    p.value === undefined || found === -1 || matches(p.value, p.branches[chosen] ?? {}, p.root) ? chosen : found
  const branch = p.branches[index] ?? {}
  const description = typeof p.schema.description === "string" ? p.schema.description : undefined
  return (
    <fieldset className="field-union">
      <legend>
        {p.title}
        {p.required ? <Req /> : null}
      </legend>
      {description !== undefined ? <Desc id={undefined} text={description} /> : null}
      <div className="field">
        <label htmlFor={`${p.id}-branch`}>Variant</label>
        <select
          id={`${p.id}-branch`}
          value={String(index)}
          onChange={(e) => {
            const i = Number(e.target.value)
            setChosen(i)
            p.onChange(initialValue(p.branches[i], p.root, true, p.depth + 1))
          }}
        >
          {p.branches.map((b, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: branches are fixed by the schema
            <option key={i} value={String(i)}>
              {branchTitle(b, i, p.root)}
            </option>
          ))}
        </select>
      </div>
      <Field {...p} schema={{ title: `${p.title} value`, ...branch }} id={`${p.id}-v${index}`} depth={p.depth + 1} />
    </fieldset>
  )
}

/** Any value, as JSON text. */
function JsonField(
  p: FieldProps & {
    readonly label: string
    readonly descId: string | undefined
    readonly description: string | undefined
  }
) {
  const [text, setText] = useState(p.value === undefined ? "" : pretty(p.value))
  const [error, setError] = useState<string | undefined>(undefined)
  return (
    <div className="field field-json">
      <label htmlFor={p.id}>
        {p.label}
        {p.required ? <Req /> : null}
        <span className="type-hint">JSON</span>
      </label>
      <textarea
        id={p.id}
        aria-describedby={p.descId}
        aria-invalid={error !== undefined}
        rows={3}
        spellCheck={false}
        value={text}
        onChange={(e) => {
          setText(e.target.value)
          if (e.target.value.trim() === "") {
            setError(undefined)
            p.onChange(undefined)
            return
          }
          try {
            p.onChange(JSON.parse(e.target.value))
            setError(undefined)
          } catch (err) {
            setError(err instanceof Error ? err.message : "invalid JSON")
          }
        }}
      />
      {error !== undefined ? <p className="field-error">{error}</p> : null}
      {p.description !== undefined ? <Desc id={p.descId} text={p.description} /> : null}
    </div>
  )
}
