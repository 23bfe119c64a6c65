/**
 * A request sent on a kept-alive connection the server had already closed: it reaches no one,
 * and the connection is reset before any answer. This is the one failure an HTTP request is sent
 * again for by the transports themselves, once.
 *
 * Invariant: a request is sent again only when (1) no answer to it began (no status line: the
 * platform failed it with a `RequestError`, or a route before its `response`), (2) the connection
 * was reset (`ECONNRESET`, or `EPIPE` on a write), and (3) the platform's client marked that the
 * connection was one reused from its pool. A reset alone proves nothing: a server may read a
 * request and then die under it, and a JSON-RPC request it read must not be repeated (its id
 * "MUST NOT have been previously used" in the session, and a tool may have acted), so a reset of
 * a new connection is the request's failure (the retry policies may repeat what is safe). A
 * reused connection reset before any byte of answer is, by far, the server's idle timeout meeting
 * the request, as browsers reason when they send such a request again.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as Effect from "effect/Effect"

/** Errors raised by requests on a connection reused from a pool (marked by the platform's client). */
const onReused = new WeakSet<object>()

/** Something that emits its failure as an `error` event, as Node's `ClientRequest` does. */
export interface ErrorEmitter {
  readonly once: (event: "error", listener: (cause: unknown) => void) => unknown
}

/**
 * For a platform's HTTP client, when it hands `request` a connection from its pool: the error the
 * request may raise is known to come from a reused connection.
 */
export const markReusedConnection = (request: ErrorEmitter): void => {
  request.once("error", (cause) => {
    if (typeof cause === "object" && cause !== null) onReused.add(cause)
  })
}

/** A connection reset, or a write on a connection the server closed. */
export const isReset = (cause: unknown): boolean =>
  typeof cause === "object" &&
  cause !== null &&
  "code" in cause &&
  (cause.code === "ECONNRESET" || cause.code === "EPIPE")

/** A reset of a connection reused from the pool (the error of a request that got no answer). */
export const resetOnReusedConnection = (cause: unknown): boolean =>
  isReset(cause) && typeof cause === "object" && cause !== null && onReused.has(cause)

/**
 * `client`, sending a request once more when it failed before any answer because its reused
 * connection was reset (see the invariant above). A failure after the answer began (a body that
 * broke off is a `ResponseError` or a failed stream, never a `RequestError`) is not repeated, and
 * the second attempt's failure is the request's.
 */
export const resendUnanswered = (client: HttpClient.HttpClient): HttpClient.HttpClient =>
  HttpClient.transform(client, (effect) =>
    Effect.catchIf(
      effect,
      (error) => error._tag === "RequestError" && error.reason === "Transport" && resetOnReusedConnection(error.cause),
      () => effect
    )
  )
