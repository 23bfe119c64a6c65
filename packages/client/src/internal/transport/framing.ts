/**
 * Newline-delimited framing in time linear in the input: received bytes are kept as chunks,
 * and each new chunk is searched for the newline once; a message is assembled only when its
 * newline arrives. A message longer than the limit is refused before it is stored.
 */

const NEWLINE = 10

/** The result of feeding one chunk: the complete lines it finished, or an overflow. */
export type Framed =
  | { readonly _tag: "Lines"; readonly lines: ReadonlyArray<Uint8Array> }
  | { readonly _tag: "Overflow" }

/** A stateful framer; one per connection. */
export class LineFramer {
  private chunks: Array<Uint8Array> = []
  private size = 0

  constructor(readonly maxBytes: number) {}

  /** Bytes received but not yet part of a complete line. */
  get pending(): number {
    return this.size
  }

  /** Feeds one chunk. */
  push(chunk: Uint8Array): Framed {
    const lines: Array<Uint8Array> = []
    let start = 0
    for (;;) {
      const newline = chunk.indexOf(NEWLINE, start)
      if (newline === -1) break
      const piece = chunk.subarray(start, newline)
      if (this.size + piece.length > this.maxBytes) return { _tag: "Overflow" }
      lines.push(this.size === 0 ? piece : this.assemble(piece))
      start = newline + 1
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start)
      if (this.size + rest.length > this.maxBytes) return { _tag: "Overflow" }
      this.chunks.push(rest)
      this.size += rest.length
    }
    return { _tag: "Lines", lines }
  }

  private assemble(last: Uint8Array): Uint8Array {
    const line = new Uint8Array(this.size + last.length)
    let offset = 0
    for (const chunk of this.chunks) {
      line.set(chunk, offset)
      offset += chunk.length
    }
    line.set(last, offset)
    this.chunks = []
    this.size = 0
    return line
  }
}

const decoder = new TextDecoder("utf-8")

/** The text of a line, without a trailing carriage return. */
export const lineText = (line: Uint8Array): string => {
  const text = decoder.decode(line)
  return text.endsWith("\r") ? text.slice(0, -1) : text
}

const encoder = new TextEncoder()

/** One message as a newline-terminated line. */
export const encodeLine = (value: unknown): Uint8Array => encoder.encode(`${JSON.stringify(value)}\n`)
