/**
 * JWT-bearer grants (RFC 7523 §2.1): a workload identity JWT presented as the grant, or
 * enterprise-managed authorization, where the user's ID token is first exchanged at the
 * enterprise identity provider (RFC 8693) for an identity assertion grant (ID-JAG).
 */
import * as Effect from "effect/Effect"
import type { AuthorizationError } from "../AuthError.js"
import { clientAuthentication } from "../ClientAuthentication.js"
import * as Discovery from "../Discovery.js"
import { TokenResponse } from "../Metadata.js"
import type { Assertion, MachineCredentials } from "../OAuthOptions.js"
import { form, post } from "./oauthHttp.js"
import type { FlowContext } from "./state.js"
import * as TokenEndpoint from "./tokenEndpoint.js"

const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
const ID_JAG = "urn:ietf:params:oauth:token-type:id-jag"
const ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token"

/** A fresh assertion; one the host cannot obtain fails the `token` step, with its `AssertionError` as the cause. */
const assertionOf = (ctx: FlowContext, assertion: Assertion): Effect.Effect<string, AuthorizationError> =>
  typeof assertion === "string"
    ? Effect.succeed(assertion)
    : Effect.mapError(assertion, (error) => ctx.failed("token", error.message, { cause: error }))

/** The identity assertion grant for the user, from the enterprise identity provider. */
const identityAssertion = (
  ctx: FlowContext,
  discovered: Discovery.Discovered,
  idp: Extract<MachineCredentials, { readonly _tag: "IdJag" }>["identityProvider"],
  scope: string | undefined
) =>
  Effect.gen(function* () {
    yield* Discovery.ensureSecure(ctx.server, "identity provider token endpoint", idp.tokenEndpoint)
    const answer = yield* post(
      ctx.requester,
      "token",
      idp.tokenEndpoint,
      {
        form: form({
          grant_type: TOKEN_EXCHANGE,
          requested_token_type: ID_JAG,
          subject_token: yield* assertionOf(ctx, idp.idToken),
          subject_token_type: ID_TOKEN,
          audience: discovered.metadata.issuer,
          resource: discovered.resource,
          client_id: idp.clientId,
          scope
        })
      },
      TokenResponse
    )
    return answer.access_token
  })

/** Tokens for a JWT-bearer grant: the workload's JWT, or the ID-JAG the identity provider issues for the user. */
export const grant = (
  ctx: FlowContext,
  discovered: Discovery.Discovered,
  credentials: Extract<MachineCredentials, { readonly _tag: "JwtBearer" | "IdJag" }>,
  scope: string | undefined,
  nonce: string | undefined
): Effect.Effect<TokenEndpoint.Grant, AuthorizationError> =>
  Effect.gen(function* () {
    const assertion =
      credentials._tag === "JwtBearer"
        ? yield* assertionOf(ctx, credentials.assertion)
        : yield* identityAssertion(ctx, discovered, credentials.identityProvider, scope)
    const secret = credentials._tag === "IdJag" ? credentials.clientSecret : undefined
    return yield* TokenEndpoint.request(
      ctx,
      discovered,
      "token",
      credentials.clientId,
      { grant_type: JWT_BEARER, assertion, scope },
      clientAuthentication(
        { client_id: credentials.clientId, ...(secret === undefined ? {} : { client_secret: secret }) },
        discovered.metadata
      ),
      nonce
    )
  })
