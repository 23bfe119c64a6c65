/** The leak check used after transport tests must itself catch a leak. */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { noFibersLeft } from "./support/fibers.js"

describe("noFibersLeft", () => {
  it.live("passes when forked work has ended and fails when a fiber is left running", () =>
    Effect.gen(function* () {
      yield* noFibersLeft(Effect.scoped(Effect.forkScoped(Effect.never)))
      // A fiber that never ends fails the check whatever the wait; a short one keeps this test short.
      const leaked = yield* Effect.exit(noFibersLeft(Effect.fork(Effect.never), "200 millis"))
      expect(Exit.isFailure(leaked)).toBe(true)
    })
  )
})
