/**
 * A value loaded at its first use: once, shared by concurrent first uses, tried again after a
 * failed load; and a part of a client built at its first use, once for concurrent first uses (a
 * build that yielded before it ended used to run once per first use, the first result kept).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as OnFirstUse from "../src/internal/onFirstUse.js"

describe("OnFirstUse", () => {
  it.effect("loads once for concurrent first uses; once loaded, use(f) is f's own effect", () =>
    Effect.gen(function* () {
      let loads = 0
      const value = OnFirstUse.make(async () => {
        loads++
        return 21
      })
      const doubled = yield* Effect.all(
        Array.from({ length: 5 }, () => value.use((n) => Effect.succeed(n * 2))),
        { concurrency: "unbounded" }
      )
      expect(doubled).toStrictEqual([42, 42, 42, 42, 42])
      expect(loads).toBe(1)
      const own = Effect.succeed("own")
      expect(value.use(() => own)).toBe(own)
    })
  )

  it.effect("a failed load is a defect, and the next use loads again", () =>
    Effect.gen(function* () {
      let loads = 0
      const value = OnFirstUse.make(async () => {
        loads++
        if (loads === 1) throw new Error("cannot import")
        return "loaded"
      })
      const first = yield* Effect.exit(value.use(Effect.succeed))
      expect(Exit.isFailure(first) && !Exit.isInterrupted(first)).toBe(true)
      expect(yield* value.use(Effect.succeed)).toBe("loaded")
      expect(loads).toBe(2)
    })
  )
})

describe("OnFirstUse.part", () => {
  it.scoped("concurrent first uses wait on one build, and later uses get the same value", () =>
    Effect.gen(function* () {
      let builds = 0
      const part = OnFirstUse.part(
        () =>
          Effect.suspend(() => {
            builds++
            return Effect.as(Effect.yieldNow(), { build: builds })
          }),
        yield* Effect.scope
      )
      expect(part.now()).toBeUndefined()
      const values = yield* Effect.all([part.get, part.get, part.get], { concurrency: "unbounded" })
      expect(builds).toBe(1)
      expect(values.every((value) => value === values[0])).toBe(true)
      expect(yield* part.get).toBe(values[0])
      expect(part.now()).toBe(values[0])
    })
  )
})
