/**
 * A server's result budget (`maxResultBytes`): a tool result whose JSON is larger is cut, as the
 * chat's token budget cuts what reaches a model, but in bytes and on the result itself, so every
 * user of the host (the gateway's clients too) gets the same. The structured content is kept
 * when it takes at most half of the room (or what the content leaves), else left out; the
 * content blocks are kept in order while they fit, the first text that does not is cut at a
 * boundary near the limit (`TextCut`), the blocks after it are left out; a closing text block
 * says what was left out. A result that loses the structured content its tool's `outputSchema`
 * promises is marked `isError`, so a client does not reject it as malformed.
 */
import type { McpClient } from "@effect-mcp/client"
import * as TextCut from "../TextCut.js"

type Result = McpClient.CallToolResult
type Block = Result["content"][number]

/** Room kept for the closing note (its longest form with every count large). */
const NOTE_ROOM = 400

// `,"structuredContent":` and one more block's comma.
const STRUCTURED_KEY = 21
const COMMA = 1

/** The size of a value's JSON in UTF-8. */
const bytesOf = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? "", "utf8")

const count = (n: number): string => n.toLocaleString("en-US")

const note = (maxBytes: number, total: number, characters: number, blocks: number, structured: boolean): string => {
  const parts = [
    ...(characters > 0 ? [`${count(characters)} characters of text`] : []),
    ...(blocks > 0 ? [`${count(blocks)} content block${blocks === 1 ? "" : "s"}`] : []),
    ...(structured ? ["the structured content"] : [])
  ]
  const left = parts.length <= 1 ? (parts[0] ?? "nothing") : `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}`
  return `[… cut to fit the server's result budget of ${count(maxBytes)} bytes (maxResultBytes): left out ${left}, of a result of ${count(total)} bytes]`
}

const textLength = (block: Block): number => (block.type === "text" ? TextCut.codePoints(block.text) : 0)

/** The result within `maxBytes` of JSON (unchanged when it fits). */
export const cut = (result: Result, maxBytes: number, hasOutputSchema: boolean): Result => {
  const total = bytesOf(result)
  if (total <= maxBytes) return result
  const { content: _content, structuredContent: _structured, ...frame } = result
  let remaining = maxBytes - NOTE_ROOM - bytesOf({ ...frame, content: [] })
  const contentBytes = result.content.reduce((sum, block) => sum + bytesOf(block) + COMMA, 0)

  let structuredContent = result.structuredContent
  if (structuredContent !== undefined) {
    const bytes = STRUCTURED_KEY + bytesOf(structuredContent)
    const share = Math.max(Math.floor(remaining / 2), remaining - contentBytes)
    if (bytes <= share) remaining -= bytes
    else structuredContent = undefined
  }
  const droppedStructured = result.structuredContent !== undefined && structuredContent === undefined

  const content: Array<Block> = []
  let characters = 0
  let blocks = 0
  let full = false
  for (const block of result.content) {
    const bytes = bytesOf(block) + COMMA
    if (!full && bytes <= remaining) {
      content.push(block)
      remaining -= bytes
      continue
    }
    if (!full && block.type === "text") {
      const base = bytesOf({ ...block, text: "" }) + COMMA
      const at = remaining > base ? TextCut.cutFor(block.text, remaining - base) : 0
      if (at > 0) {
        content.push({ ...block, text: block.text.slice(0, at) })
        characters += TextCut.codePoints(block.text.slice(at))
      } else {
        blocks++
        characters += textLength(block)
      }
    } else {
      blocks++
      characters += textLength(block)
    }
    full = true
  }
  content.push({ type: "text", text: note(maxBytes, total, characters, blocks, droppedStructured) })
  return {
    ...frame,
    content,
    ...(structuredContent === undefined ? {} : { structuredContent }),
    ...(droppedStructured && hasOutputSchema ? { isError: true } : {})
  }
}
