/**
 * Readers of the MCP shapes the host passes on as JSON: the page trusts nothing it is given, so
 * each field is checked before it is shown (a missing or odd field reads as absent).
 */
export type JsonObject = { readonly [k: string]: unknown }

export const isObject = (u: unknown): u is JsonObject => typeof u === "object" && u !== null && !Array.isArray(u)
export const str = (u: unknown): string | undefined => (typeof u === "string" ? u : undefined)
export const num = (u: unknown): number | undefined => (typeof u === "number" ? u : undefined)

export interface ToolInfo {
  readonly name: string
  readonly title?: string | undefined
  readonly description?: string | undefined
  readonly inputSchema: JsonObject
  readonly outputSchema?: JsonObject | undefined
  /** Its view's `ui://` address (MCP Apps), as the host read it. */
  readonly view?: string | undefined
  /** `execution.taskSupport`: whether it may (`optional`) or must (`required`) run as a task. */
  readonly taskSupport?: string | undefined
  readonly annotations: {
    readonly title?: string | undefined
    readonly readOnlyHint?: boolean | undefined
    readonly destructiveHint?: boolean | undefined
    readonly idempotentHint?: boolean | undefined
    readonly openWorldHint?: boolean | undefined
  }
}

const bool = (u: unknown): boolean | undefined => (typeof u === "boolean" ? u : undefined)

export const readTool = (u: unknown): ToolInfo | undefined => {
  if (!isObject(u) || typeof u.name !== "string") return undefined
  const a = isObject(u.annotations) ? u.annotations : {}
  return {
    name: u.name,
    title: str(u.title) ?? str(a.title),
    description: str(u.description),
    inputSchema: isObject(u.inputSchema) ? u.inputSchema : { type: "object" },
    outputSchema: isObject(u.outputSchema) ? u.outputSchema : undefined,
    view:
      isObject(u.ui) && typeof u.ui.resourceUri === "string" && u.ui.resourceUri.startsWith("ui://")
        ? u.ui.resourceUri
        : undefined,
    taskSupport: isObject(u.execution) ? str(u.execution.taskSupport) : undefined,
    annotations: {
      title: str(a.title),
      readOnlyHint: bool(a.readOnlyHint),
      destructiveHint: bool(a.destructiveHint),
      idempotentHint: bool(a.idempotentHint),
      openWorldHint: bool(a.openWorldHint)
    }
  }
}

export interface ResourceInfo {
  readonly uri: string
  readonly name: string
  readonly title?: string | undefined
  readonly description?: string | undefined
  readonly mimeType?: string | undefined
}

export const readResourceInfo = (u: unknown): ResourceInfo | undefined =>
  isObject(u) && typeof u.uri === "string"
    ? {
        uri: u.uri,
        name: str(u.name) ?? u.uri,
        title: str(u.title),
        description: str(u.description),
        mimeType: str(u.mimeType)
      }
    : undefined

export interface TemplateInfo {
  readonly uriTemplate: string
  readonly name: string
  readonly title?: string | undefined
  readonly description?: string | undefined
  readonly mimeType?: string | undefined
}

export const readTemplate = (u: unknown): TemplateInfo | undefined =>
  isObject(u) && typeof u.uriTemplate === "string"
    ? {
        uriTemplate: u.uriTemplate,
        name: str(u.name) ?? u.uriTemplate,
        title: str(u.title),
        description: str(u.description),
        mimeType: str(u.mimeType)
      }
    : undefined

export interface PromptArgument {
  readonly name: string
  readonly description?: string | undefined
  readonly required: boolean
}
export interface PromptInfo {
  readonly name: string
  readonly title?: string | undefined
  readonly description?: string | undefined
  readonly arguments: ReadonlyArray<PromptArgument>
}

export const readPrompt = (u: unknown): PromptInfo | undefined => {
  if (!isObject(u) || typeof u.name !== "string") return undefined
  const args = Array.isArray(u.arguments) ? u.arguments : []
  return {
    name: u.name,
    title: str(u.title),
    description: str(u.description),
    arguments: args.flatMap(
      (a): Array<PromptArgument> =>
        isObject(a) && typeof a.name === "string"
          ? [{ name: a.name, description: str(a.description), required: a.required === true }]
          : []
    )
  }
}

export const defined = <A>(a: A | undefined): a is A => a !== undefined

/** Only these schemes are ever opened or linked. */
export const isWebUrl = (s: string): boolean => {
  try {
    const url = new URL(s)
    return url.protocol === "http:" || url.protocol === "https:"
  } catch {
    return false
  }
}

export const pretty = (u: unknown): string => {
  try {
    return JSON.stringify(u, null, 2) ?? String(u)
  } catch {
    return String(u)
  }
}

export const formatBytes = (n: number): string =>
  n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} kB` : `${(n / 1024 / 1024).toFixed(1)} MB`

export const formatTime = (t: number): string => {
  const d = new Date(t)
  const pad = (n: number, w = 2) => String(n).padStart(w, "0")
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`
}
