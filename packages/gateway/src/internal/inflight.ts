/**
 * One connection's requests in flight behind the gateway, each with the server it went to: what a
 * server's own messages (progress, log messages, its requests to the client) relate to. A transport
 * that has a stream per request (Streamable HTTP) reads {@link RelatedRequest} when it sends, and
 * puts a related message on that request's stream.
 */
import * as Peer from "@effect-mcp/jsonrpc/Peer"
import type { JsonRpc } from "@effect-mcp/protocol"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type { Attached } from "./serverRequests.js"

/**
 * A client's request being served: the token the gateway's calls for it carry
 * (`Peer.RequestOrigin`), which comes back with a server's request made within them.
 */
export class Served {
  constructor(
    readonly attached: Attached,
    /** The client's id of the request. */
    readonly request: JsonRpc.RequestId
  ) {}
}

/**
 * The client's request being served, while the gateway serves it. A server's request made within
 * that work (a 2026-07-28 server's input request, which the gateway's client handles in the fiber
 * of the call) is that client's, however many others are calling the same server, and goes with
 * that request (on its stream, over HTTP).
 */
export class Caller extends Context.Reference<Caller>()("@effect-mcp/gateway/Caller", {
  defaultValue: (): Served | undefined => undefined
}) {}

/** Runs a call made for the client's request being served with that request as its origin. */
const asOrigin = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(Caller, (served) =>
    served === undefined ? effect : Effect.provideService(effect, Peer.RequestOrigin, served)
  )

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
  /**
   * Runs the request's work, known as in flight to `server` (when it has one) meanwhile; the calls
   * it makes carry the request being served as their origin.
   */
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
        ? relatedTo(id)(asOrigin(effect))
        : Effect.acquireUseRelease(
            Effect.sync(() => calls.set(id, server)),
            () => relatedTo(id)(asOrigin(effect)),
            () => Effect.sync(() => calls.delete(id))
          ),
    latest: (server) => {
      let found: JsonRpc.RequestId | undefined
      for (const [id, to] of calls) if (to === server) found = id
      return found
    }
  }
}
