/**
 * The client credentials grant (RFC 6749 §4.4) for a machine client, authenticated by its
 * secret or by a JWT assertion its private key signs (`private_key_jwt`, RFC 7523 §2.2).
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type { AuthorizationError } from "../AuthError.js"
import { type Authentication, clientAuthentication } from "../ClientAuthentication.js"
import { randomToken, signJwt } from "../Crypto.js"
import type { Discovered } from "../Discovery.js"
import type { MachineCredentials } from "../OAuthOptions.js"
import type { FlowContext } from "./state.js"
import * as TokenEndpoint from "./tokenEndpoint.js"

const CLIENT_ASSERTION = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

/** How a machine client with a secret or a private key authenticates. */
const authentication = (
  ctx: FlowContext,
  discovered: Discovered,
  credentials: Extract<MachineCredentials, { readonly _tag: "Secret" | "PrivateKeyJwt" }>
): Effect.Effect<Authentication, AuthorizationError> => {
  if (credentials._tag === "Secret")
    return Effect.succeed(
      clientAuthentication(
        { client_id: credentials.clientId, client_secret: credentials.clientSecret },
        discovered.metadata
      )
    )
  return Effect.gen(function* () {
    const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
    const assertion = yield* signJwt(
      {
        iss: credentials.clientId,
        sub: credentials.clientId,
        aud: discovered.metadata.issuer,
        iat: now,
        exp: now + 300,
        jti: randomToken(16)
      },
      credentials.privateKeyPem,
      credentials.algorithm ?? "ES256"
    ).pipe(Effect.mapError((error) => ctx.failed("token", error.reason, { cause: error })))
    return {
      headers: {},
      fields: { client_id: credentials.clientId, client_assertion_type: CLIENT_ASSERTION, client_assertion: assertion }
    }
  })
}

/** Tokens for the machine client itself, for `scope`. */
export const grant = (
  ctx: FlowContext,
  discovered: Discovered,
  credentials: Extract<MachineCredentials, { readonly _tag: "Secret" | "PrivateKeyJwt" }>,
  scope: string | undefined,
  nonce: string | undefined
): Effect.Effect<TokenEndpoint.Grant, AuthorizationError> =>
  Effect.flatMap(authentication(ctx, discovered, credentials), (auth) =>
    TokenEndpoint.request(
      ctx,
      discovered,
      "token",
      credentials.clientId,
      { grant_type: "client_credentials", scope },
      auth,
      nonce
    )
  )
