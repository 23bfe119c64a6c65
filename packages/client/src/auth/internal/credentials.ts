/**
 * The session the authorized HTTP client talks to, over the state in one `SynchronizedRef`:
 * `credentials` reads it without waiting (refreshing expired tokens under its lock), and
 * `challenged` decides under its lock whether a refused request is retried as it is, with the
 * server's DPoP nonce, after a refresh, or after authorizing anew.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as SynchronizedRef from "effect/SynchronizedRef"
import { AuthorizationError } from "../AuthError.js"
import * as Challenge from "../Challenge.js"
import type { Credentials, Refusal } from "../OAuthSession.js"
import type { StoredTokens } from "../TokenStore.js"
import { isDpopBound, present } from "./dpop.js"
import * as Flow from "./flow.js"
import type { Active, FlowContext, State } from "./state.js"

const EXPIRY_SKEW_MS = 30_000

const expired = (tokens: StoredTokens, now: number) =>
  tokens.expires_at !== undefined && tokens.expires_at - EXPIRY_SKEW_MS <= now

/**
 * Whether `credentials` would send the tokens in use: not expired, and a DPoP-bound token only
 * with its key (a token stored by another run has none). A refused request sent without them
 * when they are not must start the flow: retrying would send it bare again.
 */
const presentable = (active: Active, now: number) =>
  !expired(active.tokens, now) && (!isDpopBound(active) || active.dpopKey !== undefined)

/** The state with the tokens of an earlier run from the store, the first time it is needed. */
const searched = (ctx: FlowContext, state: State): Effect.Effect<State> =>
  state.storeSearched || Option.isSome(state.active)
    ? Effect.succeed(state.storeSearched ? state : { ...state, storeSearched: true })
    : Effect.map(ctx.store.latest(ctx.serverUrl), (found) => ({
        ...state,
        storeSearched: true,
        active: Option.map(found, ({ issuer, resource, tokens }) => ({
          key: { issuer, resource },
          tokens,
          discovered: undefined,
          dpopKey: undefined
        }))
      }))

/** The tokens in use, refreshed when they have expired (under the lock: concurrent requests take its result); none when they cannot be. */
const refreshedIfExpired =
  (ctx: FlowContext) =>
  (state: State): Effect.Effect<readonly [Option.Option<Active>, State]> =>
    Effect.gen(function* () {
      if (Option.isNone(state.active) || !expired(state.active.value.tokens, yield* Clock.currentTimeMillis))
        return [state.active, state] as const
      const [refreshed, next] = yield* Flow.refresh(ctx, state, state.active.value)
      return [refreshed ? next.active : Option.none(), next] as const
    })

/** The headers for a request to the server's origin, if there are tokens (refreshed first when expired). */
export const credentials =
  (ctx: FlowContext, ref: SynchronizedRef.SynchronizedRef<State>) =>
  (method: string, url: string): Effect.Effect<Option.Option<Credentials>> =>
    Effect.gen(function* () {
      if (url !== ctx.serverUrl && new URL(url).origin !== new URL(ctx.serverUrl).origin) return Option.none()
      const current = yield* SynchronizedRef.get(ref)
      const state = current.storeSearched
        ? current
        : yield* SynchronizedRef.updateAndGetEffect(ref, (latest) => searched(ctx, latest))
      if (Option.isNone(state.active)) return Option.none()
      const active = expired(state.active.value.tokens, yield* Clock.currentTimeMillis)
        ? yield* SynchronizedRef.modifyEffect(ref, refreshedIfExpired(ctx))
        : state.active
      if (Option.isNone(active)) return Option.none()
      const { nonces } = yield* SynchronizedRef.get(ref)
      return yield* present(active.value, method, url, nonces.resource)
    })

/** The failure of an authorization that answered a refusal: what the server said comes first. */
const afterRefusal = (
  error: AuthorizationError,
  refusal: Refusal,
  challenge: Challenge.Challenge["params"] | undefined
): AuthorizationError =>
  new AuthorizationError({
    server: error.server,
    step: error.step,
    reason: error.reason,
    ...(error.oauthError === undefined ? {} : { oauthError: error.oauthError }),
    ...(error.cause === undefined ? {} : { cause: error.cause }),
    refusal: {
      status: refusal.status,
      ...(challenge?.error === undefined ? {} : { error: challenge.error }),
      ...(challenge?.error_description === undefined ? {} : { errorDescription: challenge.error_description }),
      ...(challenge?.scope === undefined ? {} : { scope: challenge.scope })
    }
  })

/** What to do about a refused request (sent with the access token `sent`, or none): whether to retry, and the next state. */
const decide = (
  ctx: FlowContext,
  refusal: Refusal,
  sent: string | undefined
): ((state: State) => Effect.Effect<readonly [boolean, State], AuthorizationError>) =>
  Effect.fnUntraced(function* (before) {
    const state = yield* searched(ctx, before)
    const found = state.active
    // Someone else already replaced the token this request was sent with, or got one it can send
    // since it went without (two requests refused at once authorize once): just retry with it.
    if (
      Option.isSome(found) &&
      sent !== found.value.tokens.access_token &&
      (sent !== undefined || presentable(found.value, yield* Clock.currentTimeMillis))
    )
      return [true, state] as const
    const challenge = Challenge.bearer(refusal.wwwAuthenticate)
    // RFC 9449 §9: the resource server wants its nonce in the proof; the token is fine.
    if (challenge?.error === "use_dpop_nonce" && refusal.dpopNonce !== undefined && sent !== undefined)
      return [true, { ...state, nonces: { ...state.nonces, resource: refusal.dpopNonce } }] as const
    if (refusal.status === 403 && challenge?.error !== "insufficient_scope") return [false, state] as const
    if (refusal.status !== 403 && Option.isSome(found) && sent !== undefined && sent !== state.refreshedToken) {
      const [refreshed, next] = yield* Flow.refresh(ctx, state, found.value)
      if (refreshed) return [true, next] as const
      return [true, yield* authorizeAfter(ctx, next, refusal, challenge)] as const
    }
    return [true, yield* authorizeAfter(ctx, state, refusal, challenge)] as const
  })

const authorizeAfter = (
  ctx: FlowContext,
  state: State,
  refusal: Refusal,
  challenge: Challenge.Challenge["params"] | undefined
) => Effect.mapError(Flow.authorize(ctx, state, challenge), (error) => afterRefusal(error, refusal, challenge))

/**
 * The server refused a request: under the lock, decides whether to retry (and refreshes,
 * authorizes or takes the DPoP nonce first); fails when authorization fails.
 */
export const challenged =
  (ctx: FlowContext, ref: SynchronizedRef.SynchronizedRef<State>) =>
  (refusal: Refusal, sent: string | undefined): Effect.Effect<boolean, AuthorizationError> =>
    SynchronizedRef.modifyEffect(ref, decide(ctx, refusal, sent))
