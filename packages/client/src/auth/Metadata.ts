/**
 * The OAuth documents the flow reads, as Schemas (unknown fields are ignored), and where to
 * look for them: protected resource metadata (RFC 9728) and authorization server metadata
 * (RFC 8414, OpenID Connect Discovery) at the well-known URLs in the order the MCP
 * specification gives, token and registration responses, and OAuth error bodies.
 */
import * as Schema from "effect/Schema"

const Strings = Schema.Array(Schema.String)

/** Protected resource metadata (RFC 9728). */
export const ProtectedResourceMetadata = Schema.Struct({
  resource: Schema.String,
  authorization_servers: Schema.optional(Strings),
  scopes_supported: Schema.optional(Strings),
  bearer_methods_supported: Schema.optional(Strings)
})

/** The type of {@link ProtectedResourceMetadata}. */
export type ProtectedResourceMetadata = typeof ProtectedResourceMetadata.Type

/** Authorization server metadata (RFC 8414; OpenID provider metadata is a superset). */
export const AuthorizationServerMetadata = Schema.Struct({
  issuer: Schema.String,
  authorization_endpoint: Schema.optional(Schema.String),
  token_endpoint: Schema.optional(Schema.String),
  registration_endpoint: Schema.optional(Schema.String),
  /** Where tokens are revoked (RFC 7009). */
  revocation_endpoint: Schema.optional(Schema.String),
  scopes_supported: Schema.optional(Strings),
  response_types_supported: Schema.optional(Strings),
  grant_types_supported: Schema.optional(Strings),
  code_challenge_methods_supported: Schema.optional(Strings),
  token_endpoint_auth_methods_supported: Schema.optional(Strings),
  client_id_metadata_document_supported: Schema.optional(Schema.Boolean),
  authorization_response_iss_parameter_supported: Schema.optional(Schema.Boolean),
  dpop_signing_alg_values_supported: Schema.optional(Strings)
})

/** The type of {@link AuthorizationServerMetadata}. */
export type AuthorizationServerMetadata = typeof AuthorizationServerMetadata.Type

/** A successful token response (RFC 6749 §5.1). */
export const TokenResponse = Schema.Struct({
  access_token: Schema.String,
  token_type: Schema.String,
  expires_in: Schema.optional(Schema.Number),
  refresh_token: Schema.optional(Schema.String),
  scope: Schema.optional(Schema.String)
})

/** The type of {@link TokenResponse}. */
export type TokenResponse = typeof TokenResponse.Type

/** A dynamic client registration response (RFC 7591 §3.2.1). */
export const RegistrationResponse = Schema.Struct({
  client_id: Schema.String,
  client_secret: Schema.optional(Schema.String),
  client_secret_expires_at: Schema.optional(Schema.Number),
  token_endpoint_auth_method: Schema.optional(Schema.String),
  redirect_uris: Schema.optional(Strings)
})

/** An OAuth error body (RFC 6749 §5.2). */
export const ErrorResponse = Schema.Struct({
  error: Schema.String,
  error_description: Schema.optional(Schema.String)
})

/** The URL without fragment and query, without a trailing slash unless it is the root: the canonical resource URI. */
export const canonicalResource = (url: string): string => {
  const parsed = new URL(url)
  const path = parsed.pathname === "/" ? "" : parsed.pathname.replace(/\/+$/, "")
  return `${parsed.protocol}//${parsed.host}${path}`
}

/** Where protected resource metadata may be, in order: path-specific, then root. */
export const resourceMetadataUrls = (serverUrl: string): ReadonlyArray<string> => {
  const url = new URL(serverUrl)
  const path = url.pathname.replace(/\/+$/, "")
  const root = `${url.origin}/.well-known/oauth-protected-resource`
  return path === "" ? [root] : [`${root}${path}`, root]
}

/** Where authorization server metadata may be for an issuer, in the specification's order. */
export const authorizationServerMetadataUrls = (issuer: string): ReadonlyArray<string> => {
  const url = new URL(issuer)
  const path = url.pathname.replace(/\/+$/, "")
  if (path === "")
    return [`${url.origin}/.well-known/oauth-authorization-server`, `${url.origin}/.well-known/openid-configuration`]
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}/.well-known/openid-configuration${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`
  ]
}

/** Whether a URL is on this machine (`localhost`, `127.0.0.0/8`, `::1`): the only places plain HTTP is allowed. */
export const isLoopback = (url: URL): boolean =>
  url.hostname === "localhost" ||
  url.hostname.endsWith(".localhost") ||
  /^127(\.\d{1,3}){3}$/.test(url.hostname) ||
  url.hostname === "[::1]"

/** Whether a URL may be used for authorization: HTTPS, or HTTP on loopback. */
export const isSecure = (url: string): boolean => {
  try {
    const parsed = new URL(url)
    return parsed.protocol === "https:" || (parsed.protocol === "http:" && isLoopback(parsed))
  } catch {
    return false
  }
}

/** Whether the resource named by protected resource metadata covers the server's URL (same origin, a path prefix). */
export const resourceCovers = (resource: string, serverUrl: string): boolean => {
  try {
    const declared = new URL(canonicalResource(resource))
    const server = new URL(canonicalResource(serverUrl))
    if (declared.origin !== server.origin) return false
    const path = declared.pathname === "/" ? "" : declared.pathname
    return server.pathname === path || server.pathname.startsWith(`${path}/`) || path === ""
  } catch {
    return false
  }
}

/** Issuer identifiers compare as strings, forgiving only a trailing slash. */
export const sameIssuer = (a: string, b: string): boolean => a.replace(/\/+$/, "") === b.replace(/\/+$/, "")
