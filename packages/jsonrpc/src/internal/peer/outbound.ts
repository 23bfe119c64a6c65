/**
 * The peer's outbound side: messages written through the middleware's outbound interceptors to
 * the transport, one at a time when an interceptor may suspend (without any, the transport's own
 * `send` keeps the order and no lock is taken). A request's transport headers bypass the
 * middleware, which sees messages only.
 */
import type { JsonRpc } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import { composeOutbound, type Interceptor } from "../../Middleware.js"
import type { TransportError } from "../../PeerError.js"
import * as PlainForm from "../../PlainForm.js"
import type { TransportService } from "../../Transport.js"

/** Writing messages. */
export interface Outbound {
  readonly write: (message: JsonRpc.JSONRPCMessage) => Effect.Effect<void, TransportError>
  /** Writes a request with transport headers of its own. */
  readonly writeWithHeaders: (
    message: JsonRpc.JSONRPCRequest,
    headers: Readonly<Record<string, string>>
  ) => Effect.Effect<void, TransportError>
  /** A write there and then, in the caller: the plain form of the transport's `send`, when it has one and no middleware stands between. */
  readonly writeNow: ((message: JsonRpc.JSONRPCMessage) => TransportError | undefined) | undefined
}

/** The outbound side over a transport. */
export const make = (
  transport: TransportService,
  interceptors: ReadonlyArray<Interceptor>,
  server: () => string
): Effect.Effect<Outbound> =>
  Effect.map(Effect.makeSemaphore(1), (lock) => {
    const headersOf = new Map<JsonRpc.RequestId, Readonly<Record<string, string>>>()
    const send = composeOutbound(interceptors, server, (message) =>
      "id" in message && "method" in message && headersOf.size > 0
        ? transport.send(message, headersOf.get(message.id))
        : transport.send(message)
    )
    const write =
      interceptors.length === 0 ? send : (message: JsonRpc.JSONRPCMessage) => lock.withPermits(1)(send(message))
    return {
      write,
      writeWithHeaders: (message, headers) =>
        Effect.ensuring(
          Effect.suspend(() => {
            headersOf.set(message.id, headers)
            return write(message)
          }),
          Effect.sync(() => headersOf.delete(message.id))
        ),
      writeNow: interceptors.length === 0 ? PlainForm.of(transport.send) : undefined
    }
  })
