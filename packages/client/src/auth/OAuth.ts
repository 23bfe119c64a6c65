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
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { form, type Limits, post, type Requester } from "../internal/oauthHttp.js"
import { AuthorizationError, type AuthStep } from "./AuthError.js"
import { Authorizer } from "./Authorizer.js"
import * as Challenge from "./Challenge.js"
import { clientAuthentication, registrationAuthMethod } from "./ClientAuthentication.js"
import {
  challengeS256,
  type DpopKey,
  dpopProof,
  makeDpopKey,
  randomToken,
  type SigningAlgorithm,
  signJwt
} from "./Crypto.js"
import * as Discovery from "./Discovery.js"
import { type AuthorizationServerMetadata, RegistrationResponse, sameIssuer, TokenResponse } from "./Metadata.js"
import {
  makeMemory,
  type StoredClient,
  type StoredTokens,
  type TokenKey,
  TokenStore,
  type TokenStoreService
} from "./TokenStore.js"

/** A client registered with the authorization server beforehand (from configuration). */
export interface ClientCredentials {
  readonly clientId: string
  readonly clientSecret?: string
  /** How the client authenticates at the token endpoint. Default: from the server's metadata. */
  readonly tokenEndpointAuthMethod?: "client_secret_basic" | "client_secret_post" | "none"
}

/** A token or assertion the host obtains (a workload identity JWT, an enterprise ID token), fresh for each use. */
export type Assertion = string | Effect.Effect<string, string>

/**
 * A client acting on its own behalf, without a user:
 * - `Secret`, `PrivateKeyJwt`: the client credentials grant, authenticated by a secret or by
 *   a private key that signs JWT assertions (RFC 7523 §2.2);
 * - `JwtBearer`: workload identity federation, a JWT from the workload's identity provider
 *   presented as the grant (RFC 7523 §2.1);
 * - `IdJag`: enterprise-managed authorization, the user's ID token exchanged at the
 *   enterprise identity provider for an identity assertion grant (RFC 8693), then presented
 *   to the authorization server as a JWT-bearer grant.
 */
export type MachineCredentials =
  | { readonly _tag: "Secret"; readonly clientId: string; readonly clientSecret: string }
  | {
      readonly _tag: "PrivateKeyJwt"
      readonly clientId: string
      /** A PKCS#8 PEM private key. */
      readonly privateKeyPem: string
      /** Default: ES256. */
      readonly algorithm?: SigningAlgorithm
    }
  | { readonly _tag: "JwtBearer"; readonly clientId: string; readonly assertion: Assertion }
  | {
      readonly _tag: "IdJag"
      readonly clientId: string
      readonly clientSecret?: string
      /** The enterprise identity provider: its token endpoint, this client's id there, and the user's ID token. */
      readonly identityProvider: {
        readonly tokenEndpoint: string
        readonly clientId: string
        readonly idToken: Assertion
      }
    }

const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
const ID_JAG = "urn:ietf:params:oauth:token-type:id-jag"
const ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token"

/** How the client authorizes. Everything is optional: the defaults make a public client that registers itself. */
export interface OAuthOptions {
  /** The name sent in Dynamic Client Registration. Default: `"effect-mcp"`. */
  readonly clientName?: string
  /** Pre-registered credentials: used before any other identity. */
  readonly client?: ClientCredentials
  /** The HTTPS URL of this client's metadata document, used when the server supports Client ID Metadata Documents. */
  readonly clientMetadataUrl?: string
  /** Authorize as a machine client instead of on behalf of a user. */
  readonly machine?: MachineCredentials
  /** The scopes to ask for, instead of the challenge's or the server's. */
  readonly scope?: string
  /** At most this many authorizations for one request (a first one, then step-ups). Default: 3. */
  readonly maxAttempts?: number
  /** The largest metadata document or token response accepted. Default: 256 KiB. */
  readonly maxDocumentBytes?: number
  /** The time limit of each request of the flow. Default: 15 seconds. */
  readonly requestTimeout?: Duration.DurationInput
  /** Sender-constrained tokens (DPoP, RFC 9449) when the authorization server offers ES256 proofs. Default: true. */
  readonly dpop?: boolean
}

/** The headers that authorize one request, and the access token they carry. */
export interface Credentials {
  readonly accessToken: string
  /** `Authorization` (`Bearer` or `DPoP`), and a `DPoP` proof for sender-constrained tokens. */
  readonly headers: Record<string, string>
}

/** What the server said when it refused a request. */
export interface Refusal {
  readonly status: number
  readonly wwwAuthenticate: string | undefined
  /** A `DPoP-Nonce` the server wants in the next proof. */
  readonly dpopNonce: string | undefined
}

/** What the authorized HTTP client asks of the flow. */
export interface OAuthSession {
  /** The headers for a request (method and URL), if there is a token for it (refreshed first when expired). */
  readonly credentials: (method: string, url: string) => Effect.Effect<Option.Option<Credentials>>
  /**
   * The server refused (401 or 403) a request sent with the access token `sent` (or without
   * one): authorizes, refreshes or takes the server's DPoP nonce, and says whether to retry;
   * fails when authorization fails.
   */
  readonly challenged: (refusal: Refusal, sent: string | undefined) => Effect.Effect<boolean, AuthorizationError>
  /** The most attempts one request may take. */
  readonly maxAttempts: number
}

const DEFAULT_LIMITS = { maxBytes: 256 * 1024, timeout: Duration.seconds(15) }
const EXPIRY_SKEW_MS = 30_000

const union = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) => [...new Set([...a, ...b])]

/** Builds the flow for one server; state (the tokens in use, the scopes asked for) lives as long as the session. */
export const make = (
  server: string,
  serverUrl: string,
  client: HttpClient.HttpClient,
  options: OAuthOptions = {}
): Effect.Effect<OAuthSession> =>
  Effect.gen(function* () {
    const store: TokenStoreService = yield* Effect.serviceOption(TokenStore).pipe(
      Effect.flatMap(Option.match({ onSome: Effect.succeed, onNone: () => makeMemory }))
    )
    const authorizer = yield* Effect.serviceOption(Authorizer)
    const limits: Limits = {
      maxBytes: options.maxDocumentBytes ?? DEFAULT_LIMITS.maxBytes,
      timeout: options.requestTimeout === undefined ? DEFAULT_LIMITS.timeout : Duration.decode(options.requestTimeout)
    }
    const requester: Requester = { client, server, limits }
    const origin = new URL(serverUrl).origin
    const lock = yield* Effect.makeSemaphore(1)
    const failed = (step: AuthStep, reason: string, extra: { oauthError?: string; cause?: unknown } = {}) =>
      new AuthorizationError({ server, step, reason, ...extra })

    /** The key of the tokens in use, once known. */
    let active: { key: TokenKey; discovered: Discovery.Discovered | undefined } | undefined
    let scopesAsked: ReadonlyArray<string> = []
    /** The access token the last refresh gave: refused again, it means authorizing anew. */
    let refreshedToken: string | undefined
    /** DPoP: the session's key (made when first needed) and the servers' latest nonces. */
    let dpopKey: DpopKey | undefined
    let tokenEndpointNonce: string | undefined
    let resourceNonce: string | undefined
    const usesDpop = (metadata: AuthorizationServerMetadata) =>
      options.dpop !== false && metadata.dpop_signing_alg_values_supported?.includes("ES256") === true
    const keyForDpop = Effect.suspend(() =>
      dpopKey === undefined
        ? Effect.tap(makeDpopKey, (key) =>
            Effect.sync(() => {
              dpopKey = key
            })
          )
        : Effect.succeed(dpopKey)
    )

    /** Whether the store was searched for tokens of an earlier run (once: a server without OAuth costs nothing after). */
    let storeSearched = false
    const current: Effect.Effect<Option.Option<{ key: TokenKey; tokens: StoredTokens }>> = Effect.suspend(() => {
      if (active !== undefined) {
        const key = active.key
        return Effect.map(
          store.tokens(key),
          Option.map((tokens) => ({ key, tokens }))
        )
      }
      if (storeSearched) return Effect.succeed(Option.none())
      storeSearched = true
      return Effect.map(
        store.latest(serverUrl),
        Option.map(({ issuer, resource, tokens }) => {
          active = { key: { issuer, resource }, discovered: undefined }
          return { key: active.key, tokens }
        })
      )
    })

    const ensureSecure = (what: string, url: string | undefined) => Discovery.ensureSecure(server, what, url)
    const discover = (challenge: Challenge.Challenge["params"] | undefined) =>
      Discovery.discover(requester, serverUrl, challenge)

    // ---- identity ---------------------------------------------------------------------------

    const identify = (
      discovered: Discovery.Discovered,
      redirectUri: string
    ): Effect.Effect<StoredClient, AuthorizationError> =>
      Effect.gen(function* () {
        const { issuer, metadata } = discovered
        if (options.client !== undefined)
          return {
            client_id: options.client.clientId,
            ...(options.client.clientSecret === undefined ? {} : { client_secret: options.client.clientSecret }),
            ...(options.client.tokenEndpointAuthMethod === undefined
              ? {}
              : { token_endpoint_auth_method: options.client.tokenEndpointAuthMethod })
          }
        const stored = yield* store.client(issuer)
        if (Option.isSome(stored) && (stored.value.redirect_uris ?? [redirectUri]).includes(redirectUri))
          return stored.value
        if (options.clientMetadataUrl !== undefined && metadata.client_id_metadata_document_supported === true)
          return { client_id: options.clientMetadataUrl, token_endpoint_auth_method: "none" }
        if (metadata.registration_endpoint === undefined)
          return yield* failed(
            "registration",
            `${issuer} offers no dynamic registration; configure a client id registered with it`
          )
        yield* ensureSecure("registration endpoint", metadata.registration_endpoint)
        const registered = yield* post(
          requester,
          "registration",
          metadata.registration_endpoint,
          {
            json: {
              client_name: options.clientName ?? "effect-mcp",
              redirect_uris: [redirectUri],
              grant_types: ["authorization_code", "refresh_token"],
              response_types: ["code"],
              token_endpoint_auth_method: registrationAuthMethod(metadata),
              application_type: "native"
            }
          },
          RegistrationResponse
        )
        const client: StoredClient = {
          client_id: registered.client_id,
          ...(registered.client_secret === undefined ? {} : { client_secret: registered.client_secret }),
          ...(registered.token_endpoint_auth_method === undefined
            ? {}
            : { token_endpoint_auth_method: registered.token_endpoint_auth_method }),
          redirect_uris: registered.redirect_uris ?? [redirectUri]
        }
        yield* store.saveClient(issuer, client)
        return client
      })

    // ---- tokens -----------------------------------------------------------------------------

    const save = (key: TokenKey, clientId: string, response: TokenResponse, previous?: StoredTokens) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const refreshToken = response.refresh_token ?? previous?.refresh_token
        const tokens: StoredTokens = {
          access_token: response.access_token,
          token_type: response.token_type,
          client_id: clientId,
          ...(refreshToken === undefined ? {} : { refresh_token: refreshToken }),
          ...(response.expires_in === undefined ? {} : { expires_at: now + response.expires_in * 1000 }),
          ...(response.scope === undefined ? {} : { scope: response.scope })
        }
        yield* store.saveTokens(key, tokens)
        return tokens
      })

    const tokenRequest = (
      discovered: Discovery.Discovered,
      step: AuthStep,
      fields: Record<string, string | undefined>,
      authentication: { readonly headers: Record<string, string>; readonly fields: Record<string, string> }
    ) =>
      Effect.gen(function* () {
        const endpoint = discovered.metadata.token_endpoint
        if (endpoint === undefined) return yield* failed(step, `${discovered.issuer} has no token endpoint`)
        yield* ensureSecure("token endpoint", endpoint)
        const key = usesDpop(discovered.metadata) ? yield* keyForDpop : undefined
        return yield* post(
          requester,
          step,
          endpoint,
          { form: form({ ...fields, resource: discovered.resource, ...authentication.fields }) },
          TokenResponse,
          authentication.headers,
          key === undefined
            ? undefined
            : {
                proof: (nonce) =>
                  dpopProof(key, { method: "POST", url: endpoint, ...(nonce === undefined ? {} : { nonce }) }),
                nonce: () => tokenEndpointNonce,
                setNonce: (nonce) => {
                  tokenEndpointNonce = nonce
                }
              }
        )
      })

    const scopesFor = (discovered: Discovery.Discovered, challenged: ReadonlyArray<string>, withOffline: boolean) => {
      const base =
        options.scope !== undefined
          ? Challenge.scopes(options.scope)
          : challenged.length > 0
            ? challenged
            : (discovered.resourceScopes ?? [])
      const all = union(scopesAsked, base)
      const offline =
        withOffline &&
        all.length > 0 &&
        discovered.metadata.scopes_supported?.includes("offline_access") === true &&
        !all.includes("offline_access")
      return offline ? [...all, "offline_access"] : all
    }

    const authorizationCode = (discovered: Discovery.Discovered, scopes: ReadonlyArray<string>) =>
      Effect.scoped(
        Effect.gen(function* () {
          const { metadata } = discovered
          if (metadata.code_challenge_methods_supported?.includes("S256") !== true)
            return yield* failed(
              "policy",
              `${discovered.issuer} does not list PKCE S256 in code_challenge_methods_supported; refused`
            )
          if (metadata.authorization_endpoint === undefined)
            return yield* failed("discovery", `${discovered.issuer} has no authorization endpoint`)
          yield* ensureSecure("authorization endpoint", metadata.authorization_endpoint)
          if (Option.isNone(authorizer))
            return yield* failed(
              "authorization",
              "the server requires the user to authorize, and no interactive authorizer is configured"
            )
          const session = yield* authorizer.value.begin(server)
          const identity = yield* identify(discovered, session.redirectUri)
          const verifier = randomToken(32)
          const state = randomToken(16)
          const url = new URL(metadata.authorization_endpoint)
          const query: Record<string, string | undefined> = {
            response_type: "code",
            client_id: identity.client_id,
            redirect_uri: session.redirectUri,
            code_challenge: yield* challengeS256(verifier),
            code_challenge_method: "S256",
            state,
            scope: scopes.length === 0 ? undefined : scopes.join(" "),
            resource: discovered.resource
          }
          for (const [name, value] of Object.entries(form(query))) url.searchParams.set(name, value)
          const back = yield* session.complete(url.href)
          const error = back.get("error")
          if (error !== null)
            return yield* failed(
              "authorization",
              `the authorization server answered ${error}${back.get("error_description") === null ? "" : `: ${back.get("error_description")}`}`,
              { oauthError: error }
            )
          if (back.get("state") !== state)
            return yield* failed("authorization", "the state of the authorization response does not match; refused")
          const iss = back.get("iss")
          if (iss !== null && iss !== metadata.issuer)
            return yield* failed(
              "authorization",
              `the authorization response comes from ${iss}, not from ${metadata.issuer} (RFC 9207); refused`
            )
          if (iss === null && metadata.authorization_response_iss_parameter_supported === true)
            return yield* failed(
              "authorization",
              "the authorization server promised an iss parameter (RFC 9207) and sent none; refused"
            )
          const code = back.get("code")
          if (code === null) return yield* failed("authorization", "the authorization response has no code")
          const response = yield* tokenRequest(
            discovered,
            "token",
            { grant_type: "authorization_code", code, redirect_uri: session.redirectUri, code_verifier: verifier },
            clientAuthentication(identity, metadata)
          )
          return { clientId: identity.client_id, response }
        })
      )

    const assertionOf = (assertion: Assertion) =>
      (typeof assertion === "string" ? Effect.succeed(assertion) : assertion).pipe(
        Effect.mapError((reason) => failed("token", `the assertion could not be obtained: ${reason}`))
      )

    const machine = (
      discovered: Discovery.Discovered,
      credentials: MachineCredentials,
      scopes: ReadonlyArray<string>
    ) =>
      Effect.gen(function* () {
        const scope = scopes.length === 0 ? undefined : scopes.join(" ")
        const { metadata } = discovered
        switch (credentials._tag) {
          case "Secret": {
            const authentication = clientAuthentication(
              { client_id: credentials.clientId, client_secret: credentials.clientSecret },
              metadata
            )
            const response = yield* tokenRequest(
              discovered,
              "token",
              { grant_type: "client_credentials", scope },
              authentication
            )
            return { clientId: credentials.clientId, response }
          }
          case "PrivateKeyJwt": {
            const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
            const assertion = yield* signJwt(
              {
                iss: credentials.clientId,
                sub: credentials.clientId,
                aud: metadata.issuer,
                iat: now,
                exp: now + 300,
                jti: randomToken(16)
              },
              credentials.privateKeyPem,
              credentials.algorithm ?? "ES256"
            ).pipe(Effect.mapError((reason) => failed("token", reason)))
            const response = yield* tokenRequest(
              discovered,
              "token",
              { grant_type: "client_credentials", scope },
              {
                headers: {},
                fields: {
                  client_id: credentials.clientId,
                  client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
                  client_assertion: assertion
                }
              }
            )
            return { clientId: credentials.clientId, response }
          }
          case "JwtBearer": {
            const assertion = yield* assertionOf(credentials.assertion)
            const response = yield* tokenRequest(
              discovered,
              "token",
              { grant_type: JWT_BEARER, assertion, scope },
              clientAuthentication({ client_id: credentials.clientId }, metadata)
            )
            return { clientId: credentials.clientId, response }
          }
          case "IdJag": {
            const idp = credentials.identityProvider
            yield* ensureSecure("identity provider token endpoint", idp.tokenEndpoint)
            const grant = yield* post(
              requester,
              "token",
              idp.tokenEndpoint,
              {
                form: form({
                  grant_type: TOKEN_EXCHANGE,
                  requested_token_type: ID_JAG,
                  subject_token: yield* assertionOf(idp.idToken),
                  subject_token_type: ID_TOKEN,
                  audience: metadata.issuer,
                  resource: discovered.resource,
                  client_id: idp.clientId,
                  scope
                })
              },
              TokenResponse
            )
            const response = yield* tokenRequest(
              discovered,
              "token",
              { grant_type: JWT_BEARER, assertion: grant.access_token, scope },
              clientAuthentication(
                {
                  client_id: credentials.clientId,
                  ...(credentials.clientSecret === undefined ? {} : { client_secret: credentials.clientSecret })
                },
                metadata
              )
            )
            return { clientId: credentials.clientId, response }
          }
        }
      })

    /** The whole flow: discovery, identity, authorization, tokens; the new tokens become the ones in use. */
    const authorize = (challenge: Challenge.Challenge["params"] | undefined) =>
      Effect.gen(function* () {
        const discovered = yield* discover(challenge)
        const challenged = Challenge.scopes(challenge?.scope)
        const scopes = scopesFor(discovered, challenged, options.machine === undefined)
        const { clientId, response } =
          options.machine === undefined
            ? yield* authorizationCode(discovered, scopes)
            : yield* machine(discovered, options.machine, scopes)
        scopesAsked = scopes
        const key = { issuer: discovered.issuer, resource: discovered.resource }
        yield* save(key, clientId, response)
        active = { key, discovered }
      }).pipe(Effect.withSpan("OAuth.authorize", { attributes: { "mcp.server": server } }))

    const refresh = (key: TokenKey, tokens: StoredTokens) =>
      Effect.gen(function* () {
        const refreshToken = tokens.refresh_token
        if (refreshToken === undefined) return false
        const discovered = active?.discovered ?? (yield* discover(undefined))
        if (!sameIssuer(discovered.issuer, key.issuer)) return false
        const identity =
          options.client?.clientId === tokens.client_id
            ? {
                client_id: tokens.client_id,
                ...(options.client.clientSecret === undefined ? {} : { client_secret: options.client.clientSecret })
              }
            : Option.getOrElse(
                Option.filter(yield* store.client(key.issuer), (stored) => stored.client_id === tokens.client_id),
                (): StoredClient => ({ client_id: tokens.client_id })
              )
        const response = yield* tokenRequest(
          discovered,
          "refresh",
          { grant_type: "refresh_token", refresh_token: refreshToken },
          clientAuthentication(identity, discovered.metadata)
        )
        const saved = yield* save(key, identity.client_id, response, tokens)
        refreshedToken = saved.access_token
        active = { key, discovered }
        return true
      }).pipe(
        Effect.catchAll((error) =>
          Effect.zipRight(
            Effect.logDebug(`${server}: the refresh failed (${error.message}); authorizing again`),
            Effect.as(store.removeTokens(key), false)
          )
        )
      )

    const expired = (tokens: StoredTokens, now: number) =>
      tokens.expires_at !== undefined && tokens.expires_at - EXPIRY_SKEW_MS <= now

    /** The headers that present `tokens`: a DPoP-bound token with a fresh proof, else a bearer token. */
    const present = (tokens: StoredTokens, method: string, url: string): Effect.Effect<Option.Option<Credentials>> => {
      if (tokens.token_type.toLowerCase() !== "dpop")
        return Effect.succeed(
          Option.some({ accessToken: tokens.access_token, headers: { authorization: `Bearer ${tokens.access_token}` } })
        )
      // A DPoP-bound token is useless without the key it is bound to (a token stored by another run).
      const key = dpopKey
      if (key === undefined) return Effect.succeed(Option.none())
      return Effect.map(
        dpopProof(key, {
          method,
          url,
          accessToken: tokens.access_token,
          ...(resourceNonce === undefined ? {} : { nonce: resourceNonce })
        }),
        (proof) =>
          Option.some({
            accessToken: tokens.access_token,
            headers: { authorization: `DPoP ${tokens.access_token}`, dpop: proof }
          })
      )
    }

    const credentials = (method: string, url: string) =>
      Effect.gen(function* () {
        if (url !== serverUrl && new URL(url).origin !== origin) return Option.none<Credentials>()
        const found = yield* current
        if (Option.isNone(found)) return Option.none<Credentials>()
        const { key, tokens } = found.value
        if (!expired(tokens, yield* Clock.currentTimeMillis)) return yield* present(tokens, method, url)
        // Refreshed once, under the lock: concurrent requests wait for it and take its result.
        const fresh = yield* lock.withPermits(1)(
          Effect.gen(function* () {
            const latest = yield* store.tokens(key)
            if (Option.isNone(latest)) return Option.none<StoredTokens>()
            if (!expired(latest.value, yield* Clock.currentTimeMillis) || (yield* refresh(key, latest.value)))
              return yield* store.tokens(key)
            return Option.none<StoredTokens>()
          })
        )
        return Option.isNone(fresh) ? Option.none<Credentials>() : yield* present(fresh.value, method, url)
      })

    const challenged = (refusal: Refusal, sent: string | undefined) =>
      lock.withPermits(1)(
        Effect.gen(function* () {
          const found = yield* current
          // Someone else already replaced the token this request was sent with: just retry.
          if (Option.isSome(found) && sent !== undefined && sent !== found.value.tokens.access_token) return true
          const challenge = Challenge.bearer(refusal.wwwAuthenticate)
          // RFC 9449 §9: the resource server wants its nonce in the proof; the token is fine.
          if (challenge?.error === "use_dpop_nonce" && refusal.dpopNonce !== undefined && sent !== undefined) {
            resourceNonce = refusal.dpopNonce
            return true
          }
          // A failure says first what the server said, then what the flow ran into.
          const authorizeAfterRefusal = authorize(challenge).pipe(
            Effect.mapError(
              (error) =>
                new AuthorizationError({
                  server: error.server,
                  step: error.step,
                  reason: error.reason,
                  ...(error.oauthError === undefined ? {} : { oauthError: error.oauthError }),
                  ...(error.cause === undefined ? {} : { cause: error.cause }),
                  refusal: {
                    status: refusal.status,
                    ...(challenge?.error === undefined ? {} : { error: challenge.error }),
                    ...(challenge?.error_description === undefined
                      ? {}
                      : { errorDescription: challenge.error_description }),
                    ...(challenge?.scope === undefined ? {} : { scope: challenge.scope })
                  }
                })
            )
          )
          if (refusal.status === 403) {
            if (challenge?.error !== "insufficient_scope") return false
            yield* authorizeAfterRefusal
            return true
          }
          if (
            Option.isSome(found) &&
            sent !== undefined &&
            sent !== refreshedToken &&
            (yield* refresh(found.value.key, found.value.tokens))
          )
            return true
          yield* authorizeAfterRefusal
          return true
        })
      )

    return { credentials, challenged, maxAttempts: options.maxAttempts ?? 3 }
  })
