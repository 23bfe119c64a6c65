/**
 * One connection's requests in flight behind the gateway, each with the server it went to: what a
 * server's own messages (progress, log messages, its requests to the client) relate to. A transport
 * that has a stream per request (Streamable HTTP) reads {@link RelatedRequest} when it sends, and
 * puts a related message on that request's stream.
 */
import type { JsonRpc } from "@effect-mcp/protocol"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"

/** The client's request that the message being sent belongs to, if any. */
export class RelatedRequest extends Context.Reference<RelatedRequest>()("@effect-mcp/gateway/RelatedRequest", {
  defaultValue: (): JsonRpc.RequestId | undefined => undefined
}) {}

/** Sends `effect`'s messages as related to `id`. */
export const relatedTo =
  (id: JsonRpc.RequestId | undefined) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    id === undefined ? effect : Effect.provideService(effect, RelatedRequest, id)

/** A connection's requests in flight. */
export interface InFlight {
  /** Runs the request's work, known as in flight to `server` (when it has one) meanwhile. */
  readonly track: (
    id: JsonRpc.RequestId,
    server: string | undefined
  ) => <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** The newest request in flight to `server`. */
  readonly latest: (server: string) => JsonRpc.RequestId | undefined
}

/** An empty set of requests in flight. */
export const make = (): InFlight => {
  const calls = new Map<JsonRpc.RequestId, string>()
  return {
    track: (id, server) => (effect) =>
      server === undefined
        ? relatedTo(id)(effect)
        : Effect.acquireUseRelease(
            Effect.sync(() => calls.set(id, server)),
            () => relatedTo(id)(effect),
            () => Effect.sync(() => calls.delete(id))
          ),
    latest: (server) => {
      let found: JsonRpc.RequestId | undefined
      for (const [id, to] of calls) if (to === server) found = id
      return found
    }
  }
}
