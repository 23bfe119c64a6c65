/**
 * The stdio transport's waits run on Effect's clock, whatever spawns the process: over a scripted
 * spawner and the `TestClock`, the close escalation (end stdin, wait, SIGTERM, wait, SIGKILL) and
 * the ends it reports (a process that exits with its pipes held open, one that closes stdout and
 * lives on) happen exactly when the clock says. A raw `setTimeout` would not move with it.
 */
import { assert, describe, it } from "@effect/vitest"
import { StdioTransport } from "@effect-mcp/client"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Scope from "effect/Scope"
import * as TestClock from "effect/TestClock"

/** A process that does what the test makes it do, and a log of what the transport did to it. */
const scripted = (onSignal: (signal: StdioTransport.StopSignal, events: StdioTransport.ProcessEvents) => void) => {
  const log: Array<string> = []
  let events: StdioTransport.ProcessEvents | undefined
  let exited = false
  const spawner: StdioTransport.SpawnerService = {
    writesInCaller: false,
    spawn: (_request, given) =>
      Effect.sync(() => {
        events = given
        return {
          pid: 4242,
          write: (text) => {
            log.push(`write ${text.trim()}`)
          },
          endStdin: () => {
            log.push("end stdin")
          },
          kill: (signal) => {
            if (exited || events === undefined) return
            log.push(signal)
            onSignal(signal, events)
          }
        }
      })
  }
  const exit = (exit: StdioTransport.ProcessExit) => {
    if (exited || events === undefined) return
    exited = true
    events.exit(exit)
  }
  return {
    log,
    spawner,
    exit,
    events: () => {
      if (events === undefined) throw new Error("not spawned")
      return events
    }
  }
}

/** Starts the transport over `spawner` in a scope of its own. */
const start = (spawner: StdioTransport.SpawnerService, options: Partial<StdioTransport.StdioOptions> = {}) =>
  Effect.gen(function* () {
    const scope = yield* Scope.make()
    const [transport] = yield* Scope.extend(
      StdioTransport.makeWithSpawner({ command: "scripted", ...options }),
      scope
    ).pipe(Effect.provideService(StdioTransport.Spawner, spawner))
    return { scope, transport }
  })

describe("stdio transport on Effect's clock", () => {
  it.effect("closing ends stdin, sends SIGTERM after afterStdin and SIGKILL after afterTerm", () =>
    Effect.gen(function* () {
      // Deaf to stdin's end and to SIGTERM; SIGKILL ends it.
      const process = scripted((signal) => {
        if (signal === "SIGKILL") process.exit({ code: null, signal })
      })
      const { scope } = yield* start(process.spawner, { shutdown: { afterStdin: "2 seconds", afterTerm: "3 seconds" } })
      const closing = yield* Effect.fork(Scope.close(scope, Exit.void))
      yield* TestClock.adjust("1999 millis")
      assert.deepStrictEqual(process.log, ["end stdin"])
      yield* TestClock.adjust("1 millis")
      assert.deepStrictEqual(process.log, ["end stdin", "SIGTERM"])
      yield* TestClock.adjust("2999 millis")
      assert.deepStrictEqual(process.log, ["end stdin", "SIGTERM"])
      yield* TestClock.adjust("1 millis")
      assert.deepStrictEqual(process.log, ["end stdin", "SIGTERM", "SIGKILL"])
      yield* Fiber.join(closing)
    })
  )

  it.effect("a process that exits when stdin ends gets no signal", () =>
    Effect.gen(function* () {
      const process = scripted(() => {})
      const { scope, transport } = yield* start(process.spawner)
      const reading = yield* Effect.fork(transport.run(() => {}))
      const closing = yield* Effect.fork(Scope.close(scope, Exit.void))
      yield* TestClock.adjust("10 millis")
      process.exit({ code: 0, signal: null })
      yield* Fiber.join(closing)
      assert.deepStrictEqual(process.log, ["end stdin"])
      // Closed by the scope: the connection ended cleanly.
      assert.isTrue(Exit.isSuccess(yield* Fiber.await(reading)))
    })
  )

  it.effect(
    "a process that exits with its pipes held open ends the connection a second later, with its code and stderr",
    () =>
      Effect.gen(function* () {
        const process = scripted(() => {})
        const { scope, transport } = yield* start(process.spawner)
        const reading = yield* Effect.fork(transport.run(() => {}))
        process.events().stderr(new TextEncoder().encode("cannot open database\nbye"))
        process.exit({ code: 4, signal: null })
        yield* TestClock.adjust("999 millis")
        assert.isNull(reading.unsafePoll())
        yield* TestClock.adjust("1 millis")
        const error = yield* Effect.flip(Fiber.join(reading))
        assert.strictEqual(error.exitCode, 4)
        assert.strictEqual(error.stderr, "cannot open database\nbye")
        assert.include(error.message, "exited with code 4")
        // A later message fails with how the connection ended.
        assert.strictEqual(yield* Effect.flip(transport.send({ jsonrpc: "2.0", method: "ping", id: 1 })), error)
        // It has exited: closing sends nothing.
        yield* Scope.close(scope, Exit.void)
        assert.deepStrictEqual(process.log, ["end stdin"])
      })
  )

  it.effect("a process that closes its stdout and lives on ends the connection three seconds later", () =>
    Effect.gen(function* () {
      const process = scripted((signal) => process.exit({ code: null, signal }))
      const { scope, transport } = yield* start(process.spawner)
      const reading = yield* Effect.fork(transport.run(() => {}))
      process.events().stdoutEnd()
      yield* TestClock.adjust("2999 millis")
      assert.isNull(reading.unsafePoll())
      yield* TestClock.adjust("1 millis")
      const error = yield* Effect.flip(Fiber.join(reading))
      assert.include(error.message, "the server closed its stdout")
      const closing = yield* Effect.fork(Scope.close(scope, Exit.void))
      yield* TestClock.adjust("2 seconds")
      yield* Fiber.join(closing)
      assert.deepStrictEqual(process.log, ["end stdin", "SIGTERM"])
    })
  )
})
