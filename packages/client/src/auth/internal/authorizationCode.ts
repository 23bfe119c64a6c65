/**
 * The authorization code grant with PKCE S256 (required: a server whose metadata does not
 * list it is refused), through the `Authorizer`'s session: a `state` checked on return, the
 * response's `iss` checked (RFC 9207), `resource` (RFC 8707) on the authorization and token
 * requests.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { AuthorizationError } from "../AuthError.js"
import { clientAuthentication } from "../ClientAuthentication.js"
import { challengeS256, randomToken } from "../Crypto.js"
import * as Discovery from "../Discovery.js"
import type { AuthorizationServerMetadata } from "../Metadata.js"
import type { StoredClient } from "../TokenStore.js"
import { form } from "./oauthHttp.js"
import { identify } from "./registration.js"
import type { FlowContext, State } from "./state.js"
import * as TokenEndpoint from "./tokenEndpoint.js"

/** The tokens the user authorized, and the client they were issued to. */
export interface Authorized {
  readonly grant: TokenEndpoint.Grant
  readonly client: StoredClient
}

/** Why the redirect back is refused, if it is: an error answer, a foreign `state`, a wrong or missing `iss`. */
const checkRedirect = (
  ctx: FlowContext,
  back: URLSearchParams,
  state: string,
  metadata: AuthorizationServerMetadata
): Effect.Effect<string, AuthorizationError> => {
  const error = back.get("error")
  const description = back.get("error_description")
  if (error !== null)
    return ctx.failed(
      "authorization",
      `the authorization server answered ${error}${description === null ? "" : `: ${description}`}`,
      { oauthError: error }
    )
  if (back.get("state") !== state)
    return ctx.failed("authorization", "the state of the authorization response does not match; refused")
  const iss = back.get("iss")
  if (iss !== null && iss !== metadata.issuer)
    return ctx.failed(
      "authorization",
      `the authorization response comes from ${iss}, not from ${metadata.issuer} (RFC 9207); refused`
    )
  if (iss === null && metadata.authorization_response_iss_parameter_supported === true)
    return ctx.failed(
      "authorization",
      "the authorization server promised an iss parameter (RFC 9207) and sent none; refused"
    )
  const code = back.get("code")
  return code === null ? ctx.failed("authorization", "the authorization response has no code") : Effect.succeed(code)
}

/** Lets the user authorize `scopes` at `discovered`, then exchanges the code for tokens. */
export const grant = (
  ctx: FlowContext,
  discovered: Discovery.Discovered,
  scopes: ReadonlyArray<string>,
  state: State
): Effect.Effect<Authorized, AuthorizationError> =>
  Effect.scoped(
    Effect.gen(function* () {
      const { metadata } = discovered
      if (metadata.code_challenge_methods_supported?.includes("S256") !== true)
        return yield* ctx.failed(
          "policy",
          `${discovered.issuer} does not list PKCE S256 in code_challenge_methods_supported; refused`
        )
      if (metadata.authorization_endpoint === undefined)
        return yield* ctx.failed("discovery", `${discovered.issuer} has no authorization endpoint`)
      yield* Discovery.ensureSecure(ctx.server, "authorization endpoint", metadata.authorization_endpoint)
      if (Option.isNone(ctx.authorizer))
        return yield* ctx.failed(
          "authorization",
          "the server requires the user to authorize, and no interactive authorizer is configured"
        )
      const session = yield* ctx.authorizer.value.begin(ctx.server)
      const client = yield* identify(ctx, discovered, session.redirectUri, state.registration)
      const verifier = randomToken(32)
      const expected = randomToken(16)
      const url = new URL(metadata.authorization_endpoint)
      const query = form({
        response_type: "code",
        client_id: client.client_id,
        redirect_uri: session.redirectUri,
        code_challenge: yield* challengeS256(verifier),
        code_challenge_method: "S256",
        state: expected,
        scope: scopes.length === 0 ? undefined : scopes.join(" "),
        resource: discovered.resource
      })
      for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value)
      // A code alone is bound to this authorization by PKCE only where the server says it checks S256.
      const codeAlone = discovered.assumed !== true && metadata.authorization_response_iss_parameter_supported !== true
      const code = yield* checkRedirect(ctx, yield* session.complete(url.href, { codeAlone }), expected, metadata)
      const tokens = yield* TokenEndpoint.request(
        ctx,
        discovered,
        "token",
        client.client_id,
        { grant_type: "authorization_code", code, redirect_uri: session.redirectUri, code_verifier: verifier },
        clientAuthentication(client, metadata),
        state.nonces.tokenEndpoint
      )
      return { grant: tokens, client }
    })
  )
