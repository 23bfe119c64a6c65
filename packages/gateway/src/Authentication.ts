/**
 * Who is calling the gateway over HTTP. Besides the one shared token (`token` in the server's
 * options), callers may each have an API key, from a file ({@link apiKeysFromFile}), or present
 * OAuth access tokens, which the gateway checks as an OAuth 2.1 resource server ({@link oauth}:
 * Protected Resource Metadata, JWTs verified against the authorization server's JWKS or tokens
 * introspected, issuer, audience, expiry and scopes checked). Each caller is a {@link Principal};
 * the work done for it runs with {@link CurrentPrincipal} set, and what it opens (a 2025-11-25
 * session, a 2026-07-28 `requestState`) is its alone.
 *
 * @example
 * ```ts
 * import { Authentication, NodeStreamableHttpServer } from "@effect-mcp/gateway"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function* () {
 *   const apiKeys = yield* Authentication.apiKeysFromFile("keys.jsonl")
 *   const oauth = yield* Authentication.oauth({
 *     resource: "https://mcp.example.com/mcp",
 *     issuer: "https://auth.example.com",
 *     jwksUrl: "https://auth.example.com/.well-known/jwks.json"
 *   })
 *   yield* NodeStreamableHttpServer.listen({ host: "0.0.0.0", port: 8080, apiKeys, oauth })
 * })
 * ```
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Effect from "effect/Effect"
import type * as FiberRef from "effect/FiberRef"
import * as ApiKeys from "./internal/apiKeys.js"
import * as OAuthResource from "./internal/oauthResource.js"
import * as InternalPolicy from "./internal/policy.js"
import * as InternalPrincipal from "./internal/principal.js"

/**
 * A caller the gateway has identified: its id (an API key's name, a token's `sub`, `token`,
 * `anonymous`), how, and the scopes its token grants.
 *
 * @since 0.1.0
 * @category models
 */
export type Principal = InternalPrincipal.Principal

/**
 * The principal the current work is done for: read it (`FiberRef.get`) in anything that runs for a
 * request or a session (a span, a log, a metric). `anonymous` where no credentials are asked.
 *
 * @since 0.1.0
 * @category references
 */
export const CurrentPrincipal: FiberRef.FiberRef<Principal> = InternalPrincipal.CurrentPrincipal

/**
 * The caller of a gateway that asks for no credentials.
 *
 * @since 0.1.0
 * @category constants
 */
export const anonymous: Principal = InternalPrincipal.anonymous

/**
 * A caller's API key as the gateway keeps it: its name, the key's SHA-256, its own rules.
 *
 * @since 0.1.0
 * @category models
 */
export type ApiKey = ApiKeys.ApiKey

/**
 * A key file that cannot be used, naming the file and the entry (the policy file's error too).
 *
 * @since 0.1.0
 * @category errors
 */
export const AccessFileError = InternalPolicy.AccessFileError

/**
 * The type of {@link AccessFileError}.
 *
 * @since 0.1.0
 * @category errors
 */
export type AccessFileError = InternalPolicy.AccessFileError

/**
 * API keys from a key file's text: a JSON array of entries, or one entry a line (blank lines and
 * `#` comments skipped). An entry is `{"name": …, "key": …}` (at least 16 characters) or
 * `{"name": …, "sha256": <hex of the key's SHA-256>}`, with optional `allow`/`deny` rules
 * (`AccessPolicy`). Fails with {@link AccessFileError}; `source` names the text in it.
 *
 * @since 0.1.0
 * @category constructors
 */
export const apiKeys: (text: string, source: string) => Effect.Effect<ReadonlyArray<ApiKey>, AccessFileError> =
  ApiKeys.parse

/**
 * API keys from a key file (see {@link apiKeys}); a file that cannot be read is an {@link AccessFileError} too.
 *
 * @since 0.1.0
 * @category constructors
 */
export const apiKeysFromFile = (
  path: string
): Effect.Effect<ReadonlyArray<ApiKey>, AccessFileError, FileSystem.FileSystem> =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => fs.readFileString(path)).pipe(
    Effect.mapError((error) => new InternalPolicy.AccessFileError({ source: path, reason: error.message })),
    Effect.flatMap((text) => ApiKeys.parse(text, path))
  )

/**
 * How the gateway checks OAuth access tokens: its resource URI, the authorization server's issuer,
 * its JWKS and/or introspection endpoint, the audience (default: the resource) and required scopes.
 *
 * @since 0.1.0
 * @category models
 */
export type OAuthOptions = OAuthResource.Options

/**
 * The gateway's checks as a resource server, made by {@link oauth}.
 *
 * @since 0.1.0
 * @category models
 */
export type OAuthVerifier = OAuthResource.Verifier

/**
 * OAuth options that cannot work (a URL that is not one, neither a JWKS nor introspection).
 *
 * @since 0.1.0
 * @category errors
 */
export const OAuthConfigError = OAuthResource.OAuthConfigError

/**
 * The type of {@link OAuthConfigError}.
 *
 * @since 0.1.0
 * @category errors
 */
export type OAuthConfigError = OAuthResource.OAuthConfigError

/**
 * The resource server of `options`, for the server's `oauth` option; introspection uses the
 * platform's `HttpClient`. Fails with {@link OAuthConfigError}.
 *
 * @since 0.1.0
 * @category constructors
 */
export const oauth: (options: OAuthOptions) => Effect.Effect<OAuthVerifier, OAuthConfigError, HttpClient.HttpClient> =
  OAuthResource.make
