/**
 * Retries by what is safe to repeat. A failed request is retried only when its failure is
 * transient (a 429, 502, 503 or 504, a connection that could not be made or was reset, the
 * server's internal error `-32603`, a time-out) and repeating the request is safe: reads (the list methods,
 * `resources/read`, `prompts/get`, `completion/complete`, `ping`) always are; a `tools/call`
 * only when the tool says `readOnlyHint` or `idempotentHint`, or the caller says it is
 * idempotent, unless the failure shows the server never took the request (429, 503, a refused
 * connection). Delays grow exponentially with jitter, a server's `Retry-After` wins (capped),
 * and the attempts and total time are bounded. Off unless configured.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import type { RequestError } from "./McpError.js"

/**
 * How a kind of request is retried.
 *
 * @since 0.1.0
 * @category options
 */
export interface RetryPolicy {
  /** Attempts after the first. */
  readonly times: number
  /** The first delay, doubled at each attempt (with ±25% jitter). Default: 200 ms. */
  readonly base?: Duration.DurationInput
  /** The longest delay, also the cap on a server's `Retry-After`. Default: 10 seconds. */
  readonly maxDelay?: Duration.DurationInput
  /** No retry starts after this much time since the first attempt. Default: 30 seconds. */
  readonly budget?: Duration.DurationInput
}

/**
 * The client's retries: reads and tool calls separately.
 *
 * @example
 * ```ts
 * import { McpClient } from "@effect-mcp/client"
 *
 * // Reads are retried up to 3 more times; tool calls that may be repeated (the tool says
 * // `readOnlyHint` or `idempotentHint`, or the call says `idempotent`) up to twice, more slowly
 * const ClientLive = McpClient.layer({
 *   name: "everything",
 *   retry: {
 *     reads: { times: 3 },
 *     tools: { times: 2, base: "500 millis", maxDelay: "5 seconds", budget: "20 seconds" }
 *   }
 * })
 *
 * // Per call: `client.callTool(name, args, { retry: false })`, or `{ idempotent: true }`
 * ```
 *
 * @since 0.1.0
 * @category options
 */
export interface RetrySettings {
  /** Lists, reads, prompts, completion, ping. Default: none. */
  readonly reads?: RetryPolicy | false
  /** `tools/call`, for tools that may be repeated. Default: none. */
  readonly tools?: RetryPolicy | false
}

/**
 * Why a failure may be retried; `taken: false` when the server certainly did not take the request.
 *
 * @since 0.1.0
 * @category models
 */
export interface Transient {
  readonly reason: string
  readonly taken: boolean
  /** The server's `Retry-After`, in milliseconds. */
  readonly retryAfter?: number
}

const NOT_TAKEN_STATUS = new Set([429, 503])
const TRANSIENT_STATUS = new Set([429, 502, 503, 504])
const REFUSED = /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH/
// A connection reset under the request: often a keep-alive race (the server closed an idle
// socket as the request went out), but the server may have read the request first.
const RESET = /ECONNRESET|socket hang up|EPIPE|other side closed/

/**
 * Whether a failure is transient, and whether the request may have reached the server.
 *
 * @since 0.1.0
 * @category classification
 */
export const transient = (error: RequestError): Transient | undefined => {
  switch (error._tag) {
    case "TransportError": {
      if (error.status !== undefined) {
        if (!TRANSIENT_STATUS.has(error.status)) return undefined
        return {
          reason: `HTTP ${error.status}`,
          taken: !NOT_TAKEN_STATUS.has(error.status),
          ...(error.retryAfter === undefined ? {} : { retryAfter: error.retryAfter })
        }
      }
      // A connection that could not be made: nothing was sent.
      const refused = REFUSED.exec(error.reason)
      if (refused !== null) return { reason: refused[0], taken: false }
      const reset = RESET.exec(error.reason)
      return reset === null ? undefined : { reason: `connection reset (${reset[0]})`, taken: true }
    }
    case "RpcError":
      return error.code === -32603 ? { reason: "internal error (-32603)", taken: true } : undefined
    case "RequestTimeout":
      return { reason: "no answer in time", taken: true }
    default:
      return undefined
  }
}

/** The methods that only read: always safe to repeat. */
const READS = new Set([
  "tools/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "prompts/list",
  "prompts/get",
  "completion/complete",
  "ping",
  "tasks/get",
  "tasks/list",
  "server/discover"
])

/**
 * Whether a method only reads.
 *
 * @since 0.1.0
 * @category guards
 */
export const isRead = (method: string): boolean => READS.has(method)

/**
 * The delay before retry `attempt` (1 for the first retry), or `undefined` when no retry may
 * start: the attempts are used up, or the delay would end past the budget. `random` is in [0, 1).
 *
 * @since 0.1.0
 * @category scheduling
 */
export const delayOf = (
  policy: RetryPolicy,
  attempt: number,
  elapsedMillis: number,
  failure: Transient,
  random: number
): Duration.Duration | undefined => {
  if (attempt > policy.times) return undefined
  const base = Duration.toMillis(Duration.decode(policy.base ?? "200 millis"))
  const max = Duration.toMillis(Duration.decode(policy.maxDelay ?? "10 seconds"))
  const budget = Duration.toMillis(Duration.decode(policy.budget ?? "30 seconds"))
  const backoff = base * 2 ** (attempt - 1) * (0.75 + random * 0.5)
  const millis = Math.min(max, failure.retryAfter ?? backoff)
  return elapsedMillis + millis > budget ? undefined : Duration.millis(Math.round(millis))
}

/**
 * A `Retry-After` header as milliseconds from `now`: seconds, or an HTTP date; `undefined`
 * when absent or unreadable.
 *
 * @example
 * ```ts
 * import { Retry } from "@effect-mcp/client"
 *
 * const now = Date.parse("2026-01-01T00:00:00Z")
 * const read = [
 *   Retry.parseRetryAfter("120", now), // 120_000: seconds
 *   Retry.parseRetryAfter("Thu, 01 Jan 2026 00:00:30 GMT", now), // 30_000: a date
 *   Retry.parseRetryAfter("soon", now) // undefined: unreadable
 * ]
 * if (read.join() !== "120000,30000,") throw new Error(`read ${read.join()}`)
 * ```
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseRetryAfter = (header: string | undefined, now: number): number | undefined => {
  if (header === undefined) return undefined
  const text = header.trim()
  if (/^\d+$/.test(text)) return Number(text) * 1000
  const at = Date.parse(text)
  return Number.isNaN(at) ? undefined : Math.max(0, at - now)
}
