/**
 * The one request path. The steps above the executor are plain and total: the session's
 * `prepare` (ready? declared? encoded for the revision) makes a {@link Prepared} request, and a
 * decode step turns the raw result into a typed one. Between them, one {@link Executor} sends the
 * request; what wraps it (recovery of an expired session, the in-flight bound, retries) are
 * combinators over executors, composed once when the session is built, in the way `HttpClient`
 * composes behaviour around its one `execute`.
 */

import type * as Peer from "@effect-mcp/jsonrpc/Peer"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Random from "effect/Random"
import type { RequestError } from "../../McpError.js"
import * as Retry from "../../Retry.js"
import type { Limiter } from "./limiter.js"
import type { Executor, RequestOptions } from "./types.js"

/** The executor with at most `limiter`'s bound of requests in flight (the executor itself when unbounded). */
export const limited =
  (limiter: Limiter | undefined) =>
  <E>(executor: Executor<E>): Executor<E | RequestError> =>
    limiter === undefined ? executor : (request) => limiter.run(request.method, executor(request))

/** Which retry policy a request has: its own, over the client's for its kind (reads, tools); none when `false`. */
export const policyOf =
  (settings: Retry.RetrySettings | undefined) =>
  (method: string, options: RequestOptions | undefined): Retry.RetryPolicy | undefined => {
    const given = options?.retry
    if (given === false) return undefined
    const policy =
      given ?? (method === "tools/call" ? settings?.tools : Retry.isRead(method) ? settings?.reads : undefined)
    return policy === undefined || policy === false || policy.times <= 0 ? undefined : policy
  }

/**
 * The executor, run again while a failure is transient, repeating is safe and the request's policy
 * allows: a tool call that may have reached the server is repeated only when idempotent. Each retry
 * is logged (attempt, reason, delay) and is an event of the current span. A request with no policy
 * goes straight to the executor.
 */
export const retrying =
  (server: () => string, policy: ReturnType<typeof policyOf>) =>
  (executor: Executor<RequestError>): Executor<RequestError> =>
  (request) => {
    const { method, options } = request
    const chosen = policy(method, options)
    if (chosen === undefined) return executor(request)
    const safe = method !== "tools/call" || options.idempotent === true
    return Effect.flatMap(Clock.currentTimeMillis, (started) => {
      const run = (n: number): Effect.Effect<Peer.WireObject, RequestError> =>
        Effect.catchAll(executor(request), (error) => {
          const failure = Retry.transient(error)
          if (failure === undefined) return Effect.fail(error)
          if (failure.taken && !safe) {
            return Effect.zipRight(
              Effect.logWarning(
                `${server()}: ${method} failed (${failure.reason}) and is not retried: it may have run on the server, and the tool is not marked read-only or idempotent`
              ),
              Effect.fail(error)
            )
          }
          return Effect.flatMap(Effect.zip(Clock.currentTimeMillis, Random.next), ([now, random]) => {
            const delay = Retry.delayOf(chosen, n, now - started, failure, random)
            if (delay === undefined) return Effect.fail(error)
            const attributes = { attempt: n, reason: failure.reason, delayMillis: Duration.toMillis(delay) }
            return Effect.logInfo(
              `${server()}: ${method} failed (${failure.reason}); retry ${n} of ${chosen.times} in ${Duration.format(delay)}`
            ).pipe(
              Effect.zipRight(
                Effect.flatMap(Effect.option(Effect.currentSpan), (span) =>
                  Effect.sync(() => {
                    if (span._tag === "Some") span.value.event("mcp.retry", BigInt(now) * 1_000_000n, attributes)
                  })
                )
              ),
              Effect.zipRight(Effect.sleep(delay)),
              Effect.zipRight(run(n + 1))
            )
          })
        })
      return run(1)
    })
  }
