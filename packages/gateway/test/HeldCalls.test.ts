/**
 * A stateful (2025-era) server's call that asks mid-call, held across a 2026-07-28 client's input
 * round (`internal/heldCalls.ts`), with the SDK v1 replay fixture (`cli/test/fixtures/replay-server.mjs`:
 * each tool asks for a colour and answers `<colour> after <n> runs`, counting its runs per ticket;
 * `commit` is marked neither read-only nor idempotent, `choose` idempotent). Two instances share the
 * sealing key, as behind a balancer. Before: every such call was refused (`not marked safe to
 * repeat`), or run again from the start.
 */
import { fileURLToPath } from "node:url"
import { expect, layer } from "@effect/vitest"
import { McpHost } from "@effect-mcp/host"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"
import * as HttpCore from "../src/internal/httpCore.js"
import * as Sealing from "../src/internal/sealing.js"
import { type CallAnswer, callTool } from "./support/core.js"
import { gatewayHost, stdio } from "./support/gateway.js"

const replay = stdio(fileURLToPath(new URL("../../cli/test/fixtures/replay-server.mjs", import.meta.url)))

/** A 2026-07-28 call of `tool` with `ticket` over `handle`, with `extra` params (a retry's). */
const call = (handle: HttpCore.Handler, tool: string, ticket: string, extra: Record<string, unknown> = {}) =>
  callTool(handle, tool, { ticket }, extra)

/** The retry of `round` answering its one request with `color`. */
const answering = (round: CallAnswer, color: string) => {
  const [key] = Object.keys(round.result?.inputRequests ?? {})
  return {
    inputResponses: { [key ?? "none"]: { action: "accept", content: { color } } },
    requestState: round.result?.requestState
  }
}

const textOf = (answer: CallAnswer) => answer.result?.content?.[0]?.text

/**
 * Two instances sharing one sealing key, named `a` and `b`: `a` on the suite's host, `b` on a host
 * of its own (its own replay server process), as two gateways behind a balancer.
 */
const instances = Effect.gen(function* () {
  const sealing = yield* Sealing.keysFrom("k1:shared by both")
  const other = yield* Layer.build(gatewayHost({ servers: [{ name: "replay", target: replay }] }))
  return {
    a: yield* HttpCore.make({ sealing, instance: "a" }),
    b: yield* HttpCore.make({ sealing, instance: "b" }).pipe(Effect.provide(other))
  }
})

/** 10 ms of the real clock (the TestClock stands still). */
const realPause = Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 10)))

/** The requests the gateway's client of the replay server has in flight. */
const pending = Effect.flatMap(
  Effect.flatMap(McpHost.McpHost, (host) => host.client("replay")),
  (client) => Effect.map(client.stats, (stats) => stats.pending)
)

layer(gatewayHost({ servers: [{ name: "replay", target: replay }] }), { timeout: "60 seconds" })(
  "a stateful server's call that asks, held across a 2026-07-28 round",
  (it) => {
    it.scoped("the retry's answer reaches the waiting call, which ran once, though not marked safe to repeat", () =>
      Effect.gen(function* () {
        const { a } = yield* instances
        const round = yield* call(a, "replay__commit", "once")
        expect(round.result?.resultType).toBe("input_required")
        expect(Object.values(round.result?.inputRequests ?? {})).toStrictEqual([
          expect.objectContaining({ method: "elicitation/create" })
        ])
        const done = yield* call(a, "replay__commit", "once", answering(round, "green"))
        expect(done.result?.resultType).toBe("complete")
        expect(textOf(done)).toBe("green after 1 runs")
      })
    )

    it.scoped("a retry at another instance is refused naming the one holding the call, which still answers it", () =>
      Effect.gen(function* () {
        const { a, b } = yield* instances
        const round = yield* call(a, "replay__commit", "elsewhere")
        const refused = yield* call(b, "replay__commit", "elsewhere", answering(round, "red"))
        expect(refused.error).toMatchObject({
          code: -32603,
          message: expect.stringMatching(/held by gateway instance a, and this is b: send the retry to a/),
          data: { server: "replay", instance: "a", reason: "held_elsewhere" }
        })
        const done = yield* call(a, "replay__commit", "elsewhere", answering(round, "red"))
        expect(textOf(done)).toBe("red after 1 runs")
        // Continued once: the same state again finds no call, and the tool may not run twice.
        const again = yield* call(a, "replay__commit", "elsewhere", answering(round, "red"))
        expect(again.error?.message).toMatch(/has ended \(it expired, or another retry continued it\)/)
      })
    )

    it.scoped("a tool marked safe to repeat runs again at another instance, with the answer", () =>
      Effect.gen(function* () {
        const { a, b } = yield* instances
        const round = yield* call(a, "replay__choose", "moved")
        const done = yield* call(b, "replay__choose", "moved", answering(round, "blue"))
        // Run again from the start on b's server (its first run there), its question answered by the retry.
        expect(done.result?.resultType).toBe("complete")
        expect(textOf(done)).toBe("blue after 1 runs")
      })
    )

    it.scoped("a call no retry continues is stopped when its round's state expires (ten minutes)", () =>
      Effect.gen(function* () {
        const { a } = yield* instances
        const before = yield* pending
        const round = yield* call(a, "replay__commit", "abandoned")
        expect(round.result?.resultType).toBe("input_required")
        // Held: the server's call is still in flight.
        expect(yield* pending).toBe(before + 1)
        yield* TestClock.adjust("10 minutes")
        yield* TestClock.adjust("1 second")
        // Stopped: the server's call is cancelled.
        yield* pending.pipe(Effect.zipLeft(realPause), Effect.repeat({ until: (now) => now === before, times: 2000 }))
        expect(yield* pending).toBe(before)
        const late = yield* call(a, "replay__commit", "abandoned", answering(round, "green"))
        expect(late.error).toMatchObject({ code: -32602, message: "Invalid requestState (expired)" })
      })
    )
  }
)
