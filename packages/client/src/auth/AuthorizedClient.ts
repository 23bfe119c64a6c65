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
import type { Gate } from "../internal/transport/route.js"
import type { Credentials, OAuthSession, Refusal } from "./OAuthSession.js"

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
  // A refusal met by a request that went around (the fast route), not yet taken to the flow.
  let handed: Refusal | undefined
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
    return Effect.flatMap(authorizeAfter(request, refusal, credentials?.accessToken), (retry) =>
      retry ? attempt(request, n + 1) : Effect.succeed(response)
    )
  }

  /** The flow's answer to a refusal: whether to send the request again (its failure is the request's). */
  const authorizeAfter = (request: HttpClientRequest.HttpClientRequest, refusal: Refusal, sent: string | undefined) =>
    Effect.mapError(
      session.challenged(refusal, sent),
      (error) =>
        new HttpClientError.RequestError({
          request,
          reason: "Transport",
          cause: error,
          description: error.message
        })
    )

  // A refusal the route handed over is answered first: the request that follows it goes out
  // authorized, not bare again. When the flow declines, it goes as it is (its refusal is its answer).
  const attempt = (
    request: HttpClientRequest.HttpClientRequest,
    n: number
  ): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError> => {
    const refusal = handed
    if (refusal !== undefined) {
      handed = undefined
      return Effect.flatMap(authorizeAfter(request, refusal, undefined), (retry) =>
        retry ? attempt(request, n + 1) : send(request, undefined, session.maxAttempts + 1)
      )
    }
    return bare(request.url)
      ? send(request, undefined, n)
      : Effect.flatMap(session.credentials(request.method, request.url), (found) => {
          if (Option.isNone(found) && !refusedOnce) bareUrls.add(request.url)
          return send(request, Option.getOrUndefined(found), n)
        })
  }

  return {
    client: HttpClient.transform(raw, (_unauthorized, request) => attempt(request, 1)),
    bare,
    refused: (refusal) => {
      refused()
      handed = refusal
    }
  }
}

/** `raw` with authorization by `session`. */
export const authorize = (raw: HttpClient.HttpClient, session: OAuthSession): HttpClient.HttpClient =>
  make(raw, session).client
