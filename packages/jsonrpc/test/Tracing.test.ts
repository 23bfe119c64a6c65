/** Whether anyone traces: a parent span or a provided tracer; spans made only then. */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Tracer from "effect/Tracer"
import * as Tracing from "../src/Tracing.js"

const tracedNow = Effect.withFiberRuntime((fiber) => Effect.succeed(Tracing.isTraced(fiber)))

/** A tracer that records the names of the spans it makes (over Effect's own spans). */
const recording = Effect.map(Effect.tracer, (native) => {
  const names: Array<string> = []
  const tracer = Tracer.make({
    span: (name, ...rest) => {
      names.push(name)
      return native.span(name, ...rest)
    },
    context: native.context
  })
  return { names, tracer }
})

const parentSpanName = Effect.map(
  Effect.option(Effect.currentSpan),
  Option.map((span) => span.name)
)

describe("Tracing", () => {
  it.effect("nobody traces a plain fiber; a parent span or a provided tracer does", () =>
    Effect.gen(function* () {
      const { tracer } = yield* recording
      expect(yield* tracedNow).toBe(false)
      expect(Tracing.isNative(yield* Effect.tracer)).toBe(true)
      expect(yield* Effect.withSpan(tracedNow, "parent")).toBe(true)
      expect(yield* Effect.withTracer(tracedNow, tracer)).toBe(true)
      expect(Tracing.isNative(tracer)).toBe(false)
    })
  )

  it.effect("spanWhenTraced makes its span only when someone traces", () =>
    Effect.gen(function* () {
      const { names, tracer } = yield* recording
      const named = Tracing.spanWhenTraced("child")(parentSpanName)
      expect(yield* named).toEqual(Option.none())
      expect(yield* Effect.withTracer(named, tracer)).toEqual(Option.some("child"))
      expect(names).toEqual(["child"])
      expect(yield* Effect.withSpan(named, "parent")).toEqual(Option.some("child"))
    })
  )

  it.effect("onlyWhenTraced turns tracing off for a fiber nobody traces, and leaves it on otherwise", () =>
    Effect.gen(function* () {
      const { names, tracer } = yield* recording
      const spanned = Effect.withSpan(Effect.void, "inner")
      // Decided where it runs: nobody traces there, so a tracer given inside makes no span.
      yield* Tracing.onlyWhenTraced(Effect.withTracer(spanned, tracer))
      expect(names).toEqual([])
      yield* Effect.withTracer(Tracing.onlyWhenTraced(spanned), tracer)
      expect(names).toEqual(["inner"])
    })
  )
})
