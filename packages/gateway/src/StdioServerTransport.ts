/**
 * The server's end of a stdio connection: newline-delimited JSON-RPC read from an input stream
 * (the process's stdin) and written to an output (its stdout), as the transport seam the peer
 * reads. The input ending is the connection's clean end; nothing but messages is ever written to
 * the output (logs go elsewhere).
 *
 * @since 0.1.0
 */

import { DEFAULT_MAX_MESSAGE_BYTES, LineFramer, lineOf, lineText } from "@effect-mcp/jsonrpc/Framing"
import { TransportError } from "@effect-mcp/jsonrpc/PeerError"
import * as Transport from "@effect-mcp/jsonrpc/Transport"
import type { JsonRpc } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

/**
 * Where the connection reads and writes.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The bytes the client sends (the process's stdin). */
  readonly input: Stream.Stream<Uint8Array, unknown>
  /** Writes one framed message (the process's stdout); it fails when the output is gone. */
  readonly write: (text: string) => Effect.Effect<void, unknown>
  /** The client's name in errors and logs. Default: `stdio client`. */
  readonly name?: string
  /** The longest message accepted, in bytes. Default: the client's stdio limit (64 MiB). */
  readonly maxMessageBytes?: number
}

/**
 * The transport over `options`: reading starts when the peer runs it, and stops with the scope.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<Transport.TransportService, never, Scope.Scope> =>
  Effect.gen(function* () {
    const name = options.name ?? "stdio client"
    const inbound = Transport.makeInbound()
    const framer = new LineFramer(options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES)
    const broken = (reason: string, cause?: unknown) =>
      new TransportError({ server: name, reason, ...(cause === undefined ? {} : { cause }) })

    yield* options.input.pipe(
      Stream.runForEach((chunk) =>
        Effect.suspend(() => {
          const framed = framer.push(chunk)
          if (framed._tag === "Overflow") {
            return Effect.fail(broken(`a message is longer than ${framer.maxBytes} bytes`))
          }
          for (const line of framed.lines) {
            const text = lineText(line)
            if (text.trim() === "") continue
            for (const item of Transport.parseIncoming(text)) inbound.unsafeOffer(item)
          }
          return Effect.void
        })
      ),
      Effect.matchCauseEffect({
        onSuccess: () => inbound.end,
        onFailure: (cause) => inbound.fail(broken("the input failed", cause))
      }),
      Effect.forkScoped
    )

    const send = (message: JsonRpc.JSONRPCMessage) =>
      Effect.suspend(() => options.write(lineOf(message))).pipe(
        Effect.mapError((cause) => broken("the output is gone", cause))
      )

    return {
      run: inbound.run,
      send,
      setProtocolVersion: () => Effect.void
    }
  })
