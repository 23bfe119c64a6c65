/**
 * Message-level middleware: interceptors around every outbound and inbound JSON-RPC
 * message, for logging, metrics, tracing, audit or redaction. An interceptor may observe,
 * rewrite, delay or drop a message by what it does with `next`.
 *
 * @since 0.1.0
 */
import type { JsonRpc } from "@effect-mcp/protocol"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { TransportError } from "./PeerError.js"

/**
 * Passes a message on to the next interceptor, or to the transport or the peer.
 *
 * @since 0.1.0
 * @category models
 */
export type Next<E> = (message: JsonRpc.JSONRPCMessage) => Effect.Effect<void, E>

/**
 * One interceptor. Either side may be left out.
 *
 * @since 0.1.0
 * @category models
 */
export interface Interceptor {
  readonly outbound?: (
    message: JsonRpc.JSONRPCMessage,
    next: Next<TransportError>,
    server: string
  ) => Effect.Effect<void, TransportError>
  readonly inbound?: (message: JsonRpc.JSONRPCMessage, next: Next<never>, server: string) => Effect.Effect<void>
}

/**
 * The interceptors in force, outermost first. None by default.
 *
 * @since 0.1.0
 * @category services
 */
export class Middleware extends Context.Reference<Middleware>()("@effect-mcp/jsonrpc/Middleware", {
  defaultValue: (): ReadonlyArray<Interceptor> => []
}) {}

/**
 * Provides interceptors; the first is outermost (it sees outbound messages first and inbound ones last).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (...interceptors: ReadonlyArray<Interceptor>): Layer.Layer<never> =>
  Layer.succeed(Middleware, interceptors)

/**
 * Logs every message at debug level, with its direction and the server's name.
 *
 * @since 0.1.0
 * @category constructors
 */
export const logging: Interceptor = {
  outbound: (message, next, server) =>
    Effect.logDebug("mcp →", message).pipe(Effect.annotateLogs("mcp.server", server), Effect.zipRight(next(message))),
  inbound: (message, next, server) =>
    Effect.logDebug("mcp ←", message).pipe(Effect.annotateLogs("mcp.server", server), Effect.zipRight(next(message)))
}

/**
 * Composes the outbound side of interceptors around a final sender (`server` is read per message: a name can be learned later).
 *
 * @since 0.1.0
 * @category combinators
 */
export const composeOutbound = (
  interceptors: ReadonlyArray<Interceptor>,
  server: () => string,
  last: Next<TransportError>
): Next<TransportError> =>
  interceptors.reduceRight<Next<TransportError>>((next, interceptor) => {
    const outbound = interceptor.outbound
    return outbound === undefined ? next : (message) => outbound(message, next, server())
  }, last)

/**
 * Composes the inbound side of interceptors around a final receiver.
 *
 * @since 0.1.0
 * @category combinators
 */
export const composeInbound = (
  interceptors: ReadonlyArray<Interceptor>,
  server: () => string,
  last: Next<never>
): Next<never> =>
  interceptors.reduce<Next<never>>((next, interceptor) => {
    const inbound = interceptor.inbound
    return inbound === undefined ? next : (message) => inbound(message, next, server())
  }, last)
