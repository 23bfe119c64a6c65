/**
 * The servers' log messages through the gateway, with the SDK v1 fault server behind the host
 * (`logThenAnswer` logs "step 1" to "step 3" at info, then answers at once): a 2025-11-25 session
 * hears a call's logs before its result, at or above the level it set; a 2026-07-28 client hears them only for a request that
 * asks (`io.modelcontextprotocol/logLevel`), at or above its level. With the fault server over
 * Streamable HTTP, where it relates each log to its call, a call's logs reach its own client alone.
 */
import { fileURLToPath } from "node:url"
import { expect, layer } from "@effect/vitest"
import type { McpClient } from "@effect-mcp/client"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import { startHttpFixture } from "../../client/test/support/sdkV2Server.js"
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

/** Waits until `heard` has something (a log sent while a call is in flight). */
const untilHeard = (heard: ReadonlyArray<unknown>) =>
  Effect.sync(() => heard.length).pipe(
    Effect.repeat({ until: (count) => count > 0, schedule: Schedule.spaced("10 millis") }),
    Effect.timeout(WAIT)
  )

/** The gateway's host with the fault server over Streamable HTTP behind it. */
const overHttp = Layer.unwrapScoped(
  Effect.map(
    Effect.acquireRelease(
      Effect.promise(() =>
        startHttpFixture(
          fileURLToPath(new URL("./fixtures/faultServer.mjs", import.meta.url)),
          ["http"],
          "fault server"
        )
      ),
      (running) => Effect.promise(running.stop)
    ),
    (running) =>
      gatewayHost({
        servers: [{ name: "fixture", target: { _tag: "Http", url: running.url, transport: "http", headers: {} } }]
      })
  )
)

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

  it.scoped("2025-11-25: when the most verbose session ends, the server goes to the level of those left", () =>
    Effect.gen(function* () {
      const levelOf = (client: McpClient.McpClientService) =>
        Effect.map(client.callTool("fixture__level", {}), textOf).pipe(Effect.timeout(WAIT))
      const { client: quiet } = yield* connect()
      yield* quiet.setLoggingLevel("error")
      const scope = yield* Scope.make()
      const { client: verbose } = yield* connect({ clientScope: scope })
      yield* verbose.setLoggingLevel("debug")
      expect(yield* levelOf(quiet)).toBe("debug")
      yield* Scope.close(scope, Exit.void)
      // The gateway sees the session end once its connection closes.
      yield* levelOf(quiet).pipe(
        Effect.repeat({ until: (now) => now === "error", schedule: Schedule.spaced("20 millis") }),
        Effect.timeout(WAIT)
      )
      expect(yield* levelOf(quiet)).toBe("error")
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
      yield* untilHeard(first.heard)
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

layer(overHttp, { excludeTestServices: true, timeout: "60 seconds" })(
  "a server over Streamable HTTP: each call's log messages reach its own client alone",
  (it) => {
    // Before, a log was anyone's whose call was in flight: every 2025-11-25 caller heard it, and a
    // 2026-07-28 request heard none while another client called the server.
    for (const [first, second] of [
      ["2025-11-25", "2025-11-25"],
      ["2026-07-28", "2026-07-28"],
      ["2025-11-25", "2026-07-28"]
    ] as const) {
      it.scoped(`${first} and ${second}: while both call the server, each hears its own call's logs`, () =>
        Effect.gen(function* () {
          const holding = yield* listening(first)
          const answering = yield* listening(second)
          yield* holding.client.setLoggingLevel("info")
          yield* answering.client.setLoggingLevel("info")
          const waiting = yield* Effect.fork(holding.client.callTool("fixture__logThenWait", { text: "first's own" }))
          yield* untilHeard(holding.heard)
          for (let round = 0; round < 3; round++) expect(yield* answering.call).toStrictEqual(STEPS)
          expect(holding.heard).toStrictEqual(["info fixture first's own"])
          yield* Fiber.interrupt(waiting)
        })
      )
    }

    it.scoped("a 2026-07-28 request that asks for no logs gets none, and no one else hears its call's", () =>
      Effect.gen(function* () {
        const holding = yield* listening("2025-11-25")
        const unasking = yield* listening("2026-07-28")
        const waiting = yield* Effect.fork(holding.client.callTool("fixture__logThenWait", { text: "first's own" }))
        yield* untilHeard(holding.heard)
        expect(yield* unasking.call).toStrictEqual([])
        expect(holding.heard).toStrictEqual(["info fixture first's own"])
        yield* Fiber.interrupt(waiting)
      })
    )
  }
)
