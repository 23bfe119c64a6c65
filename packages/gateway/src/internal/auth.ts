/**
 * Who is calling, from a request's `Authorization: Bearer …`: the gateway's one shared token, an
 * API key of the key file (`apiKeys.ts`), or an OAuth access token (`oauthResource.ts`), tried in
 * that order. A gateway with none of them asks for nothing: every caller is anonymous. A refusal is
 * the HTTP answer itself: 401 with a challenge (naming the Protected Resource Metadata when OAuth is
 * on; `error="invalid_token"` when a token was presented), 403 for missing scopes, 503 when the
 * authorization server cannot be asked.
 */
import { JsonRpc } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as ApiKeys from "./apiKeys.js"
import type * as OAuthResource from "./oauthResource.js"
import * as Principal from "./principal.js"
import * as Reply from "./reply.js"

/** The credentials a gateway accepts. */
export interface Credentials {
  /** The one shared token (its caller is the principal `token`). */
  readonly token?: string | undefined
  /** Callers' API keys. */
  readonly apiKeys?: ReadonlyArray<ApiKeys.ApiKey> | undefined
  /** OAuth access tokens, checked as a resource server. */
  readonly oauth?: OAuthResource.Verifier | undefined
}

const encoder = new TextEncoder()

/** Whether `given` is `expected`, in a time that does not depend on where they differ. */
export const sameSecret = (given: string, expected: string): boolean => {
  const a = encoder.encode(given)
  const b = encoder.encode(expected)
  let difference = a.length ^ b.length
  for (let index = 0; index < b.length; index++) difference |= (a[index] ?? 0) ^ (b[index] ?? 0)
  return difference === 0
}

/** The credentials of an `Authorization: Bearer …` header (the scheme in any case, RFC 9110 §11.1); "" otherwise. */
export const bearerOf = (authorization: string | undefined): string => {
  const match = authorization === undefined ? null : /^bearer (.*)$/i.exec(authorization)
  return match?.[1] ?? ""
}

/** Whether any credentials are asked for. */
export const required = (credentials: Credentials): boolean =>
  credentials.token !== undefined ||
  (credentials.apiKeys !== undefined && credentials.apiKeys.length > 0) ||
  credentials.oauth !== undefined

const unauthorized = (challenge: string) =>
  Reply.refuse(401, JsonRpc.ErrorCode.InvalidRequest, "Unauthorized", { "www-authenticate": challenge })

/** The answer to a refused OAuth token. */
const refusedBy = (oauth: OAuthResource.Verifier, refusal: OAuthResource.Refusal): Reply.Reply => {
  switch (refusal._tag) {
    case "InvalidToken":
      return unauthorized(oauth.challenge(refusal))
    case "InsufficientScope":
      return Reply.refuse(403, JsonRpc.ErrorCode.InvalidRequest, "Forbidden: insufficient scope", {
        "www-authenticate": oauth.challenge(refusal)
      })
    case "VerifierUnavailable":
      return Reply.refuse(503, JsonRpc.ErrorCode.InternalError, `Service Unavailable: ${refusal.reason}`, {
        "retry-after": "5"
      })
  }
}

/** The principal a request's `Authorization` header is, or the answer that refuses it. */
export const authenticate = (
  credentials: Credentials,
  authorization: string | undefined
): Effect.Effect<Principal.Principal, Reply.Reply> =>
  Effect.gen(function* () {
    if (!required(credentials)) return Principal.anonymous
    const presented = bearerOf(authorization)
    const oauth = credentials.oauth
    if (presented === "") return yield* Effect.fail(unauthorized(oauth?.challenge() ?? "Bearer"))
    if (credentials.token !== undefined && sameSecret(presented, credentials.token)) return Principal.sharedToken
    const keyed =
      credentials.apiKeys === undefined ? undefined : yield* ApiKeys.identify(credentials.apiKeys, presented)
    if (keyed !== undefined) return keyed
    if (oauth === undefined) return yield* Effect.fail(unauthorized(`Bearer error="invalid_token"`))
    return yield* Effect.mapError(oauth.verify(presented), (refusal) => refusedBy(oauth, refusal))
  }).pipe(Effect.withSpan("Gateway.authenticate"))
