/**
 * An `HttpClient` that authorizes: it adds the session's `Authorization` header (and a DPoP
 * proof for sender-constrained tokens) to requests for the server's origin (never elsewhere),
 * and on a 401 or a 403 `insufficient_scope` runs the OAuth flow (or takes the server's DPoP
 * nonce) and sends the request again, at most `maxAttempts` times per request. A
 * failed authorization surfaces as the request's error (an `HttpClientError` whose cause is the
 * `AuthorizationError`), so the transports report it like any other failure of the request.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { OAuthSession } from "./OAuthSession.js"

/** `raw` with authorization by `session`. */
export const authorize = (raw: HttpClient.HttpClient, session: OAuthSession): HttpClient.HttpClient => {
  const attempt = (
    request: HttpClientRequest.HttpClientRequest,
    n: number
  ): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError> =>
    Effect.gen(function* () {
      const credentials = Option.getOrUndefined(yield* session.credentials(request.method, request.url))
      const response = yield* raw.execute(
        credentials === undefined ? request : HttpClientRequest.setHeaders(request, credentials.headers)
      )
      if ((response.status !== 401 && response.status !== 403) || n > session.maxAttempts) return response
      const refusal = {
        status: response.status,
        wwwAuthenticate: response.headers["www-authenticate"],
        dpopNonce: response.headers["dpop-nonce"]
      }
      const retry = yield* session.challenged(refusal, credentials?.accessToken).pipe(
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
