/**
 * What the authorized HTTP client asks of an OAuth session (`OAuth.make`): the headers for a
 * request, and what to do when the server refuses one.
 */
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { AuthorizationError } from "./AuthError.js"

/** The headers that authorize one request, and the access token they carry. */
export interface Credentials {
  readonly accessToken: string
  /** `Authorization` (`Bearer` or `DPoP`), and a `DPoP` proof for sender-constrained tokens. */
  readonly headers: Record<string, string>
}

/** What the server said when it refused a request. */
export interface Refusal {
  readonly status: number
  readonly wwwAuthenticate: string | undefined
  /** A `DPoP-Nonce` the server wants in the next proof. */
  readonly dpopNonce: string | undefined
}

/** What the authorized HTTP client asks of the flow. */
export interface OAuthSession {
  /** The headers for a request (method and URL), if there is a token for it (refreshed first when expired). */
  readonly credentials: (method: string, url: string) => Effect.Effect<Option.Option<Credentials>>
  /**
   * The server refused (401 or 403) a request sent with the access token `sent` (or without
   * one): authorizes, refreshes or takes the server's DPoP nonce, and says whether to retry;
   * fails when authorization fails.
   */
  readonly challenged: (refusal: Refusal, sent: string | undefined) => Effect.Effect<boolean, AuthorizationError>
  /** The most attempts one request may take. */
  readonly maxAttempts: number
}
