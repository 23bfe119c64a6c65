/**
 * Two transports connected back to back in one process, for tests of the peer and for
 * running a server in-process. Messages travel as JSON text, as on a real wire.
 *
 * @since 0.1.0
 */
import type { JsonRpc } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import { TransportError } from "./PeerError.js"
import { decodeIncoming, type Inbound, makeInbound, sendFrom, Transport, type TransportService } from "./Transport.js"

/**
 * One end of a pair, plus a way to end the connection as a peer dying would.
 *
 * @since 0.1.0
 * @category models
 */
export interface End extends TransportService {
  /** Ends this end's inbound stream with a failure (the connection broke). */
  readonly fail: (reason: string) => Effect.Effect<void>
  /** Ends the connection cleanly in both directions. */
  readonly close: Effect.Effect<void>
  /** Delivers any parsed JSON value to the other end, as if it had arrived on the wire (for fault tests). */
  readonly inject: (raw: unknown) => Effect.Effect<void>
}

const makeEnd = (name: string, inbox: Inbound, outbox: Inbound): End => {
  const write = (message: JsonRpc.JSONRPCMessage): TransportError | undefined => {
    let accepted = true
    for (const item of decodeIncoming(JSON.parse(JSON.stringify(message)))) accepted = outbox.unsafeOffer(item)
    return accepted ? undefined : new TransportError({ server: name, reason: "the connection is closed" })
  }
  return {
    run: inbox.run,
    send: sendFrom(write),
    setProtocolVersion: () => Effect.void,
    fail: (reason) => Effect.asVoid(inbox.fail(new TransportError({ server: name, reason }))),
    inject: (raw) => Effect.asVoid(outbox.offerAll(decodeIncoming(raw))),
    close: Effect.asVoid(Effect.zip(inbox.end, outbox.end))
  }
}

/**
 * A connected pair: what one end sends, the other receives. Both end with the scope.
 * `name` labels errors (it is the server's name as the client sees it).
 *
 * @since 0.1.0
 * @category constructors
 */
export const makePair = (name = "in-memory"): Effect.Effect<readonly [client: End, server: End], never, Scope.Scope> =>
  Effect.gen(function* () {
    const toClient = makeInbound()
    const toServer = makeInbound()
    const client = makeEnd(name, toClient, toServer)
    const server = makeEnd(name, toServer, toClient)
    yield* Effect.addFinalizer(() => client.close)
    return [client, server] as const
  })

/**
 * A `Transport` layer for the client end of a pair whose server end is given to `serve`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  serve: (server: End) => Effect.Effect<void, never, Scope.Scope>,
  name?: string
): Layer.Layer<Transport> =>
  Layer.scoped(
    Transport,
    Effect.gen(function* () {
      const [client, server] = yield* makePair(name)
      yield* serve(server)
      return client
    })
  )
