/** A peer over an in-memory pair whose server end the test scripts by hand. */

import type { JsonRpc } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Mailbox from "effect/Mailbox"
import * as Stream from "effect/Stream"
import * as InMemoryTransport from "../../src/InMemoryTransport.js"
import * as Peer from "../../src/Peer.js"
import * as PlainForm from "../../src/PlainForm.js"
import * as Transport from "../../src/Transport.js"

/** Builds a peer (default timeout 10 s) and the server end, with its inbound messages in a mailbox. */
export const scriptedPeer = (options: Partial<Peer.PeerOptions> = {}) =>
  Effect.gen(function* () {
    const [client, server] = yield* InMemoryTransport.makePair("scripted")
    const peer = yield* Peer.make(client, { server: "scripted", requestTimeout: "10 seconds", ...options })
    const received = yield* Mailbox.make<JsonRpc.JSONRPCMessage>()
    yield* Transport.incoming(server).pipe(
      Stream.runForEach((item) => (item._tag === "Message" ? received.offer(item.message) : Effect.void)),
      Effect.ensuring(received.end),
      Effect.forkScoped
    )
    /** The next message the client sent. */
    const next = Effect.flatMap(received.take, (message) => Effect.succeed(message))
    return { peer, client, server, received, next }
  })

/** The plain form of the peer's `request` (a test that expects one fails when the peer has none). */
export const startRequest = (peer: Peer.Peer): Peer.StartRequest => {
  const start = PlainForm.of(peer.request)
  if (start === undefined) throw new Error("the peer's request has no plain form")
  return start
}
