/**
 * An `HttpClient` that authorizes: it adds the session's `Authorization` header to requests
 * for the server's origin (never elsewhere), and on a 401 or a 403 `insufficient_scope` runs
 * the OAuth flow and sends the request again, at most `maxAttempts` times per request. A
 * failed authorization surfaces as the request's error (an `HttpClientError` whose cause is the
 * `AuthorizationError`), so the transports report it like any other failure of the request.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { OAuthSession } from "./OAuth.js"

/** `raw` with authorization by `session`. */
export const authorize = (raw: HttpClient.HttpClient, session: OAuthSession): HttpClient.HttpClient => {
  const attempt = (
    request: HttpClientRequest.HttpClientRequest,
    n: number
  ): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError> =>
    Effect.gen(function* () {
      const header = Option.getOrUndefined(yield* session.authorization(request.url))
      const response = yield* raw.execute(
        header === undefined ? request : HttpClientRequest.setHeader(request, "authorization", header)
      )
      if ((response.status !== 401 && response.status !== 403) || n > session.maxAttempts) return response
      const retry = yield* session.challenged(response.status, response.headers["www-authenticate"], header).pipe(
        Effect.mapError(
          (error) =>
            new HttpClientError.RequestError({
              request,
              reason: "Transport",
              cause: error,
              description: error.message
            })
        )
      )
      return retry ? yield* attempt(request, n + 1) : response
    })
  return HttpClient.transform(raw, (_unauthorized, request) => attempt(request, 1))
}
