/**
 * Human renderings of MCP content: text as text, binary content as a one-line summary,
 * links and embedded resources by URI, structured content as indented JSON.
 */
import type { McpSchema } from "@effect-mcp/protocol"

const bytes = (base64: string) =>
  Math.floor((base64.length * 3) / 4) - (base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0)

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
    case "resource":
      return "text" in block.resource
        ? `[resource ${block.resource.uri}]\n${block.resource.text}`
        : `[resource ${block.resource.uri}, ${block.resource.mimeType ?? "binary"}, ${bytes(block.resource.blob)} bytes]`
  }
}

/** A resource's contents as text (binary as a summary). */
export const resourceContents = (contents: McpSchema.TextResourceContents | McpSchema.BlobResourceContents): string =>
  "text" in contents
    ? contents.text
    : `[${contents.mimeType ?? "binary"} ${contents.uri}, ${bytes(contents.blob)} bytes]`

/** A prompt's name with its arguments: `<required>` and `[optional]`. */
export const promptSignature = (prompt: McpSchema.Prompt): string =>
  `${prompt.name}${(prompt.arguments ?? []).map((arg) => (arg.required === true ? ` <${arg.name}>` : ` [${arg.name}]`)).join("")}`
