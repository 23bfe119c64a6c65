/**
 * A server that crashes ten times in a row under `McpHost.restartForever` (the gateway's schedule):
 * restarted each time, at most 30 s apart, its attempt in its status, and back with its tools once
 * it is mended. The process is real; the waits between restarts run on the `TestClock`.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it } from "@effect/vitest"
import { Transports } from "@effect-mcp/client"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"
import * as TestServices from "effect/TestServices"
import { keepAliveHttpClient } from "../../client/test/support/httpClient.js"
import { McpHost, type ServerStatus } from "../src/index.js"
import { stdio } from "./support/targets.js"

const dir = mkdtempSync(join(tmpdir(), "effect-mcp-restarts-"))
/** A server that counts its starts and exits at once while its `broken` file exists. */
const script = fileURLToPath(new URL("./fixtures/flaky-server.mjs", import.meta.url))
const counter = join(dir, "starts")
const broken = join(dir, "broken")

const platform = Transports.layer.pipe(Layer.provideMerge(Layer.merge(NodeContext.layer, keepAliveHttpClient)))

/** Polls `status` in real time (the process is real) until `done` holds, for at most ten seconds. */
const until = (
  status: Effect.Effect<ServerStatus.ServerStatus>,
  done: (status: ServerStatus.ServerStatus) => boolean
) =>
  TestServices.provideLive(
    Effect.gen(function* () {
      for (let poll = 0; poll < 500; poll++) {
        const now = yield* status
        if (done(now)) return now
        yield* Effect.sleep("20 millis")
      }
      return yield* Effect.dieMessage(`the status never came: last ${JSON.stringify(yield* status)}`)
    })
  )

/** The wait before restart `attempt` under `restartForever`: doubling from 250 ms, at most 30 s. */
const delayOf = (attempt: number) => Math.min(250 * 2 ** (attempt - 1), 30_000)

/**
 * Waits (in real time, a few yields at most) until the restart's wait has begun on the `TestClock`:
 * a sleeper due `delay` from now. Others sleep too (a process's timers, some left by processes
 * gone), so this shows the schedule's delay; that the wait is the restart's is shown by the next
 * attempt coming once the clock has moved by it.
 */
const restartWaiting = (delay: number) =>
  Effect.gen(function* () {
    for (let poll = 0; poll < 500; poll++) {
      const now = yield* TestClock.currentTimeMillis
      if (Chunk.some(yield* TestClock.sleeps(), (due) => due === now + delay)) return
      yield* TestServices.provideLive(Effect.sleep("2 millis"))
    }
    return yield* Effect.dieMessage(`no restart waits ${delay} ms`)
  })

const attemptOf = (status: ServerStatus.ServerStatus) => (status._tag === "Reconnecting" ? status.attempt : 0)

describe("restartForever", () => {
  it.scoped("a server crashing ten times in a row is restarted each time, at most 30 s apart, and comes back", () =>
    Effect.gen(function* () {
      const host = yield* McpHost.McpHost
      const status = Effect.orDie(host.status("flaky"))
      expect((yield* status)._tag).toBe("Ready")
      writeFileSync(broken, "")
      yield* Effect.ignore(host.callTool("flaky__die", {}))
      let startsBefore = 0
      for (let attempt = 1; attempt <= 10; attempt++) {
        yield* until(status, (now) => attemptOf(now) === attempt)
        yield* restartWaiting(delayOf(attempt))
        // A process gone before its era probe is started once more (stdioProbe.ts): the starts
        // are counted, not assumed.
        if (attempt === 10) {
          startsBefore = Number(readFileSync(counter, "utf8"))
          rmSync(broken)
        }
        yield* TestClock.adjust(delayOf(attempt))
      }
      yield* until(status, (now) => now._tag === "Ready")
      expect(existsSync(broken)).toBe(false)
      const result = yield* host.callTool("flaky__ping_me", {})
      expect(result.content).toStrictEqual([{ type: "text", text: `start ${startsBefore + 1}` }])
      expect(startsBefore).toBeGreaterThanOrEqual(11)
    }).pipe(
      Effect.provide(
        McpHost.layer({
          servers: [{ name: "flaky", target: stdio(script, counter, broken) }],
          restart: McpHost.restartForever
        }).pipe(Layer.provide(platform))
      )
    )
  )
})
