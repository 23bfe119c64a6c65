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
