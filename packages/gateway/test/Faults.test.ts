/**
 * The gateway when something breaks, with the SDK v1 fault server (`fixtures/faultServer.mjs`)
 * behind the host: a server that dies in the middle of a call, and a client that vanishes in the
 * middle of one.
 */
import { expect, layer } from "@effect/vitest"
import { McpHost } from "@effect-mcp/host"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { connect, faultServer, gatewayHost, textOf } from "./support/gateway.js"

/**
 * The longest a test waits for something that should happen at once: generous, for a loaded
 * machine (a test goes on as soon as it comes).
 */
const WAIT = "30 seconds"

/** How long, once the caller has heard a log message, another connection is given to hear it too (only a bug sends it there). */
const ABSENT_WAIT = "1 second"

/** How many `slow` calls the fault server has seen cancelled, once there are at least `atLeast`. */
const cancelledSoFar = (host: McpHost.McpHostService, atLeast = 0) =>
  host.callTool("fixture__cancelled", { atLeast }).pipe(
    Effect.timeout(WAIT),
    Effect.map((result) => Number(/^cancelled (\d+) in \d+$/.exec(textOf(result))?.[1]))
  )

/**
 * A connection whose client lives in `clientScope`, with a `slow` call in flight: it has reached the
 * server (which reports progress once it has it) and waits there to be cancelled.
 */
const slowCallInFlight = (clientScope: Scope.Scope) =>
  Effect.gen(function* () {
    const connection = yield* connect({ clientScope })
    const started = yield* Deferred.make<void>()
    const call = yield* connection.client
      .callTool("fixture__slow", {}, { onProgress: () => Deferred.succeed(started, undefined) })
      .pipe(Effect.forkIn(clientScope))
    yield* Deferred.await(started).pipe(Effect.timeout(WAIT))
    return { ...connection, call }
  })

const pidOf = (host: McpHost.McpHostService) =>
  Effect.map(host.status("fixture"), (status) => (status._tag === "Ready" ? status.pid : undefined))

layer(
  gatewayHost({
    servers: [{ name: "fixture", target: faultServer }],
    restart: Schedule.spaced("50 millis").pipe(Schedule.intersect(Schedule.recurs(5)))
  }),
  { excludeTestServices: true, timeout: "60 seconds" }
)("McpGateway, when a server or the client goes away", (it) => {
  it.scoped("a server dying mid-call: a JSON-RPC error naming it; the gateway serves on; the host restarts it", () =>
    Effect.gen(function* () {
      const host = yield* McpHost.McpHost
      const { client, served } = yield* connect()
      const before = yield* pidOf(host)
      expect(before).toBeTypeOf("number")
      const error = yield* client.callTool("fixture__die", {}).pipe(Effect.timeout(WAIT), Effect.flip)
      expect(error).toMatchObject({ _tag: "RpcError", code: -32603, data: { server: "fixture" } })
      expect(error._tag === "RpcError" && error.errorMessage).toMatch(/^fixture: /)
      // The connection is untouched.
      yield* client.ping()
      expect(served.unsafePoll()).toBeNull()
      // Once the host has seen the process end (the call's error and the exit race each other), a
      // call waits for the restart, then reaches the new process.
      yield* host.statusChanges.pipe(
        Stream.filter(
          (event) => event.server === "fixture" && !(event.status._tag === "Ready" && event.status.pid === before)
        ),
        Stream.runHead,
        Effect.timeout(WAIT)
      )
      const echoed = yield* client
        .callTool("fixture__echo", { message: "after the restart" })
        .pipe(Effect.timeout(WAIT))
      expect(textOf(echoed)).toBe("echo: after the restart")
      const after = yield* pidOf(host)
      expect(after).toBeTypeOf("number")
      expect(after).not.toBe(before)
    })
  )

  it.scoped("a restarted server is given the connection's log level and subscriptions again", () =>
    Effect.gen(function* () {
      const host = yield* McpHost.McpHost
      const { client } = yield* connect()
      /** What the fixture's tool `name` answers, once it answers `expected` (asked again until then, within `WAIT`). */
      const once = (name: string, expected: string) =>
        client.callTool(`fixture__${name}`, {}).pipe(
          Effect.map(textOf),
          Effect.filterOrFail(
            (text) => text === expected,
            (text) => `fixture__${name} answered ${JSON.stringify(text)}, not ${JSON.stringify(expected)}`
          ),
          Effect.retry(Schedule.spaced("50 millis").pipe(Schedule.upTo(WAIT)))
        )
      yield* client.setLoggingLevel("debug")
      yield* client.subscribe("fault://doc")
      expect(yield* once("level", "debug")).toBe("debug")
      expect(yield* once("subscribed", "fault://doc")).toBe("fault://doc")
      const before = yield* pidOf(host)
      yield* Effect.ignore(client.callTool("fixture__die", {}).pipe(Effect.timeout(WAIT)))
      yield* host.statusChanges.pipe(
        Stream.filter(
          (event) => event.server === "fixture" && event.status._tag === "Ready" && event.status.pid !== before
        ),
        Stream.runHead,
        Effect.timeout(WAIT)
      )
      // The new process starts unset and unsubscribed: the gateway applies both again.
      expect(yield* once("level", "debug")).toBe("debug")
      expect(yield* once("subscribed", "fault://doc")).toBe("fault://doc")
    })
  )

  it.scoped("a log message sent during one connection's call reaches that connection only", () =>
    Effect.gen(function* () {
      const caller = yield* connect()
      const other = yield* connect()
      const heard = (client: typeof caller.client) =>
        client.logMessages.pipe(
          Stream.filter((message) => message.data === "during the call"),
          Stream.runHead,
          Effect.fork
        )
      const byCaller = yield* heard(caller.client)
      const byOther = yield* heard(other.client)
      yield* Effect.yieldNow()
      const call = yield* Effect.fork(caller.client.callTool("fixture__logThenWait", { text: "during the call" }))
      // The caller's comes, however long the machine takes; the other's is looked for from the
      // start until a while after it (both are sent at once by a gateway that sends it to both).
      expect((yield* Fiber.join(byCaller).pipe(Effect.timeout(WAIT)))._tag).toBe("Some")
      expect((yield* Fiber.join(byOther).pipe(Effect.timeout(ABSENT_WAIT), Effect.option))._tag).toBe("None")
      yield* Fiber.interrupt(call)
    })
  )

  it.scoped("a client closed mid-call: the call is cancelled on the server and the connection's serve ends", () =>
    Effect.gen(function* () {
      const host = yield* McpHost.McpHost
      const backend = yield* host.client("fixture")
      const before = yield* cancelledSoFar(host)
      const connection = yield* Scope.make()
      const { call, served } = yield* slowCallInFlight(connection)
      expect((yield* backend.stats).pending).toBe(1)

      // The client goes away: its scope (with its end of the connection) closes.
      yield* Scope.close(connection, Exit.void)
      expect(Exit.isInterrupted(yield* Fiber.await(call))).toBe(true)

      // The connection's serve ended by itself, and the server saw the call cancelled.
      expect(Exit.isSuccess(yield* Fiber.await(served).pipe(Effect.timeout(WAIT)))).toBe(true)
      expect(yield* cancelledSoFar(host, before + 1)).toBe(before + 1)
      expect((yield* backend.stats).pending).toBe(0)
    })
  )

  // The connection's peer, handlers, forwarding fibers and attachment live in the connection's own
  // scope: when it drops without a cancellation, the call it was serving is cancelled on the server.
  it.scoped("a connection dropped mid-call (no cancellation sent): the call is cancelled on the server", () =>
    Effect.gen(function* () {
      const host = yield* McpHost.McpHost
      const backend = yield* host.client("fixture")
      const before = yield* cancelledSoFar(host)
      const connection = yield* Scope.make()
      const { end, served } = yield* slowCallInFlight(connection)

      // The client's process dies: the connection ends, with no notifications/cancelled.
      yield* end.close
      expect(Exit.isSuccess(yield* Fiber.await(served).pipe(Effect.timeout(WAIT)))).toBe(true)
      // A cancellation is sent as soon as the connection's end is seen (nothing else ends the
      // call: it lives until it is answered or cancelled).
      expect(yield* cancelledSoFar(host, before + 1)).toBe(before + 1)
      expect((yield* backend.stats).pending).toBe(0)
      yield* Scope.close(connection, Exit.void)
    })
  )
})
