/**
 * The steps that change what a session holds: authorize (discovery, the scopes to ask for,
 * then the authorization code grant for a user or a machine grant) and refresh. Each takes
 * the session's state and gives the next one; new tokens are saved in the store and become
 * the ones in use.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { AuthorizationError } from "../AuthError.js"
import * as Challenge from "../Challenge.js"
import * as Discovery from "../Discovery.js"
import { sameIssuer } from "../Metadata.js"
import type { MachineCredentials } from "../OAuthOptions.js"
import type { TokenKey } from "../TokenStore.js"
import * as AuthorizationCode from "./authorizationCode.js"
import * as ClientCredentials from "./clientCredentials.js"
import * as JwtBearer from "./jwtBearer.js"
import * as RefreshToken from "./refreshToken.js"
import type { Active, FlowContext, State } from "./state.js"
import * as TokenEndpoint from "./tokenEndpoint.js"

const union = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) => [...new Set([...a, ...b])]

/**
 * The scopes to ask for: the configured ones, else the challenge's, else the resource's
 * `scopes_supported`, joined with those asked so far; `offline_access` for a user when the
 * authorization server offers it.
 */
export const scopesFor = (
  ctx: FlowContext,
  discovered: Discovery.Discovered,
  challenged: ReadonlyArray<string>,
  asked: ReadonlyArray<string>
): ReadonlyArray<string> => {
  const base =
    ctx.options.scope !== undefined
      ? Challenge.scopes(ctx.options.scope)
      : challenged.length > 0
        ? challenged
        : (discovered.resourceScopes ?? [])
  const all = union(asked, base)
  const offline =
    ctx.options.machine === undefined &&
    all.length > 0 &&
    discovered.metadata.scopes_supported?.includes("offline_access") === true &&
    !all.includes("offline_access")
  return offline ? [...all, "offline_access"] : all
}

/** Saves a grant's tokens under `key` and makes them the ones in use. */
const adopt = (
  ctx: FlowContext,
  state: State,
  key: TokenKey,
  discovered: Discovery.Discovered,
  grant: TokenEndpoint.Grant,
  previous?: Active
): Effect.Effect<State> =>
  Effect.gen(function* () {
    const tokens = TokenEndpoint.toStored(grant, yield* Clock.currentTimeMillis, previous?.tokens)
    yield* ctx.store.saveTokens(key, tokens)
    return {
      ...state,
      active: Option.some({ key, tokens, discovered, dpopKey: grant.dpopKey }),
      nonces: { ...state.nonces, tokenEndpoint: grant.nonce }
    }
  })

const machineGrant = (
  ctx: FlowContext,
  discovered: Discovery.Discovered,
  credentials: MachineCredentials,
  scopes: ReadonlyArray<string>,
  nonce: string | undefined
) => {
  const scope = scopes.length === 0 ? undefined : scopes.join(" ")
  return credentials._tag === "Secret" || credentials._tag === "PrivateKeyJwt"
    ? ClientCredentials.grant(ctx, discovered, credentials, scope, nonce)
    : JwtBearer.grant(ctx, discovered, credentials, scope, nonce)
}

/** The whole flow for a challenge (or none): discovery, identity, authorization, tokens. */
export const authorize = (
  ctx: FlowContext,
  state: State,
  challenge: Challenge.Challenge["params"] | undefined
): Effect.Effect<State, AuthorizationError> =>
  Effect.gen(function* () {
    const discovered = yield* Discovery.discover(ctx.requester, ctx.serverUrl, challenge)
    const scopes = scopesFor(ctx, discovered, Challenge.scopes(challenge?.scope), state.scopesAsked)
    const key = { issuer: discovered.issuer, resource: discovered.resource }
    const machine = ctx.options.machine
    if (machine !== undefined) {
      const grant = yield* machineGrant(ctx, discovered, machine, scopes, state.nonces.tokenEndpoint)
      return { ...(yield* adopt(ctx, state, key, discovered, grant)), scopesAsked: scopes }
    }
    const { grant, client } = yield* AuthorizationCode.grant(ctx, discovered, scopes, state)
    const next = yield* adopt(ctx, state, key, discovered, grant)
    return { ...next, scopesAsked: scopes, registration: Option.some({ issuer: discovered.issuer, client }) }
  }).pipe(Effect.withSpan("OAuth.authorize", { attributes: { "mcp.server": ctx.server } }))

/**
 * Refreshes the tokens in use: whether it did, and the next state. Tokens without a refresh
 * token, or from another issuer than the server's now, are left as they are; a refused
 * refresh forgets them (here and in the store), so that the next challenge authorizes anew.
 */
export const refresh = (ctx: FlowContext, state: State, active: Active): Effect.Effect<readonly [boolean, State]> => {
  const refreshToken = active.tokens.refresh_token
  if (refreshToken === undefined) return Effect.succeed([false, state])
  return Effect.gen(function* () {
    const discovered = active.discovered ?? (yield* Discovery.discover(ctx.requester, ctx.serverUrl, undefined))
    if (!sameIssuer(discovered.issuer, active.key.issuer)) return [false, state] as const
    const grant = yield* RefreshToken.grant(ctx, discovered, { ...active.tokens, refresh_token: refreshToken }, state)
    const next = yield* adopt(ctx, state, active.key, discovered, grant, active)
    return [true, { ...next, refreshedToken: grant.response.access_token }] as const
  }).pipe(
    Effect.catchAll((error) =>
      Effect.zipRight(
        Effect.logDebug(`${ctx.server}: the refresh failed (${error.message}); authorizing again`),
        Effect.as(ctx.store.removeTokens(active.key), [false, { ...state, active: Option.none() }] as const)
      )
    )
  )
}
