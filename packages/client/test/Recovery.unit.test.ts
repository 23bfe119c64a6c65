/**
 * Recovery of an expired session, as an executor combinator: a session whose re-initialization
 * failed (so it is `Failed`) is never initialized again by a request that met the expired session
 * later.
 */
import { describe, expect, it } from "@effect/vitest"
import { McpError } from "@effect-mcp/client"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Recovery from "../src/internal/session/recovery.js"
import type { Prepared } from "../src/internal/session/types.js"
import { lostSession } from "../src/internal/transport/streamable/answers.js"

const request: Prepared = { method: "ping", encoded: undefined, wire: undefined, version: "2025-11-25", options: {} }

describe("Recovery", () => {
  it.scoped("a request that meets an expired session after a failed re-initialization fails, and starts none", () =>
    Effect.gen(function* () {
      let alive = true
      let reinitializations = 0
      const recovering = Recovery.make({
        retries: 1,
        reinitialization: Effect.suspend(() => {
          reinitializations++
          alive = false // the session moves to Failed when it cannot be established again
          return Effect.fail(new McpError.SessionUnavailable({ server: "s", reason: "initialize failed" }))
        }),
        restore: Effect.void,
        refresh: Either.right,
        alive: () => alive,
        scope: yield* Effect.scope,
        runtime: yield* Effect.runtime<never>()
      })
      const expired = recovering(() => Effect.fail(new McpError.SessionExpired({ server: "s" })))
      const first = yield* Effect.flip(expired(request))
      expect(first._tag).toBe("SessionUnavailable")
      // A request of the same generation whose SessionExpired came after the session failed.
      const late = yield* Effect.flip(expired(request))
      expect(late._tag).toBe("SessionExpired")
      expect(reinitializations).toBe(1)
    })
  )
})

describe("lostSession (a 4xx to a request that carried a session id)", () => {
  const body = (code: number, message: string) => JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null })
  it("404 always; 400 unless its JSON-RPC error is about something else; other 4xx only with a -32000 about the session", () => {
    const cases: ReadonlyArray<readonly [number, string, boolean]> = [
      [404, "", true],
      [404, body(-32001, "Session not found"), true],
      [400, body(-32000, "Bad Request: No valid session ID provided"), true],
      [400, body(-32000, "Bad Request: Server not initialized"), true],
      [400, "Bad Request", true],
      [400, "", true],
      [400, "<html>bad request</html>", true],
      [400, body(-32602, "Invalid params: name is required"), false],
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
