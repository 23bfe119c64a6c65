/**
 * OAuth 2.1 authorization for the HTTP transports, as the MCP specification (2025-11-25)
 * requires, and compatible with servers built to 2025-06-18 and 2025-03-26.
 *
 * A 401 starts the flow: protected resource metadata (RFC 9728) from the challenge's
 * `resource_metadata`, else the well-known URLs (path-specific, then root); its `resource`
 * must cover the server's URL; authorization server metadata (RFC 8414 / OpenID Connect) at
 * the issuer's well-known URLs in the specification's order, its `issuer` checked. Without
 * protected resource metadata (2025-03-26 servers) the server's origin is the authorization
 * server, with the default endpoints when it has no metadata either.
 *
 * The client is identified by pre-registered credentials, else a Client ID Metadata Document
 * URL when the server supports them, else Dynamic Client Registration. PKCE S256 always (a
 * server whose metadata does not list it is refused), a `state` checked on return, the
 * `iss` of the response checked (RFC 9207), `resource` (RFC 8707) on every authorization and
 * token request. Scopes come from the challenge, else `scopes_supported`, else are omitted;
 * `offline_access` is added when the authorization server offers it. A 403
 * `insufficient_scope` asks again for the union of the scopes so far and the challenged ones.
 * Refresh tokens are used before asking the user again. Machine clients use the client
 * credentials grant (a secret, or a private-key JWT assertion).
 *
 * Tokens are stored per issuer and resource in the `TokenStore` service (memory by default),
 * and sent only to the server's origin. The interactive step is the `Authorizer` service.
 *
 * @since 0.1.0
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Effect from "effect/Effect"
import * as SynchronizedRef from "effect/SynchronizedRef"
import * as Context from "./internal/context.js"
import * as Session from "./internal/credentials.js"
import { initial } from "./internal/state.js"
import type { OAuthOptions } from "./OAuthOptions.js"
import type { OAuthSession } from "./OAuthSession.js"

export type {
  /**
   * A token or assertion the host obtains (a workload identity JWT, an enterprise ID token), fresh
   * for each use; an effect that cannot obtain it fails with an `AssertionError`.
   *
   * @since 0.1.0
   * @category models
   */
  Assertion,
  /**
   * A client registered with the authorization server beforehand (from configuration).
   *
   * @since 0.1.0
   * @category models
   */
  ClientCredentials,
  /**
   * A client acting on its own behalf, without a user: the client credentials grant (`Secret`,
   * `PrivateKeyJwt`), workload identity federation (`JwtBearer`) or enterprise-managed authorization
   * (`IdJag`).
   *
   * @since 0.1.0
   * @category models
   */
  MachineCredentials,
  /**
   * How the client authorizes. Everything is optional: the defaults make a public client that
   * registers itself.
   *
   * @since 0.1.0
   * @category options
   */
  OAuthOptions
} from "./OAuthOptions.js"
export type {
  /**
   * The headers that authorize one request, and the access token they carry.
   *
   * @since 0.1.0
   * @category models
   */
  Credentials,
  /**
   * What the authorized HTTP client asks of the flow.
   *
   * @since 0.1.0
   * @category models
   */
  OAuthSession,
  /**
   * What the server said when it refused a request.
   *
   * @since 0.1.0
   * @category models
   */
  Refusal
} from "./OAuthSession.js"

/**
 * Builds the flow for one server: its state (the tokens in use, the scopes asked for, the
 * client registered, the DPoP nonces) lives as long as the session, in one `SynchronizedRef`.
 * Uses the context's `TokenStore` (else one in memory) and `Authorizer` (else none: a server
 * that needs a user fails with an `AuthorizationError`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  server: string,
  serverUrl: string,
  client: HttpClient.HttpClient,
  options: OAuthOptions = {}
): Effect.Effect<OAuthSession> =>
  Effect.gen(function* () {
    const ctx = yield* Context.make(server, serverUrl, client, options)
    const state = yield* SynchronizedRef.make(initial)
    return {
      credentials: Session.credentials(ctx, state),
      challenged: Session.challenged(ctx, state),
      maxAttempts: options.maxAttempts ?? 3
    }
  })
