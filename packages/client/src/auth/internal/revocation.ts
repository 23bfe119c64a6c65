/**
 * Token revocation (RFC 7009): the authorization server's `revocation_endpoint` from its
 * metadata, then each token POSTed there with its `token_type_hint`, authenticated as the
 * client it was issued to. The refresh token goes first: revoking it may end the access
 * tokens issued with it (§2.1).
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { clientAuthentication } from "../ClientAuthentication.js"
import * as Discovery from "../Discovery.js"
import { AuthorizationServerMetadata, authorizationServerMetadataUrls, sameIssuer } from "../Metadata.js"
import type { StoredTokens } from "../TokenStore.js"
import { firstDocument, postForm } from "./oauthHttp.js"
import { issuedTo } from "./refreshToken.js"
import { type FlowContext, initial } from "./state.js"

/** Which token: the `token_type_hint` it is sent with. */
export type TokenKind = "refresh_token" | "access_token"

/** What became of one token: revoked, or why not. */
export interface TokenRevocation {
  readonly token: TokenKind
  readonly revoked: boolean
  /** Why it was not (the authorization server's answer, or the failure to reach it). */
  readonly reason?: string
}

/** Revocation at one authorization server: not offered, impossible to attempt (its metadata unreadable), or each token's outcome. */
export type Revocation =
  | { readonly _tag: "NotOffered" }
  | { readonly _tag: "Unavailable"; readonly reason: string }
  | { readonly _tag: "Attempted"; readonly tokens: ReadonlyArray<TokenRevocation> }

/** Revokes `tokens` at `issuer` (the refresh token first); never fails: each outcome is in the answer. */
export const revoke = (ctx: FlowContext, issuer: string, tokens: StoredTokens): Effect.Effect<Revocation> =>
  Effect.gen(function* () {
    const found = yield* firstDocument(
      ctx.requester,
      "revocation",
      authorizationServerMetadataUrls(issuer),
      AuthorizationServerMetadata
    )
    if (Option.isNone(found)) return { _tag: "NotOffered" } as const
    const metadata = found.value.document
    if (!sameIssuer(metadata.issuer, issuer))
      return yield* ctx.failed("policy", `${found.value.url} names the issuer ${metadata.issuer}, not ${issuer}`)
    const endpoint = metadata.revocation_endpoint
    if (endpoint === undefined) return { _tag: "NotOffered" } as const
    yield* Discovery.ensureSecure(ctx.server, "revocation endpoint", endpoint)
    const authentication = clientAuthentication(yield* issuedTo(ctx, issuer, tokens, initial), metadata)
    const kinds: ReadonlyArray<readonly [TokenKind, string | undefined]> = [
      ["refresh_token", tokens.refresh_token],
      ["access_token", tokens.access_token]
    ]
    const outcomes = yield* Effect.forEach(
      kinds.filter((kind): kind is readonly [TokenKind, string] => kind[1] !== undefined),
      ([kind, token]) =>
        postForm(
          ctx.requester,
          "revocation",
          endpoint,
          { token, token_type_hint: kind, ...authentication.fields },
          authentication.headers
        ).pipe(
          Effect.either,
          Effect.map(
            Either.match({
              onLeft: (error): TokenRevocation => ({ token: kind, revoked: false, reason: error.reason }),
              onRight: (): TokenRevocation => ({ token: kind, revoked: true })
            })
          )
        )
    )
    return { _tag: "Attempted", tokens: outcomes } as const
  }).pipe(Effect.catchAll((error) => Effect.succeed({ _tag: "Unavailable", reason: error.reason } as const)))
