/**
 * The token endpoint, shared by every grant: HTTPS (or loopback) only, the `resource`
 * (RFC 8707) on every request, the client's authentication, and DPoP proofs (RFC 9449) when
 * the authorization server offers ES256, with its latest nonce carried over; and what an
 * answer becomes in the store.
 */
import * as Effect from "effect/Effect"
import type { AuthorizationError, AuthStep } from "../AuthError.js"
import type { Authentication } from "../ClientAuthentication.js"
import type { DpopKey } from "../Crypto.js"
import * as Discovery from "../Discovery.js"
import { TokenResponse } from "../Metadata.js"
import type { StoredTokens } from "../TokenStore.js"
import { atEndpoint, usesDpop } from "./dpop.js"
import { form, postWithNonce } from "./oauthHttp.js"
import type { FlowContext } from "./state.js"

/** What a grant gives: the tokens, the client they were issued to, the endpoint's DPoP nonce and the key they are bound to. */
export interface Grant {
  readonly clientId: string
  readonly response: TokenResponse
  readonly nonce: string | undefined
  readonly dpopKey: DpopKey | undefined
}

/** One token request for `clientId`, with the endpoint's last DPoP nonce `nonce`. */
export const request = (
  ctx: FlowContext,
  discovered: Discovery.Discovered,
  step: AuthStep,
  clientId: string,
  fields: Record<string, string | undefined>,
  authentication: Authentication,
  nonce: string | undefined
): Effect.Effect<Grant, AuthorizationError> =>
  Effect.gen(function* () {
    const endpoint = discovered.metadata.token_endpoint
    if (endpoint === undefined) return yield* ctx.failed(step, `${discovered.issuer} has no token endpoint`)
    yield* Discovery.ensureSecure(ctx.server, "token endpoint", endpoint)
    const key = usesDpop(ctx.options, discovered.metadata) ? yield* ctx.dpopKey : undefined
    const answered = yield* postWithNonce(
      ctx.requester,
      step,
      endpoint,
      { form: form({ ...fields, resource: discovered.resource, ...authentication.fields }) },
      TokenResponse,
      authentication.headers,
      key === undefined ? undefined : atEndpoint(key, endpoint, nonce)
    )
    return { clientId, response: answered.value, nonce: answered.nonce, dpopKey: key }
  })

/** What a grant's answer becomes in the store (a refresh without a new refresh token keeps the old one). */
export const toStored = (grant: Grant, now: number, previous?: StoredTokens): StoredTokens => {
  const { response } = grant
  const refreshToken = response.refresh_token ?? previous?.refresh_token
  return {
    access_token: response.access_token,
    token_type: response.token_type,
    client_id: grant.clientId,
    ...(refreshToken === undefined ? {} : { refresh_token: refreshToken }),
    ...(response.expires_in === undefined ? {} : { expires_at: now + response.expires_in * 1000 }),
    ...(response.scope === undefined ? {} : { scope: response.scope })
  }
}
