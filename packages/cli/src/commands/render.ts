/**
 * Human renderings of MCP content: text as text (a `text/*` blob too), other binary content as a one-line summary,
 * links and embedded resources by URI, structured content as indented JSON.
 */
import type { McpSchema } from "@effect-mcp/protocol"

const bytes = (base64: string) =>
  Math.floor((base64.length * 3) / 4) - (base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0)

const utf8 = new TextDecoder("utf-8", { fatal: true })

/** The text of a blob whose MIME type is `text/*` (decoded as UTF-8), `undefined` for any other or bytes that are not UTF-8. */
export const blobText = (mimeType: string | undefined, base64: string): string | undefined => {
  if (mimeType === undefined || !/^text\//i.test(mimeType.trim())) return undefined
  try {
    return utf8.decode(Buffer.from(base64, "base64"))
  } catch {
    return undefined
  }
}

/** One content block as lines of text. */
export const contentBlock = (block: McpSchema.ContentBlock): string => {
  switch (block.type) {
    case "text":
      return block.text
    case "image":
    case "audio":
      return `[${block.type} ${block.mimeType}, ${bytes(block.data)} bytes]`
    case "resource_link":
      return `[link] ${block.uri}${block.name === "" ? "" : ` (${block.name})`}`
    case "resource": {
      const { resource } = block
      if ("text" in resource) return `[resource ${resource.uri}]\n${resource.text}`
      const text = blobText(resource.mimeType, resource.blob)
      return text === undefined
        ? `[resource ${resource.uri}, ${resource.mimeType ?? "binary"}, ${bytes(resource.blob)} bytes]`
        : `[resource ${resource.uri}]\n${text}`
    }
  }
}

/** A resource's contents as text (a `text/*` blob decoded; other binary as a summary). */
export const resourceContents = (contents: McpSchema.TextResourceContents | McpSchema.BlobResourceContents): string => {
  if ("text" in contents) return contents.text
  return (
    blobText(contents.mimeType, contents.blob) ??
    `[${contents.mimeType ?? "binary"} ${contents.uri}, ${bytes(contents.blob)} bytes]`
  )
}

/** A prompt's name with its arguments: `<required>` and `[optional]`. */
export const promptSignature = (prompt: McpSchema.Prompt): string =>
  `${prompt.name}${(prompt.arguments ?? []).map((arg) => (arg.required === true ? ` <${arg.name}>` : ` [${arg.name}]`)).join("")}`

/** A server's log message as one line: `[level] logger: data` (data that is not text as JSON). */
export const logLine = (log: typeof McpSchema.LoggingMessageNotificationParams.Type): string =>
  `[${log.level}]${log.logger === undefined ? "" : ` ${log.logger}:`} ${typeof log.data === "string" ? log.data : JSON.stringify(log.data)}`
