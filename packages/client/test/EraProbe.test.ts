/**
 * The era probe (`server/discover` before anything else) as a user meets it: in place (HTTP) it
 * waits as long as any request, so a slow server's first answer is not cut short at 10 s; on a
 * transport's own probe (stdio) it keeps its short wait, where silence means a legacy server.
 * Time is the `TestClock`'s.
 */
import { describe, expect, it } from "@effect/vitest"
import { InMemoryTransport, McpClient, Transport } from "@effect-mcp/client"
import { JsonRpc } from "@effect-mcp/protocol"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"

const complete = { resultType: "complete", ttlMs: 0, cacheScope: "private" }

/** What the in-memory server answers to `server/discover` and `initialize`. */
interface Script {
  /** How long the server takes to answer its first request. */
  readonly firstAnswerAfter: Duration.DurationInput
  readonly supportedVersions: ReadonlyArray<string>
}

/** A server on the other end of an in-memory pair; every method it was asked is recorded. */
const serve = (script: Script, asked: Array<string>) => (end: InMemoryTransport.End) =>
  Transport.incoming(end).pipe(
    Stream.runForEach((item) => {
      if (item._tag !== "Message" || !JsonRpc.isRequest(item.message)) return Effect.void
      const request = item.message
      asked.push(request.method)
      const result =
        request.method === "server/discover"
          ? {
              ...complete,
              supportedVersions: script.supportedVersions,
              capabilities: { tools: {} },
              _meta: { "io.modelcontextprotocol/serverInfo": { name: "slow", version: "1" } }
            }
          : request.method === "initialize"
            ? { protocolVersion: "2025-11-25", capabilities: {}, serverInfo: { name: "slow", version: "1" } }
            : { ...complete, tools: [] }
      const answer = end.send({ jsonrpc: "2.0", id: request.id, result })
      return asked.length === 1 ? Effect.fork(Effect.delay(answer, script.firstAnswerAfter)) : answer
    }),
    Effect.ignore,
    Effect.forkScoped,
    Effect.asVoid
  )

const clientOver = (transport: Layer.Layer<Transport.Transport>, options: McpClient.McpClientOptions) =>
  Effect.map(Layer.build(McpClient.layer({ name: "slow", ...options }).pipe(Layer.provide(transport))), (context) =>
    Context.get(context, McpClient.McpClient)
  )

describe("the era probe in place (HTTP)", () => {
  it.scoped("waits as long as the request timeout: a first answer after 12 s under a 20 s timeout is modern", () =>
    Effect.gen(function* () {
      const asked: Array<string> = []
      const transport = InMemoryTransport.layer(
        serve({ firstAnswerAfter: "12 seconds", supportedVersions: ["2026-07-28"] }, asked)
      )
      const connecting = yield* Effect.fork(clientOver(transport, { requestTimeout: "20 seconds" }))
      yield* TestClock.adjust("11 seconds")
      expect(connecting.unsafePoll()).toBeNull()
      yield* TestClock.adjust("1 second")
      const client = yield* Fiber.join(connecting)
      expect(client.era).toBe("stateless")
      expect(client.protocolVersion).toBe("2026-07-28")
      expect(asked).toStrictEqual(["server/discover"])
    })
  )

  it.scoped("and no longer: past the request timeout the probe fails with the time it waited", () =>
    Effect.gen(function* () {
      const asked: Array<string> = []
      const transport = InMemoryTransport.layer(
        serve({ firstAnswerAfter: "30 seconds", supportedVersions: ["2026-07-28"] }, asked)
      )
      const connecting = yield* Effect.fork(Effect.flip(clientOver(transport, { requestTimeout: "20 seconds" })))
      yield* TestClock.adjust("20 seconds")
      const error = yield* Fiber.join(connecting)
      expect(error._tag).toBe("RequestTimeout")
      expect(error.message).toContain("server/discover")
      expect(error.message).toContain("20s")
    })
  )

  it.scoped("an explicit probeTimeout still wins", () =>
    Effect.gen(function* () {
      const asked: Array<string> = []
      const transport = InMemoryTransport.layer(
        serve({ firstAnswerAfter: "12 seconds", supportedVersions: ["2026-07-28"] }, asked)
      )
      const connecting = yield* Effect.fork(
        Effect.flip(clientOver(transport, { requestTimeout: "20 seconds", probeTimeout: "5 seconds" }))
      )
      yield* TestClock.adjust("5 seconds")
      const error = yield* Fiber.join(connecting)
      expect(error._tag).toBe("RequestTimeout")
    })
  )
})

describe("the era probe by the transport (stdio)", () => {
  it.scoped("keeps its short wait (10 s), whatever the request timeout; silence there means a legacy server", () =>
    Effect.gen(function* () {
      const asked: Array<string> = []
      const waited: Array<Duration.Duration> = []
      const transport = Layer.scoped(
        Transport.Transport,
        Effect.gen(function* () {
          const [client, server] = yield* InMemoryTransport.makePair("slow")
          yield* serve({ firstAnswerAfter: "0 millis", supportedVersions: [] }, asked)(server)
          return {
            ...client,
            probe: (_request: JsonRpc.JSONRPCRequest, timeout: Duration.DurationInput) =>
              Effect.sync(() => {
                waited.push(Duration.decode(timeout))
                return { _tag: "Silent" as const }
              })
          }
        })
      )
      const client = yield* clientOver(transport, { requestTimeout: "20 seconds" })
      expect(waited.map(Duration.toMillis)).toStrictEqual([10_000])
      expect(client.era).toBe("stateful")
      expect(asked).toStrictEqual(["initialize"])
    })
  )
})

describe("a server/discover result that lists only revisions this client does not speak", () => {
  it.scoped("fails with UnsupportedProtocolVersion naming both sides' revisions; initialize is never sent", () =>
    Effect.gen(function* () {
      const asked: Array<string> = []
      const transport = InMemoryTransport.layer(
        serve({ firstAnswerAfter: "0 millis", supportedVersions: ["2027-01-01", "2027-06-30"] }, asked)
      )
      const error = yield* Effect.flip(clientOver(transport, {}))
      if (error._tag !== "UnsupportedProtocolVersion") return expect.fail(`got ${error._tag}: ${error.message}`)
      expect(error.serverSupports).toStrictEqual(["2027-01-01", "2027-06-30"])
      expect(error.message).toBe(
        "The server supports protocol versions 2027-01-01, 2027-06-30 (server/discover), none of which this client speaks (it supports 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05)"
      )
      expect(asked).toStrictEqual(["server/discover"])
    })
  )

  it.scoped("an empty list says so", () =>
    Effect.gen(function* () {
      const asked: Array<string> = []
      const transport = InMemoryTransport.layer(serve({ firstAnswerAfter: "0 millis", supportedVersions: [] }, asked))
      const error = yield* Effect.flip(clientOver(transport, { protocolVersion: "2026-07-28" }))
      expect(error._tag).toBe("UnsupportedProtocolVersion")
      expect(error.message).toContain("The server supports protocol versions none (server/discover)")
    })
  )

  it.scoped("a dual-era server that also lists a stateful revision this client speaks is initialized", () =>
    Effect.gen(function* () {
      const asked: Array<string> = []
      const transport = InMemoryTransport.layer(
        serve({ firstAnswerAfter: "0 millis", supportedVersions: ["2027-01-01", "2025-11-25"] }, asked)
      )
      const client = yield* clientOver(transport, {})
      expect(client.era).toBe("stateful")
      expect(asked).toStrictEqual(["server/discover", "initialize"])
    })
  )
})
