/**
 * What a peer does with input that is not a message: a server's peer (`answerMalformed`) answers
 * as JSON-RPC says (-32700 for text that is not JSON, -32600 for a value that is no message, with
 * the id when it has one) and never answers a broken response; a client's peer only counts them.
 */
import { describe, expect, it } from "@effect/vitest"
import type { JsonRpc } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Peer from "../src/Peer.js"
import * as Transport from "../src/Transport.js"

/** A transport whose inbound the test feeds with JSON texts, and which records what the peer sends. */
const fed = (answerMalformed: boolean) =>
  Effect.gen(function* () {
    const inbound = Transport.makeInbound()
    const sent: Array<JsonRpc.JSONRPCMessage> = []
    const peer = yield* Peer.make(
      {
        run: inbound.run,
        send: (message) => Effect.sync(() => void sent.push(message)),
        setProtocolVersion: () => Effect.void
      },
      { server: "fed", requestTimeout: "10 seconds", answerMalformed }
    )
    const feed = (text: string) => inbound.offerAll(Transport.parseIncoming(text))
    return { peer, sent, feed }
  })

describe("malformed input", () => {
  it.scoped("a server's peer answers what is not a message, and serves on", () =>
    Effect.gen(function* () {
      const { peer, sent, feed } = yield* fed(true)
      yield* peer.handle("echo", (request) => Effect.succeed({ echoed: request.params ?? {} }))
      yield* feed("not json at all")
      yield* feed(JSON.stringify({ jsonrpc: "2.0", id: 7, method: 42 }))
      yield* feed(JSON.stringify({ jsonrpc: "2.0", id: "s", result: "not an object" }))
      yield* feed(JSON.stringify({ jsonrpc: "2.0", id: 8, method: "echo", params: { a: 1 } }))
      yield* Effect.yieldNow().pipe(Effect.repeatN(20))
      expect(sent).toStrictEqual([
        { jsonrpc: "2.0", error: { code: -32700, message: "Parse error" } },
        { jsonrpc: "2.0", id: 7, error: { code: -32600, message: "Invalid request" } },
        { jsonrpc: "2.0", id: 8, result: { echoed: { a: 1 } } }
      ])
      expect((yield* peer.stats).violations.malformed).toBe(3)
    })
  )

  it.scoped("a message nested deeper than MAX_DEPTH is malformed, and so is a batch in a batch", () =>
    Effect.gen(function* () {
      const { peer, sent, feed } = yield* fed(true)
      yield* peer.handle("echo", () => Effect.succeed({}))
      /** A request whose params nest arrays to `levels` in all (the message is the first). */
      const nested = (id: number, levels: number) =>
        `{"jsonrpc":"2.0","id":${id},"method":"echo","params":{"deep":${"[".repeat(levels - 2)}${"]".repeat(levels - 2)}}}`
      yield* feed(nested(1, Transport.MAX_DEPTH))
      yield* feed(nested(2, Transport.MAX_DEPTH + 1))
      yield* feed(nested(3, 100_000))
      yield* feed(`${"[".repeat(100_000)}${"]".repeat(100_000)}`)
      yield* feed(
        JSON.stringify([{ jsonrpc: "2.0", id: 4, method: "echo" }, [{ jsonrpc: "2.0", id: 5, method: "echo" }]])
      )
      yield* Effect.yieldNow().pipe(Effect.repeatN(20))
      const invalid = { code: -32600, message: "Invalid request" }
      // Handlers answer on fibers of their own: in any order.
      expect(sent).toHaveLength(6)
      expect(sent).toEqual(
        expect.arrayContaining([
          { jsonrpc: "2.0", id: 1, result: {} },
          { jsonrpc: "2.0", id: 2, error: invalid },
          { jsonrpc: "2.0", id: 3, error: invalid },
          { jsonrpc: "2.0", id: 4, result: {} }
        ])
      )
      expect(sent.filter((message) => !("id" in message))).toStrictEqual([
        { jsonrpc: "2.0", error: invalid },
        { jsonrpc: "2.0", error: invalid }
      ])
    })
  )

  it.scoped("a client's peer only counts them", () =>
    Effect.gen(function* () {
      const { peer, sent, feed } = yield* fed(false)
      yield* feed("a server's stray line")
      yield* feed(JSON.stringify({ jsonrpc: "2.0", id: 7, method: 42 }))
      const ping = yield* Effect.fork(feed(JSON.stringify({ jsonrpc: "2.0", id: 9, method: "ping" })))
      yield* Fiber.join(ping)
      yield* Effect.yieldNow().pipe(Effect.repeatN(20))
      expect(sent).toStrictEqual([{ jsonrpc: "2.0", id: 9, result: {} }])
      expect((yield* peer.stats).violations.malformed).toBe(2)
    })
  )
})
