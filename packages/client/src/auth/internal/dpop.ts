/**
 * Sender-constrained tokens (DPoP, RFC 9449): whether an authorization server's tokens are
 * bound to the session's key, the proof for a token request, and the headers that present a
 * token to the MCP server (a fresh proof per request, with the server's latest nonce).
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { type DpopKey, dpopProof } from "../Crypto.js"
import type { AuthorizationServerMetadata } from "../Metadata.js"
import type { OAuthOptions } from "../OAuthOptions.js"
import type { Credentials } from "../OAuthSession.js"
import type { DpopAtEndpoint } from "./oauthHttp.js"
import type { Active } from "./state.js"

/** Whether tokens from this authorization server are sender-constrained (it offers ES256 proofs, and DPoP is not off). */
export const usesDpop = (options: OAuthOptions, metadata: AuthorizationServerMetadata): boolean =>
  options.dpop !== false && metadata.dpop_signing_alg_values_supported?.includes("ES256") === true

/** Proofs for POSTs to a token endpoint, starting from its last nonce. */
export const atEndpoint = (key: DpopKey, endpoint: string, nonce: string | undefined): DpopAtEndpoint => ({
  proof: (sent) => dpopProof(key, { method: "POST", url: endpoint, ...(sent === undefined ? {} : { nonce: sent }) }),
  nonce
})

/** Whether the tokens in use are DPoP-bound (presented only with the key they are bound to). */
export const isDpopBound = (active: Active): boolean => active.tokens.token_type.toLowerCase() === "dpop"

/** The headers that present the active tokens for a request: a DPoP-bound token with a fresh proof, else a bearer token. */
export const present = (
  active: Active,
  method: string,
  url: string,
  nonce: string | undefined
): Effect.Effect<Option.Option<Credentials>> => {
  const accessToken = active.tokens.access_token
  if (!isDpopBound(active))
    return Effect.succeed(Option.some({ accessToken, headers: { authorization: `Bearer ${accessToken}` } }))
  // A DPoP-bound token is useless without the key it is bound to (a token stored by another run).
  const key = active.dpopKey
  if (key === undefined) return Effect.succeed(Option.none())
  return Effect.map(dpopProof(key, { method, url, accessToken, ...(nonce === undefined ? {} : { nonce }) }), (proof) =>
    Option.some({ accessToken, headers: { authorization: `DPoP ${accessToken}`, dpop: proof } })
  )
}
