/**
 * A 2026-07-28 server's input rounds through the gateway (`fixtures/roundServer.ts`, on SDK v2:
 * `book` asks who it is for, `starts` counts how often `book` began afresh). A 2026-07-28 client's
 * retry continues the server's round: its answers and the server's own requestState, carried in
 * the gateway's sealed one, go to the server, which never starts again. A 2025-11-25 client is
 * asked as a server request while the gateway's client does the rounds. Over HTTP, on the
 * `TestClock`, a round's sealed requestState is its caller's alone, and good for ten minutes.
 */
import { expect, layer } from "@effect/vitest"
import { McpHost } from "@effect-mcp/host"
import { JsonRpc } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Mailbox from "effect/Mailbox"
import * as Schedule from "effect/Schedule"
import * as TestClock from "effect/TestClock"
import * as HttpCore from "../src/internal/httpCore.js"
import type * as Reply from "../src/internal/reply.js"
import { callTool, postTo } from "./support/core.js"
import { connect, elicitation, gatewayHost, roundServer, textOf } from "./support/gateway.js"

/** The longest a test waits for something that should happen at once. */
const WAIT = "20 seconds"

/** How many times the round server's `book` has begun afresh. */
const starts = Effect.flatMap(McpHost.McpHost, (host) =>
  host.callTool("rounds__starts", {}).pipe(
    Effect.timeout(WAIT),
    Effect.map((result) => Number(textOf(result)))
  )
)

/** The JSON-RPC messages of a reply's event stream, as they come (connected in the scope). */
const messagesOf = (reply: Reply.Reply) =>
  Effect.gen(function* () {
    if (reply._tag !== "Events") return yield* Effect.dieMessage(`not an event stream: ${JSON.stringify(reply)}`)
    const messages = yield* Mailbox.make<JsonRpc.JSONRPCMessage>()
    const decoder = new TextDecoder()
    yield* reply.events.connect({
      write: (bytes) => {
        for (const line of decoder.decode(bytes).split("\n")) {
          if (line.startsWith("data: ") && line.length > 6) messages.unsafeOffer(JSON.parse(line.slice(6)))
        }
      },
      end: () => messages.unsafeDone(Exit.void)
    })
    return messages
  })

/** The next request on a stream (what came before it is skipped). */
const nextRequest = (messages: Mailbox.ReadonlyMailbox<JsonRpc.JSONRPCMessage>) =>
  messages.take.pipe(
    Effect.repeat({ until: JsonRpc.isRequest }),
    Effect.flatMap((message) => (JsonRpc.isRequest(message) ? Effect.succeed(message) : Effect.never))
  )

/** The next response on a stream. */
const nextResponse = (messages: Mailbox.ReadonlyMailbox<JsonRpc.JSONRPCMessage>) =>
  messages.take.pipe(Effect.repeat({ until: (message) => "id" in message && !("method" in message) }))

layer(gatewayHost({ servers: [{ name: "rounds", target: roundServer }] }), {
  excludeTestServices: true,
  timeout: "60 seconds"
})("a 2026-07-28 server's input rounds through the gateway", (it) => {
  for (const protocolVersion of ["2026-07-28", "2025-11-25"] as const) {
    it.scoped(`a ${protocolVersion} client answers; the server's round is continued, never begun again`, () =>
      Effect.gen(function* () {
        const host = yield* McpHost.McpHost
        expect((yield* host.client("rounds")).era).toBe("stateless")
        const asked: Array<string> = []
        const { client } = yield* connect({ protocolVersion, elicitation: elicitation(asked, { name: "Ada" }) })
        const before = yield* starts
        const result = yield* client.callTool("rounds__book", {}).pipe(Effect.timeout(WAIT))
        expect(textOf(result)).toBe("booked for Ada")
        expect(asked).toStrictEqual(["gateway: Who is it for?"])
        expect((yield* starts) - before).toBe(1)
      })
    )
  }

  for (const protocolVersion of ["2026-07-28", "2025-11-25"] as const) {
    it.scoped(
      `a ${protocolVersion} client is asked its call's input while another client has a call on that server`,
      () =>
        Effect.gen(function* () {
          const backend = yield* Effect.flatMap(McpHost.McpHost, (host) => host.client("rounds"))
          const before = (yield* backend.stats).pending
          const other = yield* connect({ protocolVersion: "2026-07-28" })
          const holding = yield* Effect.fork(other.client.callTool("rounds__hold", {}))
          // The other call is in flight on the server before this one starts.
          yield* backend.stats.pipe(
            Effect.repeat({ until: (stats) => stats.pending > before, schedule: Schedule.spaced("10 millis") }),
            Effect.timeout(WAIT)
          )
          const asked: Array<string> = []
          const { client } = yield* connect({ protocolVersion, elicitation: elicitation(asked, { name: "Grace" }) })
          const result = yield* client.callTool("rounds__book", {}).pipe(Effect.timeout(WAIT))
          expect(textOf(result)).toBe("booked for Grace")
          expect(asked).toStrictEqual(["gateway: Who is it for?"])
          yield* Fiber.interrupt(holding)
        })
    )
  }

  it.scoped("over HTTP, a server's request goes on the stream of the call it was made in, not the newest call's", () =>
    Effect.gen(function* () {
      const handle = yield* HttpCore.make({})
      const post = (body: unknown, session?: string) =>
        postTo(handle, body, {
          "mcp-protocol-version": "2025-11-25",
          ...(session === undefined ? {} : { "mcp-session-id": session })
        })
      const opened = yield* post({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: { elicitation: {} },
          clientInfo: { name: "test", version: "1" }
        }
      })
      const session = opened.headers["mcp-session-id"] ?? ""
      yield* post({ jsonrpc: "2.0", method: "notifications/initialized" }, session)
      const call = (id: number, name: string) =>
        Effect.flatMap(
          post({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: {} } }, session),
          messagesOf
        )
      const backend = yield* Effect.flatMap(McpHost.McpHost, (host) => host.client("rounds"))
      const twice = yield* call(1, "rounds__twice")
      const first = yield* nextRequest(twice)
      expect(first.params).toMatchObject({ message: "First?" })
      // A newer call of the same session, in flight on the server.
      const before = (yield* backend.stats).pending
      const hold = yield* call(2, "rounds__hold")
      yield* backend.stats.pipe(
        Effect.repeat({ until: (stats) => stats.pending > before, schedule: Schedule.spaced("10 millis") }),
        Effect.timeout(WAIT)
      )
      yield* post({ jsonrpc: "2.0", id: first.id, result: { action: "accept", content: { name: "Ada" } } }, session)
      const [where, second] = yield* Effect.raceFirst(
        Effect.map(nextRequest(twice), (request) => ["its own call's stream", request] as const),
        Effect.map(nextRequest(hold), (request) => ["the newest call's stream", request] as const)
      ).pipe(Effect.timeout(WAIT))
      expect(where).toBe("its own call's stream")
      expect(second.params).toMatchObject({ message: "And second?" })
      yield* post({ jsonrpc: "2.0", id: second.id, result: { action: "accept", content: { name: "Grace" } } }, session)
      const result = yield* Effect.timeout(nextResponse(twice), WAIT)
      expect(result).toMatchObject({ id: 1, result: { content: [{ type: "text", text: "twice: Ada, Grace" }] } })
    })
  )

  // The server's roots/list reaches the relay with its round (Roots.listFor): its key is the server's
  // own, so the retry's answer is the one the server asked for.
  it.scoped("a 2026-07-28 client lists its roots for the server's round, which is continued", () =>
    Effect.gen(function* () {
      const { client } = yield* connect({ protocolVersion: "2026-07-28", roots: [{ uri: "file:///work" }] })
      const before = yield* starts
      const result = yield* client.callTool("rounds__where", {}).pipe(Effect.timeout(WAIT))
      expect(textOf(result)).toBe("roots: file:///work")
      expect((yield* starts) - before).toBe(1)
    })
  )
})

/** A 2026-07-28 call of `rounds__book` over HTTP, with `authorization`. */
const booking = (handle: HttpCore.Handler, authorization: string, extra: Record<string, unknown> = {}) =>
  callTool(handle, "rounds__book", {}, extra, { authorization })

layer(gatewayHost({ servers: [{ name: "rounds", target: roundServer }] }), { timeout: "60 seconds" })(
  "a 2026-07-28 round's sealed requestState over HTTP",
  (it) => {
    it.scoped("is its caller's alone, good for ten minutes, and refused once it has expired", () =>
      Effect.gen(function* () {
        const handle = yield* HttpCore.make({})
        const answered = (requestState: string | undefined) => ({
          inputResponses: { who: { action: "accept", content: { name: "Ada" } } },
          requestState
        })
        const first = yield* booking(handle, "Bearer alice")
        expect(first.result?.resultType).toBe("input_required")
        const second = yield* booking(handle, "Bearer alice")
        const byAnother = yield* booking(handle, "Bearer bob", answered(first.result?.requestState))
        expect(byAnother.error).toMatchObject({ code: -32602, message: "Invalid requestState (not this request)" })
        // Good until ten minutes have passed.
        yield* TestClock.adjust("599 seconds")
        const inTime = yield* booking(handle, "Bearer alice", answered(second.result?.requestState))
        expect(inTime.result).toMatchObject({ resultType: "complete", content: [{ text: "booked for Ada" }] })
        yield* TestClock.adjust("1 minute")
        const late = yield* booking(handle, "Bearer alice", answered(first.result?.requestState))
        expect(late.error).toMatchObject({ code: -32602, message: "Invalid requestState (expired)" })
        const again = yield* booking(handle, "Bearer alice")
        const done = yield* booking(handle, "Bearer alice", answered(again.result?.requestState))
        expect(done.result).toMatchObject({ resultType: "complete", content: [{ text: "booked for Ada" }] })
      })
    )
  }
)
