/**
 * How a client authorizes with an MCP server's authorization server: who it is (a configured
 * client, a Client ID Metadata Document URL, or one it registers), or the machine credentials
 * it acts with instead of a user, and the flow's limits.
 */
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type { AssertionError } from "./AuthError.js"
import type { SigningAlgorithm } from "./Crypto.js"

/** A client registered with the authorization server beforehand (from configuration). */
export interface ClientCredentials {
  readonly clientId: string
  readonly clientSecret?: string
  /** How the client authenticates at the token endpoint. Default: from the server's metadata. */
  readonly tokenEndpointAuthMethod?: "client_secret_basic" | "client_secret_post" | "none"
}

/**
 * A token or assertion the host obtains (a workload identity JWT, an enterprise ID token),
 * fresh for each use; an effect that cannot obtain it fails with an `AssertionError`.
 */
export type Assertion = string | Effect.Effect<string, AssertionError>

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
