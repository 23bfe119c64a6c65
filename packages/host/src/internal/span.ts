/**
 * The host's spans, made only when someone traces (a parent span, or a tracer other than Effect's
 * default). Otherwise a span is work for nobody, and worse: under it the client's requests would
 * carry a `traceparent` to every server, on every call. A caller's own span (`Effect.fn`,
 * `withSpan`) counts as tracing: the host's span is then its child, as it should be.
 */
import * as Effect from "effect/Effect"
import type * as Tracer from "effect/Tracer"

const nativeTracer = Effect.runSync(Effect.tracer)

/** `Effect.withSpan(name, options)` when the fiber is traced; the effect as it is otherwise. */
export const traced =
  (name: string, options: Tracer.SpanOptions) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.withFiberRuntime((fiber) =>
      fiber.currentSpan !== undefined || fiber.currentTracer !== nativeTracer
        ? Effect.withSpan(effect, name, options)
        : effect
    )
