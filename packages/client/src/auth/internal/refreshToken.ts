/**
 * The refresh token grant (RFC 6749 §6), as the client the tokens were issued to: the
 * configured client, this session's registration, or the one stored for the issuer; a
 * public client otherwise.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { AuthorizationError } from "../AuthError.js"
import { clientAuthentication } from "../ClientAuthentication.js"
import type { Discovered } from "../Discovery.js"
import type { StoredClient, StoredTokens } from "../TokenStore.js"
import { configured } from "./registration.js"
import type { FlowContext, State } from "./state.js"
import * as TokenEndpoint from "./tokenEndpoint.js"

/** The client `tokens` were issued to, with its secret when it has one. */
export const issuedTo = (ctx: FlowContext, issuer: string, tokens: StoredTokens, state: State) =>
  Effect.gen(function* () {
    const isTheirs = (client: StoredClient) => client.client_id === tokens.client_id
    if (ctx.options.client !== undefined && ctx.options.client.clientId === tokens.client_id)
      return configured(ctx.options.client)
    const registered = Option.filter(state.registration, (known) => known.issuer === issuer && isTheirs(known.client))
    if (Option.isSome(registered)) return registered.value.client
    return Option.getOrElse(
      Option.filter(yield* ctx.store.client(issuer), isTheirs),
      (): StoredClient => ({ client_id: tokens.client_id })
    )
  })

/** New tokens for `refreshToken`, from `discovered`'s token endpoint. */
export const grant = (
  ctx: FlowContext,
  discovered: Discovered,
  tokens: StoredTokens & { readonly refresh_token: string },
  state: State
): Effect.Effect<TokenEndpoint.Grant, AuthorizationError> =>
  Effect.flatMap(issuedTo(ctx, discovered.issuer, tokens, state), (client) =>
    TokenEndpoint.request(
      ctx,
      discovered,
      "refresh",
      client.client_id,
      { grant_type: "refresh_token", refresh_token: tokens.refresh_token },
      clientAuthentication(client, discovered.metadata),
      state.nonces.tokenEndpoint
    )
  )
