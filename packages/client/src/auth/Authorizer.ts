/**
 * The interactive step of the authorization code flow, as a service: a session gives the
 * redirect URI to register and send, then takes the authorization URL and returns the
 * parameters of the redirect back (`code`, `state`, `iss`, or `error`). A terminal shows the
 * URL and listens on a loopback port (the CLI's implementation); tests and the conformance
 * client follow the authorization server's redirect programmatically ({@link followRedirect}).
 *
 * @since 0.1.0
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import { AuthorizationError } from "./AuthError.js"

/**
 * One authorization in progress.
 *
 * @since 0.1.0
 * @category models
 */
export interface AuthorizationSession {
  /** Where the authorization server sends the user back. */
  readonly redirectUri: string
  /**
   * Lets the user authorize at `url`; the query parameters of the redirect back. With
   * `codeAlone`, a code given without the redirect (a user pasting what the page shows) may be
   * taken as this authorization's: the flow says so only when PKCE binds it (see
   * {@link CompleteOptions}).
   */
  readonly complete: (url: string, options?: CompleteOptions) => Effect.Effect<URLSearchParams, AuthorizationError>
}

/**
 * What the flow tells an authorization session.
 *
 * @since 0.1.0
 * @category models
 */
export interface CompleteOptions {
  /**
   * A code alone (no `state`) may stand for this authorization: the authorization server published
   * metadata that lists PKCE S256 (the token endpoint then refuses a code issued for another
   * challenge) and does not promise an `iss` in its redirects (RFC 9207).
   */
  readonly codeAlone?: boolean
}

/**
 * Starts authorization sessions (one per flow; the scope ends it, closing any listener).
 *
 * @since 0.1.0
 * @category services
 */
export class Authorizer extends Context.Tag("@effect-mcp/client/Authorizer")<
  Authorizer,
  {
    readonly begin: (server: string) => Effect.Effect<AuthorizationSession, AuthorizationError, Scope.Scope>
  }
>() {}

/**
 * The redirect URI used when following redirects programmatically (never listened on).
 *
 * @since 0.1.0
 * @category constants
 */
export const PROGRAMMATIC_REDIRECT = "http://127.0.0.1:33418/callback"

/**
 * Requests the authorization URL without following redirects and reads the parameters from
 * the `Location` of the redirect: for tests and for the conformance suite, whose
 * authorization servers approve at once.
 *
 * @since 0.1.0
 * @category layers
 */
export const followRedirect = (
  redirectUri = PROGRAMMATIC_REDIRECT
): Layer.Layer<Authorizer, never, HttpClient.HttpClient> =>
  Layer.effect(
    Authorizer,
    Effect.map(HttpClient.HttpClient, (client) =>
      Authorizer.of({
        begin: (server) =>
          Effect.succeed({
            redirectUri,
            complete: (url) =>
              Effect.scoped(
                Effect.gen(function* () {
                  const failed = (reason: string, cause?: unknown) =>
                    new AuthorizationError({ server, step: "authorization", reason, cause })
                  const response = yield* client
                    .execute(HttpClientRequest.get(url))
                    .pipe(Effect.mapError((cause) => failed("the authorization endpoint could not be reached", cause)))
                  const location = response.headers.location
                  if (response.status < 300 || response.status >= 400 || location === undefined)
                    return yield* failed(`the authorization endpoint answered ${response.status} without a redirect`)
                  const back = new URL(location, url)
                  if (
                    `${back.origin}${back.pathname}` !==
                    `${new URL(redirectUri).origin}${new URL(redirectUri).pathname}`
                  )
                    return yield* failed("the authorization server redirected somewhere other than the redirect URI")
                  return back.searchParams
                })
              )
          })
      })
    )
  )

/**
 * An authorizer that refuses: for clients that must never start an interactive flow.
 *
 * @since 0.1.0
 * @category layers
 */
export const refuse: Layer.Layer<Authorizer> = Layer.succeed(
  Authorizer,
  Authorizer.of({
    begin: (server) =>
      new AuthorizationError({
        server,
        step: "authorization",
        reason: "the server requires the user to authorize, and no interactive authorizer is configured"
      })
  })
)
