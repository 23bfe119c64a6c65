/**
 * The authorizations a client holds, managed explicitly rather than when a server first
 * refuses a request: `login` authorizes with a server now (it asks the server, unauthenticated,
 * whether it wants authorization, then runs the whole flow and stores the tokens), `list` and
 * `forServer` describe what the `TokenStore` holds without any secret, and `logout` revokes
 * tokens at their authorization server (RFC 7009, when it offers a `revocation_endpoint`) and
 * removes them, with the client registration unless asked to keep it.
 *
 * @since 0.1.0
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { type AuthorizationError, AuthorizationNotRequired } from "./AuthError.js"
import * as Challenge from "./Challenge.js"
import * as Context from "./internal/context.js"
import * as Flow from "./internal/flow.js"
import { probe } from "./internal/probe.js"
import * as Revocation from "./internal/revocation.js"
import { initial } from "./internal/state.js"
import { resourceCovers } from "./Metadata.js"
import type { OAuthOptions } from "./OAuthOptions.js"
import { type StoredEntry, type TokenKey, TokenStore } from "./TokenStore.js"

export type {
  /**
   * What became of each token at the authorization server: revocation not offered, not
   * attempted (its metadata could not be read), or each token's outcome.
   *
   * @since 0.1.0
   * @category models
   */
  Revocation,
  /**
   * One token's revocation: revoked, or why not.
   *
   * @since 0.1.0
   * @category models
   */
  TokenRevocation
} from "./internal/revocation.js"

/**
 * A stored authorization, described without its secrets.
 *
 * @since 0.1.0
 * @category models
 */
export interface Summary extends TokenKey {
  /** The client the tokens were issued to. */
  readonly clientId: string
  readonly scopes: ReadonlyArray<string>
  /** When the access token expires (epoch milliseconds), if the authorization server said. */
  readonly expiresAt: Option.Option<number>
  readonly refreshToken: boolean
}

/**
 * A stored entry as a {@link Summary}.
 *
 * @since 0.1.0
 * @category constructors
 */
export const summarize = (entry: StoredEntry): Summary => ({
  issuer: entry.issuer,
  resource: entry.resource,
  clientId: entry.tokens.client_id,
  scopes: Challenge.scopes(entry.tokens.scope),
  expiresAt: Option.fromNullable(entry.tokens.expires_at),
  refreshToken: entry.tokens.refresh_token !== undefined
})

/**
 * Every stored authorization, oldest first.
 *
 * @since 0.1.0
 * @category getters
 */
export const list: Effect.Effect<ReadonlyArray<Summary>, never, TokenStore> = Effect.map(
  Effect.flatMap(TokenStore, (store) => store.entries),
  (entries) => entries.map(summarize)
)

/**
 * The stored authorizations whose resource covers the server at `serverUrl`, latest first
 * (the first is the one a client sends).
 *
 * @since 0.1.0
 * @category getters
 */
export const forServer = (serverUrl: string): Effect.Effect<ReadonlyArray<Summary>, never, TokenStore> =>
  Effect.map(list, (all) => all.filter((entry) => resourceCovers(entry.resource, serverUrl)).reverse())

/**
 * How to log in: the flow's options, and headers the server wants on every request (sent
 * with the request that asks whether it wants authorization).
 *
 * @since 0.1.0
 * @category options
 */
export interface LoginOptions extends OAuthOptions {
  readonly headers?: Record<string, string>
  /** The HTTP transport the server speaks (a legacy HTTP+SSE server is asked with a GET). Default: `"auto"`. */
  readonly transport?: "auto" | "http" | "sse"
}

/**
 * Authorizes with the server at `serverUrl` (named `server` in errors) now: asks it, without
 * credentials, whether it wants authorization (an `initialize` request, or the legacy
 * transport's GET: a protected server answers 401), then discovers its authorization server, identifies the client, lets the user
 * authorize through the context's `Authorizer` (or uses the machine credentials; without
 * either the flow fails) and stores the tokens in the `TokenStore`. Fails with `AuthorizationNotRequired` when the server answered without asking, and
 * with `AuthorizationError` when a step of the flow fails.
 *
 * @since 0.1.0
 * @category constructors
 */
export const login = (
  server: string,
  serverUrl: string,
  client: HttpClient.HttpClient,
  options: LoginOptions = {}
): Effect.Effect<Summary, AuthorizationError | AuthorizationNotRequired, TokenStore> =>
  Effect.gen(function* () {
    const { headers = {}, transport = "auto", ...flowOptions } = options
    const ctx = yield* Context.make(server, serverUrl, client, flowOptions)
    const probed = yield* probe(ctx.requester, serverUrl, {
      headers,
      transport,
      clientName: options.clientName ?? "effect-mcp"
    })
    if (probed._tag === "Open")
      return yield* new AuthorizationNotRequired({ server, url: serverUrl, status: probed.status })
    const state = yield* Flow.authorize(ctx, initial, probed.challenge)
    if (Option.isNone(state.active)) return yield* ctx.failed("token", "the flow ended without tokens")
    const { key, tokens } = state.active.value
    return summarize({ ...key, tokens })
  }).pipe(Effect.withSpan("Authorizations.login", { attributes: { "mcp.server": server } }))

/**
 * What `logout` did for one authorization: the revocation, and whether the client registration
 * went too.
 *
 * @since 0.1.0
 * @category models
 */
export interface LoggedOut {
  readonly authorization: Summary
  readonly revocation: Revocation.Revocation
  readonly clientRemoved: boolean
}

/**
 * How to log out: keep the client registrations (default: each goes with the last tokens of
 * its issuer), the configured client (to authenticate at the revocation endpoint), limits.
 *
 * @since 0.1.0
 * @category options
 */
export interface LogoutOptions extends Pick<OAuthOptions, "client" | "maxDocumentBytes" | "requestTimeout"> {
  readonly keepClient?: boolean
}

/**
 * Revokes the stored tokens of `keys` at their authorization servers (when they offer it: the
 * refresh token, then the access token), then removes them from the store, whatever the
 * revocation's outcome; a client registration goes with the last tokens of its issuer unless
 * `keepClient`. Never fails: each authorization's outcome is in the answer.
 *
 * @since 0.1.0
 * @category destructors
 */
export const logout = (
  keys: ReadonlyArray<TokenKey>,
  client: HttpClient.HttpClient,
  options: LogoutOptions = {}
): Effect.Effect<ReadonlyArray<LoggedOut>, never, TokenStore> =>
  Effect.gen(function* () {
    const store = yield* TokenStore
    return yield* Effect.forEach(keys, (key) =>
      Effect.gen(function* () {
        const tokens = yield* store.tokens(key)
        if (Option.isNone(tokens)) return Option.none<LoggedOut>()
        const ctx = yield* Context.make(key.resource, key.resource, client, options)
        const revocation = yield* Revocation.revoke(ctx, key.issuer, tokens.value)
        yield* store.removeTokens(key)
        const others = (yield* store.entries).some((entry) => entry.issuer === key.issuer)
        const clientRemoved = options.keepClient !== true && !others && Option.isSome(yield* store.client(key.issuer))
        if (clientRemoved) yield* store.removeClient(key.issuer)
        return Option.some({ authorization: summarize({ ...key, tokens: tokens.value }), revocation, clientRemoved })
      })
    ).pipe(Effect.map((done) => done.flatMap(Option.toArray)))
  }).pipe(Effect.withSpan("Authorizations.logout"))
