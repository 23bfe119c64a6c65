/**
 * What one OAuth session knows, as one immutable value (kept in a `SynchronizedRef` by
 * `OAuth.make`), and what every step of the flow is given: the server, the options, the
 * HTTP requester, the store, the authorizer and the session's DPoP key.
 */
import type * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { AuthorizationError, AuthStep } from "../AuthError.js"
import type { Authorizer } from "../Authorizer.js"
import type { DpopKey } from "../Crypto.js"
import type { Discovered } from "../Discovery.js"
import type { OAuthOptions } from "../OAuthOptions.js"
import type { StoredClient, StoredTokens, TokenKey, TokenStoreService } from "../TokenStore.js"
import type { Requester } from "./oauthHttp.js"

/** The tokens in use: their key, where they came from (unknown for tokens of an earlier run), and the DPoP key they are bound to. */
export interface Active {
  readonly key: TokenKey
  readonly tokens: StoredTokens
  readonly discovered: Discovered | undefined
  /** The key a DPoP-bound token was issued for (a token of an earlier run has none, and cannot be presented). */
  readonly dpopKey: DpopKey | undefined
}

/** The session's state. */
export interface State {
  readonly active: Option.Option<Active>
  /** Whether the store was searched for tokens of an earlier run (once: a server without OAuth costs nothing after). */
  readonly storeSearched: boolean
  /** The client this session registered or used, by issuer. */
  readonly registration: Option.Option<{ readonly issuer: string; readonly client: StoredClient }>
  readonly scopesAsked: ReadonlyArray<string>
  /** The access token the last refresh gave: refused again, it means authorizing anew. */
  readonly refreshedToken: string | undefined
  /** DPoP nonces: the token endpoint's and the MCP server's latest. */
  readonly nonces: { readonly tokenEndpoint: string | undefined; readonly resource: string | undefined }
}

/** A session that knows nothing yet. */
export const initial: State = {
  active: Option.none(),
  storeSearched: false,
  registration: Option.none(),
  scopesAsked: [],
  refreshedToken: undefined,
  nonces: { tokenEndpoint: undefined, resource: undefined }
}

/** What every step of the flow is given. */
export interface FlowContext {
  readonly server: string
  readonly serverUrl: string
  readonly options: OAuthOptions
  readonly requester: Requester
  readonly store: TokenStoreService
  readonly authorizer: Option.Option<Context.Tag.Service<Authorizer>>
  /** The session's DPoP key pair, made when first needed. */
  readonly dpopKey: Effect.Effect<DpopKey>
  readonly failed: (
    step: AuthStep,
    reason: string,
    extra?: { readonly oauthError?: string; readonly cause?: unknown }
  ) => AuthorizationError
}
