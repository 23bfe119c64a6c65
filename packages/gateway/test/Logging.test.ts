/**
 * The servers' log messages through the gateway, with the SDK v1 fault server behind the host
 * (`logThenAnswer` logs "step 1" to "step 3" at info, then answers at once): a 2025-11-25 session
 * hears a call's logs before its result, at or above the level it set; a 2026-07-28 client hears them only for a request that
 * asks (`io.modelcontextprotocol/logLevel`), at or above its level.
 */
import { expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Schedule from "effect/Schedule"
import { connect, faultServer, gatewayHost, textOf } from "./support/gateway.js"

/** The longest a test waits for something that should happen at once. */
const WAIT = "10 seconds"

/** Our client at `protocolVersion`, with every log message it hears (observed as dispatched). */
const listening = (protocolVersion: "2026-07-28" | "2025-11-25") =>
  Effect.gen(function* () {
    const { client } = yield* connect({ protocolVersion })
    const heard: Array<unknown> = []
    // What came before a result is here when the call returns.
    yield* client.observe("notifications/message", (message) =>
      Effect.sync(() => void heard.push(`${message.level} ${message.logger} ${String(message.data)}`))
    )
    const call = Effect.gen(function* () {
      heard.length = 0
      const result = yield* client.callTool("fixture__logThenAnswer", {}).pipe(Effect.timeout(WAIT))
      expect(textOf(result)).toBe("logged")
      return [...heard]
    })
    return { client, call, heard }
  })

const STEPS = ["info fixture step 1", "info fixture step 2", "info fixture step 3"]

layer(gatewayHost({ servers: [{ name: "fixture", target: faultServer }] }), {
  excludeTestServices: true,
  timeout: "60 seconds"
})("the servers' log messages through the gateway", (it) => {
  it.scoped("2025-11-25: a call's log messages reach its caller before its result", () =>
    Effect.gen(function* () {
      const { call } = yield* listening("2025-11-25")
      for (let round = 0; round < 5; round++) expect(yield* call).toStrictEqual(STEPS)
    })
  )

  it.scoped("2025-11-25: each session hears the level it set, though the server is set to the most verbose", () =>
    Effect.gen(function* () {
      const quiet = yield* listening("2025-11-25")
      const verbose = yield* listening("2025-11-25")
      yield* quiet.client.setLoggingLevel("error")
      yield* verbose.client.setLoggingLevel("debug")
      expect(yield* verbose.call).toStrictEqual(STEPS)
      expect(yield* quiet.call).toStrictEqual([])
      // Set after the other: the server stays at debug for the one that asked for it.
      yield* quiet.client.setLoggingLevel("warning")
      expect(yield* verbose.call).toStrictEqual(STEPS)
    })
  )

  it.scoped("2026-07-28: only a request that asks gets log messages, its own, at or above its level", () =>
    Effect.gen(function* () {
      const { client, call } = yield* listening("2026-07-28")
      expect(client.protocolVersion).toBe("2026-07-28")
      expect(yield* call).toStrictEqual([])
      // The level goes in each request's _meta from now on.
      yield* client.setLoggingLevel("info")
      for (let round = 0; round < 3; round++) expect(yield* call).toStrictEqual(STEPS)
      yield* client.setLoggingLevel("warning")
      expect(yield* call).toStrictEqual([])
    })
  )

  it.scoped("2026-07-28: while two clients call one server, neither hears a log that may be the other's", () =>
    Effect.gen(function* () {
      const first = yield* listening("2026-07-28")
      const second = yield* listening("2026-07-28")
      yield* first.client.setLoggingLevel("info")
      yield* second.client.setLoggingLevel("info")
      const waiting = yield* Effect.fork(first.client.callTool("fixture__logThenWait", { text: "first's own" }))
      // Its own log, sent while it alone calls the server, reaches it: its call is in flight.
      yield* Effect.sync(() => first.heard.length).pipe(
        Effect.repeat({ until: (count) => count > 0, schedule: Schedule.spaced("10 millis") }),
        Effect.timeout(WAIT)
      )
      expect(first.heard).toStrictEqual(["info fixture first's own"])
      expect(textOf(yield* second.client.callTool("fixture__logThenAnswer", {}).pipe(Effect.timeout(WAIT)))).toBe(
        "logged"
      )
      expect(first.heard).toStrictEqual(["info fixture first's own"])
      expect(second.heard).toStrictEqual([])
      yield* Fiber.interrupt(waiting)
    })
  )

  it.scoped("2026-07-28: a request's logs are its own: no other client hears them", () =>
    Effect.gen(function* () {
      const modern = yield* listening("2026-07-28")
      const quiet = yield* listening("2026-07-28")
      const stateful = yield* listening("2025-11-25")
      yield* modern.client.setLoggingLevel("debug")
      expect(yield* modern.call).toStrictEqual(STEPS)
      // The others were not calling the server: they heard nothing of it.
      expect(quiet.heard).toStrictEqual([])
      expect(stateful.heard).toStrictEqual([])
      expect(yield* quiet.call).toStrictEqual([])
      expect(yield* stateful.call).toStrictEqual(STEPS)
      expect(modern.heard).toStrictEqual(STEPS)
    })
  )
})
