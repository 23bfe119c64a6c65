/**
 * Recovery of an expired session, as an executor combinator: a session whose re-initialization
 * failed (so it is `Failed`) is never initialized again by a request that met the expired session
 * later.
 */
import { describe, expect, it } from "@effect/vitest"
import { McpError } from "@effect-mcp/client"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as Recovery from "../src/internal/session/recovery.js"
import type { Prepared } from "../src/internal/session/types.js"
import { lostSession } from "../src/internal/transport/streamable/answers.js"

const request: Prepared = { method: "ping", encoded: undefined, wire: undefined, version: "2025-11-25", options: {} }

describe("Recovery", () => {
  it.scoped("a request that meets an expired session after a failed re-initialization fails, and starts none", () =>
    Effect.gen(function* () {
      let alive = true
      let reinitializations = 0
      let losses = 0
      const recovering = yield* Recovery.make({
        retries: 1,
        reinitialization: Effect.suspend(() => {
          reinitializations++
          alive = false // the session moves to Failed when it cannot be established again
          return Effect.fail(new McpError.SessionUnavailable({ server: "s", reason: "initialize failed" }))
        }),
        restore: Effect.void,
        refresh: Either.right,
        lost: () => Effect.sync(() => losses++),
        alive: () => alive
      })
      const expired = recovering(() => Effect.fail(new McpError.SessionExpired({ server: "s" })))
      const first = yield* Effect.flip(expired(request))
      expect(first._tag).toBe("SessionUnavailable")
      // A request of the same generation whose SessionExpired came after the session failed.
      const late = yield* Effect.flip(expired(request))
      expect(late._tag).toBe("SessionExpired")
      expect(reinitializations).toBe(1)
      // The session had already failed: nothing more to fail.
      expect(losses).toBe(0)
    })
  )

  it.scoped(
    "requests that meet the expired session together share one re-initialization, which a request given up does not stop",
    () =>
      Effect.gen(function* () {
        let reinitializations = 0
        const gate = yield* Deferred.make<void>()
        const recovering = yield* Recovery.make({
          retries: 1,
          reinitialization: Effect.zipRight(
            Effect.sync(() => reinitializations++),
            Deferred.await(gate)
          ),
          restore: Effect.void,
          refresh: Either.right,
          lost: () => Effect.void,
          alive: () => true
        })
        const sent = new Map<number, number>()
        const executor = (id: number) =>
          recovering(() =>
            Effect.suspend(() => {
              const n = (sent.get(id) ?? 0) + 1
              sent.set(id, n)
              return n === 1
                ? Effect.fail(new McpError.SessionExpired({ server: "s", status: 404 }))
                : Effect.succeed({ id })
            })
          )
        const given = yield* Effect.fork(executor(0)(request))
        const waiting = yield* Effect.fork(
          Effect.all(
            [1, 2, 3].map((id) => executor(id)(request)),
            { concurrency: "unbounded" }
          )
        )
        yield* Effect.yieldNow({ priority: 1 })
        while (sent.size < 4) yield* Effect.yieldNow()
        yield* Fiber.interrupt(given)
        yield* Deferred.succeed(gate, undefined)
        expect(yield* Fiber.join(waiting)).toStrictEqual([{ id: 1 }, { id: 2 }, { id: 3 }])
        expect(reinitializations).toBe(1)
      })
  )

  it.scoped("a request that meets the expired session again after it was established again fails the session", () =>
    Effect.gen(function* () {
      let reinitializations = 0
      const lost: Array<string> = []
      const recovering = yield* Recovery.make({
        retries: 1,
        reinitialization: Effect.sync(() => {
          reinitializations++
        }),
        restore: Effect.void,
        refresh: Either.right,
        lost: (error) => Effect.sync(() => lost.push(error._tag)),
        alive: () => true
      })
      let sent = 0
      const refused = recovering(() =>
        Effect.suspend(() => {
          sent++
          return Effect.fail(new McpError.SessionExpired({ server: "s", status: 400 }))
        })
      )
      const error = yield* Effect.flip(refused(request))
      expect([error._tag, sent, reinitializations, lost]).toStrictEqual(["SessionExpired", 2, 1, ["SessionExpired"]])
      // A request the session recovered from fails nothing.
      let first = true
      const recovered = recovering(() =>
        Effect.suspend(() => {
          if (!first) return Effect.succeed({})
          first = false
          return Effect.fail(new McpError.SessionExpired({ server: "s", status: 404 }))
        })
      )
      expect(yield* recovered(request)).toStrictEqual({})
      expect(lost).toHaveLength(1)
    })
  )
})

describe("lostSession (a 4xx to a request that carried a session id)", () => {
  const body = (code: number, message: string) => JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null })
  it("404 always; another 4xx only with a JSON-RPC -32000/-32001 about the session (never a proxy's page or the request's own error)", () => {
    const cases: ReadonlyArray<readonly [number, string, boolean]> = [
      [404, "", true],
      [404, body(-32001, "Session not found"), true],
      [400, body(-32000, "Bad Request: No valid session ID provided"), true],
      [400, body(-32000, "Bad Request: Server not initialized"), true],
      [400, "Bad Request", false],
      [400, "", false],
      [400, "<html>bad request</html>", false],
      [400, body(-32602, "Invalid params: name is required"), false],
      [400, body(-32602, "Invalid params: sessionId is required"), false],
      [
        400,
        JSON.stringify({
          jsonrpc: "2.0",
          error: { code: -32602, message: "Invalid params", data: "x".repeat(8000) },
          id: 1
        }),
        false
      ],
      [400, body(-32001, "Session not found"), true],
      [400, body(-32600, "Invalid Request"), false],
      [409, body(-32000, "Bad Request: Server not initialized"), true],
      [409, body(-32603, "session store unavailable"), false],
      [422, "Unprocessable", false],
      [405, "", false]
    ]
    for (const [status, text, lost] of cases) {
      expect([status, text, lostSession(status, text) !== undefined]).toStrictEqual([status, text, lost])
    }
    expect(lostSession(400, body(-32000, "Bad Request: Server not initialized"))).toStrictEqual({
      detail: "Bad Request: Server not initialized"
    })
  })
})
