/**
 * Where to authorize, found from the server: protected resource metadata (RFC 9728) from the
 * challenge's `resource_metadata`, else the well-known URLs (path-specific, then root), whose
 * `resource` must cover the server's URL; then the authorization server's metadata at the
 * issuer's well-known URLs (RFC 8414, OpenID Connect, in the specification's order), whose
 * `issuer` must be the one named. A 2025-03-26 server has no resource metadata: its origin is
 * the authorization server, with the default endpoints when it has no metadata either.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { AuthorizationError } from "./AuthError.js"
import type * as Challenge from "./Challenge.js"
import { firstDocument, type Requester } from "./internal/oauthHttp.js"
import {
  type AuthorizationServerMetadata,
  authorizationServerMetadataUrls,
  canonicalResource,
  isSecure,
  ProtectedResourceMetadata,
  resourceCovers,
  resourceMetadataUrls,
  AuthorizationServerMetadata as ServerMetadataSchema,
  sameIssuer
} from "./Metadata.js"

/** Where to authorize, as discovered. */
export interface Discovered {
  readonly issuer: string
  /** The resource tokens are asked for (RFC 8707). */
  readonly resource: string
  readonly metadata: AuthorizationServerMetadata
  /** The resource's `scopes_supported`, when it has metadata. */
  readonly resourceScopes: ReadonlyArray<string> | undefined
  /** The authorization server published no metadata: `metadata` is the 2025-03-26 defaults, assumed. */
  readonly assumed?: boolean
}

/** Fails unless the URL is HTTPS or on this machine. */
export const ensureSecure = (server: string, what: string, url: string | undefined) =>
  url === undefined || isSecure(url)
    ? Effect.void
    : Effect.fail(
        new AuthorizationError({
          server,
          step: "policy",
          reason: `the ${what} ${url} is neither HTTPS nor on this machine; refused`
        })
      )

/** Discovers where the server at `serverUrl` wants its clients to authorize. */
export const discover = (
  requester: Requester,
  serverUrl: string,
  challenge: Challenge.Challenge["params"] | undefined
): Effect.Effect<Discovered, AuthorizationError> => {
  const origin = new URL(serverUrl).origin
  const failed = (step: "discovery" | "policy", reason: string) =>
    new AuthorizationError({ server: requester.server, step, reason })
  return Effect.gen(function* () {
    const metadataUrl = challenge?.resource_metadata
    const prm = yield* firstDocument(
      requester,
      "discovery",
      metadataUrl === undefined ? resourceMetadataUrls(serverUrl) : [metadataUrl],
      ProtectedResourceMetadata
    )
    if (Option.isSome(prm)) {
      const document = prm.value.document
      if (!resourceCovers(document.resource, serverUrl))
        return yield* failed(
          "policy",
          `the protected resource metadata is for ${document.resource}, not for ${canonicalResource(serverUrl)}`
        )
      const issuer = document.authorization_servers?.[0]
      if (issuer === undefined) return yield* failed("discovery", `${prm.value.url} names no authorization server`)
      yield* ensureSecure(requester.server, "authorization server", issuer)
      const found = yield* firstDocument(
        requester,
        "discovery",
        authorizationServerMetadataUrls(issuer),
        ServerMetadataSchema
      )
      if (Option.isNone(found))
        return yield* failed("discovery", `no authorization server metadata was found for ${issuer}`)
      if (!sameIssuer(found.value.document.issuer, issuer))
        return yield* failed(
          "policy",
          `the authorization server metadata at ${found.value.url} names the issuer ${found.value.document.issuer}, not ${issuer}`
        )
      return {
        issuer: found.value.document.issuer,
        resource: document.resource,
        metadata: found.value.document,
        resourceScopes: document.scopes_supported
      }
    }
    // 2025-03-26: no protected resource metadata; the server's origin is the authorization server.
    const legacy = yield* firstDocument(
      requester,
      "discovery",
      [`${origin}/.well-known/oauth-authorization-server`],
      ServerMetadataSchema
    )
    if (Option.isSome(legacy) && !sameIssuer(legacy.value.document.issuer, origin))
      return yield* failed(
        "policy",
        `the authorization server metadata names the issuer ${legacy.value.document.issuer}, not ${origin}`
      )
    return {
      issuer: origin,
      resource: canonicalResource(serverUrl),
      metadata: Option.getOrElse(
        Option.map(legacy, (found) => found.document),
        (): AuthorizationServerMetadata => ({
          issuer: origin,
          authorization_endpoint: `${origin}/authorize`,
          token_endpoint: `${origin}/token`,
          registration_endpoint: `${origin}/register`,
          code_challenge_methods_supported: ["S256"]
        })
      ),
      resourceScopes: undefined,
      ...(Option.isNone(legacy) ? { assumed: true } : {})
    }
  })
}
