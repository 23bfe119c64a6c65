/**
 * A 2026-07-28 server's input rounds through the gateway (`fixtures/roundServer.ts`, on SDK v2:
 * `book` asks who it is for, `starts` counts how often `book` began afresh). A 2026-07-28 client's
 * retry continues the server's round: its answers and the server's own requestState, carried in
 * the gateway's sealed one, go to the server, which never starts again. A 2025-11-25 client is
 * asked as a server request while the gateway's client does the rounds.
 */
import { expect, layer } from "@effect/vitest"
import { McpHost } from "@effect-mcp/host"
import * as Effect from "effect/Effect"
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
