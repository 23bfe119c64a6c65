/**
 * How long a call through the gateway may take, on the `TestClock`: the caller's own request
 * governs (the gateway's client does not cut it at its 60 s default), and a server's maximum, when
 * one is configured (`McpGateway.Options.maxCallTime`), bounds it, progress or not.
 */
import { expect, layer } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/TestClock"
import * as TestServices from "effect/TestServices"
import { connect, faultServer, gatewayHost } from "./support/gateway.js"

/** The caller's own patience: longer than anything the test waits. */
const CALLER = { timeout: "1 hour" } as const

/** `fault__slow` (progress 1, then waits until cancelled) in flight, once the server has reported. */
const slowCall = (gateway?: Parameters<typeof connect>[0]) =>
  Effect.gen(function* () {
    const { client } = yield* connect(gateway)
    const started = yield* Deferred.make<void>()
    const call = yield* client
      .callTool("fault__slow", {}, { ...CALLER, onProgress: () => Deferred.succeed(started, undefined) })
      .pipe(Effect.fork)
    yield* Deferred.await(started)
    return call
  })

layer(gatewayHost({ servers: [{ name: "fault", target: faultServer }] }), { timeout: "60 seconds" })(
  "McpGateway, how long a call may take",
  (it) => {
    it.scoped("a call lives as long as its caller waits, past the gateway client's 60 s", () =>
      Effect.gen(function* () {
        const call = yield* slowCall()
        yield* TestClock.adjust("90 seconds")
        // What a timeout would have sent has time to arrive.
        yield* TestServices.provideLive(Effect.sleep("200 millis"))
        expect(call.unsafePoll()).toBeNull()
        yield* Fiber.interrupt(call)
      })
    )

    it.scoped("a server's configured maximum ends the call, naming the server", () =>
      Effect.gen(function* () {
        const call = yield* slowCall({
          gateway: { maxCallTime: (server) => (server === "fault" ? "2 minutes" : undefined) }
        })
        yield* TestClock.adjust("110 seconds")
        expect(call.unsafePoll()).toBeNull()
        yield* TestClock.adjust("20 seconds")
        const exit = yield* Fiber.await(call)
        expect(Exit.isFailure(exit)).toBe(true)
        if (Exit.isFailure(exit)) {
          expect(JSON.stringify(exit.cause)).toContain("fault")
          expect(JSON.stringify(exit.cause)).toContain("-32603")
        }
      })
    )
  }
)
