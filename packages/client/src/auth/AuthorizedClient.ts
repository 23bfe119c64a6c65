/**
 * An `HttpClient` that authorizes: it adds the session's `Authorization` header (and a DPoP
 * proof for sender-constrained tokens) to requests for the server's origin (never elsewhere),
 * and on a 401 or a 403 `insufficient_scope` runs the OAuth flow (or takes the server's DPoP
 * nonce) and sends the request again, at most `maxAttempts` times per request. A
 * failed authorization surfaces as the request's error (an `HttpClientError` whose cause is the
 * `AuthorizationError`), so the transports report it like any other failure of the request.
 *
 * Until there is something to add, requests go out as they are: once the session had no
 * credentials for a URL (no token in use, none in the store), that URL's requests skip asking
 * it again until a server refuses one.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Gate } from "../internal/transport/fastRoute.js"
import type { Credentials, OAuthSession } from "./OAuthSession.js"

/** The authorizing client, and what it knows about requests that would go around it. */
export interface Authorizing extends Gate {
  readonly client: HttpClient.HttpClient
}

/**
 * `raw` with authorization by `session`, and its {@link Gate}. `bare`: the session has nothing
 * to add to any request before a refusal (no token can be stored), so none asks it.
 */
export const make = (
  raw: HttpClient.HttpClient,
  session: OAuthSession,
  options: { readonly bare?: boolean } = {}
): Authorizing => {
  // URLs the session had no credentials for (or all of them); cleared for good by the first refusal.
  const bareUrls = new Set<string>()
  let bareAll = options.bare === true
  let refusedOnce = false
  const refused = () => {
    refusedOnce = true
    bareAll = false
    bareUrls.clear()
  }
  const bare = (url: string) => bareAll || bareUrls.has(url)

  const send = (
    request: HttpClientRequest.HttpClientRequest,
    credentials: Credentials | undefined,
    n: number
  ): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError> =>
    Effect.flatMap(
      raw.execute(credentials === undefined ? request : HttpClientRequest.setHeaders(request, credentials.headers)),
      (response) =>
        (response.status !== 401 && response.status !== 403) || n > session.maxAttempts
          ? Effect.succeed(response)
          : challenge(request, response, credentials, n)
    )

  const challenge = (
    request: HttpClientRequest.HttpClientRequest,
    response: HttpClientResponse.HttpClientResponse,
    credentials: Credentials | undefined,
    n: number
  ) => {
    refused()
    const refusal = {
      status: response.status,
      wwwAuthenticate: response.headers["www-authenticate"],
      dpopNonce: response.headers["dpop-nonce"]
    }
    return session.challenged(refusal, credentials?.accessToken).pipe(
      Effect.mapError(
        (error) =>
          new HttpClientError.RequestError({
            request,
            reason: "Transport",
            cause: error,
            description: error.message
          })
      ),
      Effect.flatMap((retry) => (retry ? attempt(request, n + 1) : Effect.succeed(response)))
    )
  }

  const attempt = (
    request: HttpClientRequest.HttpClientRequest,
    n: number
  ): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError> =>
    bare(request.url)
      ? send(request, undefined, n)
      : Effect.flatMap(session.credentials(request.method, request.url), (found) => {
          if (Option.isNone(found) && !refusedOnce) bareUrls.add(request.url)
          return send(request, Option.getOrUndefined(found), n)
        })

  return {
    client: HttpClient.transform(raw, (_unauthorized, request) => attempt(request, 1)),
    bare,
    refused
  }
}

/** `raw` with authorization by `session`. */
export const authorize = (raw: HttpClient.HttpClient, session: OAuthSession): HttpClient.HttpClient =>
  make(raw, session).client
