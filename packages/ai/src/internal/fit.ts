/**
 * A tool output made to fit a byte budget (of its JSON text, as providers send it). In order:
 * blocks that cannot be cut (links, media and blob descriptions) keep their place while they
 * take at most half of what is left after the marker, or more when the rest needs less; the
 * structured content keeps its size when that is at most half of what remains (or when the
 * text needs less), else it is summarised ({@link summarise}) or, when even that is too large,
 * left out; the text blocks (and embedded text resources) share the rest in order, the first
 * that does not fit is cut at a boundary (`TextCut.cutFor` of the host) and the ones after it are left out.
 * One text block, the marker, follows the cut and says what was left out, roughly how many
 * tokens that was, and how to get the rest. Base64 data (asked for with `binary: "include"`)
 * is neither counted nor cut.
 */

import { TextCut } from "@effect-mcp/host"
import * as Struct from "effect/Struct"
import type { Block, ToolOutput } from "../ToolOutput.js"
import type { Budgeted, Omitted } from "./budgeted.js"
import { jsonSize, summarise } from "./summarise.js"

/** How to fit one output. */
export interface FitOptions {
  /** The budget, in bytes of the output's JSON. */
  readonly maxBytes: number
  /** The budget in tokens, as the marker states it. */
  readonly maxTokens: number
  /** Bytes per token, to state what was left out in tokens. */
  readonly bytesPerToken: number
  /** How the model can get the rest (a sentence). */
  readonly hint: string
}

/** A block as it counts: without base64 data. */
const counted = (block: Block): Block => {
  switch (block.type) {
    case "image":
    case "audio":
      return block.data === undefined ? block : { type: block.type, mimeType: block.mimeType, bytes: block.bytes }
    case "resource":
      return block.data === undefined ? block : Struct.omit(block, "data")
    default:
      return block
  }
}

/** The output as it counts against the budget. */
export const countedOutput = (output: ToolOutput): ToolOutput =>
  output.content.some((block) => "data" in block) ? { ...output, content: output.content.map(counted) } : output

/** The size of an output's JSON, base64 data left out. */
export const measure = (output: ToolOutput): number => jsonSize(countedOutput(output))

// `{"content":[]}`; `,"structuredContent":`; one more block's comma.
const FRAME = 14
const STRUCTURED_KEY = 21
const COMMA = 1

const blockBytes = (block: Block): number => jsonSize(counted(block)) + COMMA

const textOf = (block: Block): string | undefined =>
  block.type === "text" || block.type === "resource" ? block.text : undefined

const withText = (block: Block, text: string): Block =>
  block.type === "text" || block.type === "resource" ? { ...block, text } : block

const count = (n: number): string => n.toLocaleString("en-US")

const list = (items: ReadonlyArray<string>): string =>
  items.length <= 1 ? (items[0] ?? "nothing") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`

/** The marker: what was left out, about how many tokens, and how to get the rest. */
export const marker = (omitted: Omitted, options: FitOptions): string => {
  const parts: Array<string> = []
  if (omitted.characters > 0) parts.push(`${count(omitted.characters)} characters of text`)
  if (omitted.blocks > 0) parts.push(`${count(omitted.blocks)} content block${omitted.blocks === 1 ? "" : "s"}`)
  if (omitted.structuredContent === "summarised")
    parts.push("parts of the structured content (long lists end with their length)")
  if (omitted.structuredContent === "dropped") parts.push("the structured content")
  return `[… cut to fit ${count(options.maxTokens)} tokens: left out ${list(parts)}, about ${count(omitted.tokens)} tokens. ${options.hint}]`
}

const markerBlock = (text: string): Block => ({ type: "text", text })

/** Only the marker: when nothing else fits. */
const markerOnly = (output: ToolOutput, options: FitOptions): Budgeted => {
  const omitted: Omitted = {
    characters: output.content.reduce((sum, block) => sum + TextCut.codePoints(textOf(block) ?? ""), 0),
    tokens: Math.ceil(measure(output) / options.bytesPerToken),
    blocks: output.content.length,
    structuredContent: output.structuredContent === undefined ? "kept" : "dropped"
  }
  return { output: { content: [markerBlock(marker(omitted, options))] }, omitted }
}

/** What an attempt needs to know of the output, measured once (texts can be megabytes). */
interface Measured {
  readonly output: ToolOutput
  readonly bytes: number
  /** Per text block, by its index: its text's size in JSON and its code points. */
  readonly texts: ReadonlyMap<number, { readonly bytes: number; readonly codePoints: number }>
}

const measured = (output: ToolOutput, bytes: number): Measured => {
  const texts = new Map<number, { readonly bytes: number; readonly codePoints: number }>()
  output.content.forEach((block, index) => {
    const text = textOf(block)
    if (text !== undefined) texts.set(index, { bytes: TextCut.jsonBytes(text), codePoints: TextCut.codePoints(text) })
  })
  return { output, bytes, texts }
}

/** One attempt at fitting `maxBytes` (the caller checks the result and asks again with less). */
const attempt = ({ output, bytes, texts }: Measured, maxBytes: number, options: FitOptions): Budgeted => {
  let textTotal = 0
  let allCharacters = 0
  output.content.forEach((block, index) => {
    const text = texts.get(index)
    if (text === undefined) return
    textTotal += blockBytes(withText(block, "")) + text.bytes
    allCharacters += text.codePoints
  })
  const structured = output.structuredContent
  const structuredBytes = structured === undefined ? 0 : STRUCTURED_KEY + jsonSize(structured)
  // The marker with every count at its largest is no smaller than the one written in the end.
  const largest = marker(
    {
      characters: allCharacters,
      tokens: Math.ceil(bytes / options.bytesPerToken),
      blocks: output.content.length,
      structuredContent: structured === undefined ? "kept" : "summarised"
    },
    options
  )
  const available = maxBytes - FRAME - blockBytes(markerBlock(largest))

  // Blocks that cannot be cut, in order, while they fit their share.
  let otherShare = Math.max(Math.floor(available / 2), available - textTotal - structuredBytes)
  const keptOthers = new Set<number>()
  let remaining = available
  output.content.forEach((block, index) => {
    const bytes = blockBytes(block)
    if (texts.has(index) || bytes > otherShare) return
    keptOthers.add(index)
    otherShare -= bytes
    remaining -= bytes
  })

  // The structured content: its size, or a summary, or nothing.
  let structuredContent: unknown = structured
  let structuredState: Omitted["structuredContent"] = "kept"
  let structuredUsed = structuredBytes
  if (structured !== undefined) {
    const share =
      structuredBytes <= remaining / 2 ? structuredBytes : Math.max(Math.floor(remaining / 2), remaining - textTotal)
    if (structuredBytes > share) {
      structuredContent = summarise(structured, share - STRUCTURED_KEY)
      structuredState = structuredContent === undefined ? "dropped" : "summarised"
      structuredUsed = structuredContent === undefined ? 0 : STRUCTURED_KEY + jsonSize(structuredContent)
    }
  }
  remaining -= structuredUsed

  // The text blocks, in order, until one does not fit: it is cut, the rest are left out.
  const content: Array<Block> = []
  let markerAt = -1
  let cutDone = false
  let characters = 0
  let textBytesLeftOut = 0
  let blocks = output.content.length - texts.size - keptOthers.size
  for (const [index, block] of output.content.entries()) {
    const text = textOf(block)
    const size = texts.get(index)
    if (text === undefined || size === undefined) {
      if (keptOthers.has(index)) content.push(block)
      continue
    }
    if (cutDone) {
      blocks++
      characters += size.codePoints
      textBytesLeftOut += size.bytes
      continue
    }
    const base = blockBytes(withText(block, ""))
    const whole = base + size.bytes
    if (whole <= remaining) {
      content.push(block)
      remaining -= whole
      markerAt = content.length
      continue
    }
    cutDone = true
    const cut = remaining > base ? TextCut.cutFor(text, remaining - base) : 0
    const kept = text.slice(0, cut)
    if (cut === 0) blocks++
    else content.push(withText(block, kept))
    markerAt = content.length
    characters += size.codePoints - TextCut.codePoints(kept)
    textBytesLeftOut += size.bytes - TextCut.jsonBytes(kept)
  }

  const omitted: Omitted = {
    characters,
    tokens: Math.ceil((textBytesLeftOut + structuredBytes - structuredUsed) / options.bytesPerToken),
    blocks,
    structuredContent: structuredState
  }
  const at = markerAt < 0 ? content.length : markerAt
  content.splice(at, 0, markerBlock(marker(omitted, options)))
  return {
    output: structuredContent === undefined ? { content } : { content, structuredContent },
    omitted
  }
}

/**
 * The output within `maxBytes` (its JSON, base64 data left out): unchanged when it fits, else
 * cut with a marker (see the module's rules); only the marker when nothing else fits.
 */
export const fit = (output: ToolOutput, options: FitOptions): Budgeted => {
  const bytes = measure(output)
  if (bytes <= options.maxBytes) return { output, omitted: undefined }
  const whole = measured(output, bytes)
  let maxBytes = options.maxBytes
  for (let round = 0; round < 4; round++) {
    const result = attempt(whole, maxBytes, options)
    const size = measure(result.output)
    if (size <= options.maxBytes) return result
    maxBytes -= size - options.maxBytes
  }
  return markerOnly(output, options)
}
