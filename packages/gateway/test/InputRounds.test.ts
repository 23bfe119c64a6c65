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
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Schedule from "effect/Schedule"
import * as TestClock from "effect/TestClock"
import * as HttpCore from "../src/internal/httpCore.js"
import { postTo } from "./support/core.js"
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

/** The body of a 2026-07-28 call of `rounds__book` over HTTP, with `authorization`. */
const booking = (handle: HttpCore.Handler, authorization: string, extra: Record<string, unknown> = {}) =>
  Effect.map(
    postTo(
      handle,
      {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: {
          name: "rounds__book",
          arguments: {},
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": { elicitation: {} }
          },
          ...extra
        }
      },
      {
        authorization,
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "rounds__book"
      }
    ),
    (reply) =>
      (reply._tag === "Json" ? reply.body : {}) as {
        readonly result?: { readonly resultType?: string; readonly requestState?: string }
        readonly error?: { readonly code: number; readonly message: string }
      }
  )

layer(gatewayHost({ servers: [{ name: "rounds", target: roundServer }] }), { timeout: "60 seconds" })(
  "a 2026-07-28 round's sealed requestState over HTTP",
  (it) => {
    it.scoped("is its caller's alone, and refused once it has expired (ten minutes)", () =>
      Effect.gen(function* () {
        const handle = yield* HttpCore.make({})
        const answered = (requestState: string | undefined) => ({
          inputResponses: { who: { action: "accept", content: { name: "Ada" } } },
          requestState
        })
        const first = yield* booking(handle, "Bearer alice")
        expect(first.result?.resultType).toBe("input_required")
        const byAnother = yield* booking(handle, "Bearer bob", answered(first.result?.requestState))
        expect(byAnother.error).toMatchObject({ code: -32602, message: "Invalid requestState (not this request)" })
        yield* TestClock.adjust("11 minutes")
        const late = yield* booking(handle, "Bearer alice", answered(first.result?.requestState))
        expect(late.error).toMatchObject({ code: -32602, message: "Invalid requestState (expired)" })
        const again = yield* booking(handle, "Bearer alice")
        const done = yield* booking(handle, "Bearer alice", answered(again.result?.requestState))
        expect(done.result).toMatchObject({ resultType: "complete", content: [{ text: "booked for Ada" }] })
      })
    )
  }
)
