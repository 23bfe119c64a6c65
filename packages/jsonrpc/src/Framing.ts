/**
 * Newline-delimited JSON, the framing of MCP's stdio transport, shared by every end that speaks
 * it (the client's stdio transports, the gateway's server end, the CLI's replay): one message per
 * line, UTF-8, a trailing carriage return tolerated. A {@link LineFramer} cuts received bytes into
 * lines in time linear in the input, and refuses a line longer than its limit before storing it.
 *
 * @since 0.1.0
 */

const NEWLINE = 10

/**
 * The longest message a stdio end accepts unless its options say otherwise: 64 MiB.
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024

/**
 * The result of feeding one chunk to a {@link LineFramer}: the complete lines it finished, or an
 * overflow (a line longer than the framer's limit; the connection cannot be read further).
 *
 * @since 0.1.0
 * @category models
 */
export type Framed =
  | { readonly _tag: "Lines"; readonly lines: ReadonlyArray<Uint8Array> }
  | { readonly _tag: "Overflow" }

/**
 * A stateful framer, one per connection: received bytes are kept as chunks, each new chunk is
 * searched for the newline once, and a line is assembled only when its newline arrives.
 *
 * @since 0.1.0
 * @category models
 */
export class LineFramer {
  private chunks: Array<Uint8Array> = []
  private size = 0

  /** `maxBytes`: the longest line accepted, without its newline. */
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

/**
 * The text of a line, without a trailing carriage return.
 *
 * @since 0.1.0
 * @category decoding
 */
export const lineText = (line: Uint8Array): string => {
  const text = decoder.decode(line)
  return text.endsWith("\r") ? text.slice(0, -1) : text
}

/**
 * One message as a line's text: its JSON with the newline that ends it.
 *
 * @since 0.1.0
 * @category encoding
 */
export const lineOf = (value: unknown): string => `${JSON.stringify(value)}\n`

const encoder = new TextEncoder()

/**
 * One message as the bytes of a newline-terminated line.
 *
 * @since 0.1.0
 * @category encoding
 */
export const encodeLine = (value: unknown): Uint8Array => encoder.encode(lineOf(value))
