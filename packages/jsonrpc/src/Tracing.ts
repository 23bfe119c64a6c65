/**
 * Whether anyone traces: the one check every package makes before it spends a span.
 *
 * A fiber is traced when it runs under a span (a caller's `Effect.fn` or `withSpan`) or with a
 * tracer other than Effect's default (an exporter was provided). Otherwise a span is work for
 * nobody, and under it requests would carry a `traceparent` to every server on every call.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import type * as Tracer from "effect/Tracer"

/** Effect's default tracer, as every fiber has it unless a tracer is provided. */
const nativeTracer = Effect.runSync(Effect.tracer)

/**
 * Whether `tracer` is Effect's default one (with it, spans are made for nobody).
 *
 * @since 0.1.0
 * @category predicates
 */
export const isNative = (tracer: Tracer.Tracer): boolean => tracer === nativeTracer

/**
 * Whether `fiber` is traced: it has a parent span, or a tracer other than Effect's default.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isTraced = (fiber: Fiber.RuntimeFiber<unknown, unknown>): boolean =>
  fiber.currentSpan !== undefined || fiber.currentTracer !== nativeTracer

/**
 * `Effect.withSpan(name, options)` when the running fiber is traced; the effect as it is otherwise.
 *
 * @since 0.1.0
 * @category combinators
 */
export const spanWhenTraced =
  (name: string, options?: Tracer.SpanOptions) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.withFiberRuntime((fiber) => (isTraced(fiber) ? Effect.withSpan(effect, name, options) : effect))

/**
 * `effect` with its tracing turned off when the running fiber is not traced (an `HttpClient`, say,
 * then makes no span of its own and sends no trace headers).
 *
 * @since 0.1.0
 * @category combinators
 */
export const onlyWhenTraced = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.withFiberRuntime((fiber) => (isTraced(fiber) ? effect : Effect.withTracerEnabled(effect, false)))
