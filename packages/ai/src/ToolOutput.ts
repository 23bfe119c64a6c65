/**
 * What a language model receives for an MCP tool result. Providers hand a tool result to the
 * model as JSON text, so the MCP content is turned into plain JSON the model can read: text
 * as is, resource links and embedded text resources with their URI, structured content kept,
 * and binary data (images, audio, blobs) described by type and size unless the caller asks
 * for the base64 itself.
 *
 * @since 0.1.0
 */
import type { McpClient } from "@effect-mcp/client"
import type { McpSchema } from "@effect-mcp/protocol"
import * as Schema from "effect/Schema"

/**
 * A text block.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Text = Schema.Struct({ type: Schema.Literal("text"), text: Schema.String })

/**
 * An image or audio clip: its media type, its size, and (when asked for) its base64 data.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Media = Schema.Struct({
  type: Schema.Literal("image", "audio"),
  mimeType: Schema.String,
  bytes: Schema.Number,
  data: Schema.optional(Schema.String)
})

/**
 * A link to a resource the model may ask the host to read.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Link = Schema.Struct({
  type: Schema.Literal("resource_link"),
  uri: Schema.String,
  name: Schema.String,
  description: Schema.optional(Schema.String),
  mimeType: Schema.optional(Schema.String)
})

/**
 * An embedded resource: its text, or the size (and, when asked for, the base64) of its blob.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Resource = Schema.Struct({
  type: Schema.Literal("resource"),
  uri: Schema.String,
  mimeType: Schema.optional(Schema.String),
  text: Schema.optional(Schema.String),
  bytes: Schema.optional(Schema.Number),
  data: Schema.optional(Schema.String)
})

/**
 * One block of a tool output.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Block = Schema.Union(Text, Media, Link, Resource)

/**
 * The type of {@link Block}.
 *
 * @since 0.1.0
 * @category models
 */
export type Block = typeof Block.Type

/**
 * A tool's output as the model sees it; the same shape for results and for errors.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolOutput = Schema.Struct({
  content: Schema.Array(Block),
  structuredContent: Schema.optional(Schema.Unknown)
})

/**
 * The type of {@link ToolOutput}.
 *
 * @since 0.1.0
 * @category models
 */
export type ToolOutput = typeof ToolOutput.Type

/**
 * Whether binary data reaches the model as base64 (`"include"`) or only as a description (`"omit"`, the default).
 *
 * @since 0.1.0
 * @category options
 */
export type BinaryMode = "omit" | "include"

/** The decoded size of base64 data. */
const byteLength = (base64: string): number => Buffer.byteLength(base64, "base64")

const fromBlock = (block: McpSchema.ContentBlock, binary: BinaryMode): Block => {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text }
    case "image":
    case "audio":
      return {
        type: block.type,
        mimeType: block.mimeType,
        bytes: byteLength(block.data),
        ...(binary === "include" ? { data: block.data } : {})
      }
    case "resource_link":
      return {
        type: "resource_link",
        uri: block.uri,
        name: block.name,
        ...(block.description === undefined ? {} : { description: block.description }),
        ...(block.mimeType === undefined ? {} : { mimeType: block.mimeType })
      }
    case "resource": {
      const contents = block.resource
      const mimeType = contents.mimeType === undefined ? {} : { mimeType: contents.mimeType }
      return "text" in contents
        ? { type: "resource", uri: contents.uri, ...mimeType, text: contents.text }
        : {
            type: "resource",
            uri: contents.uri,
            ...mimeType,
            bytes: byteLength(contents.blob),
            ...(binary === "include" ? { data: contents.blob } : {})
          }
    }
  }
}

/**
 * Turns an MCP tool result into what the model receives; `isError` results become failures.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromResult = (
  result: McpClient.CallToolResult,
  binary: BinaryMode = "omit"
): { readonly output: ToolOutput; readonly isError: boolean } => ({
  output: {
    content: result.content.map((block) => fromBlock(block, binary)),
    ...(result.structuredContent === undefined ? {} : { structuredContent: result.structuredContent })
  },
  isError: result.isError === true
})

/**
 * A tool output made of one text: how errors of the host or the user's refusal reach the model.
 *
 * @since 0.1.0
 * @category constructors
 */
export const text = (message: string): ToolOutput => ({ content: [{ type: "text", text: message }] })

/**
 * The text blocks of an output, joined: for terminals and logs.
 *
 * @since 0.1.0
 * @category rendering
 */
export const plainText = (output: ToolOutput): string =>
  output.content
    .map((block) => {
      switch (block.type) {
        case "text":
          return block.text
        case "resource_link":
          return `[link ${block.uri}]`
        case "resource":
          return block.text ?? `[resource ${block.uri}, ${block.bytes ?? 0} bytes]`
        default:
          return `[${block.type} ${block.mimeType}, ${block.bytes} bytes]`
      }
    })
    .join("\n")
