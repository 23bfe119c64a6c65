/**
 * The gateway as an OAuth 2.1 resource server (MCP authorization, 2025-11-25 and 2026-07-28): its
 * Protected Resource Metadata (RFC 9728) names its authorization server, and a bearer token is
 * accepted only when that server issued it for this resource (RFC 8707's audience), it has not
 * expired and it grants the required scopes. A JWT is verified against the server's JWKS (`jose`:
 * fetched on first use, cached, fetched again for a key id it does not know, so keys can rotate);
 * an opaque token (or any, without a JWKS) is asked of the introspection endpoint (RFC 7662). The
 * claims and the introspection answer are decoded with Schemas. Refusals are what RFC 6750 asks:
 * 401 with `error="invalid_token"`, 403 with `error="insufficient_scope"`, each challenge naming the
 * metadata (`resource_metadata`).
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Cache from "effect/Cache"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as ParseResult from "effect/ParseResult"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { createRemoteJWKSet, errors, jwtVerify } from "jose"
import type { Principal } from "./principal.js"

/** How the gateway checks access tokens. */
export interface Options {
  /** The resource's canonical URI (the MCP endpoint, e.g. `https://mcp.example.com/mcp`): the metadata's `resource`. */
  readonly resource: string
  /** The authorization server's issuer: tokens must name it (`iss`); the metadata lists it. */
  readonly issuer: string
  /** The audience tokens must name (`aud`). Default: the resource. */
  readonly audience?: string
  /** The authorization server's JWKS: JWTs are verified with its keys. */
  readonly jwksUrl?: string
  /** The introspection endpoint (RFC 7662) and the gateway's client credentials there. */
  readonly introspection?: {
    readonly url: string
    readonly clientId: string
    readonly clientSecret: Redacted.Redacted<string>
    /**
     * How long an active answer is trusted before the endpoint is asked again (never past the
     * token's `exp`); refusals and failures are not kept. `0` asks for every request. Default: 60 seconds.
     */
    readonly cacheFor?: Duration.DurationInput
    /** How many tokens' answers are kept at most. Default: 10,000. */
    readonly cacheCapacity?: number
  }
  /** Scopes every token must grant (403 `insufficient_scope` otherwise). Default: none. */
  readonly requiredScopes?: ReadonlyArray<string>
  /** The scopes the metadata lists. Default: the required ones. */
  readonly scopesSupported?: ReadonlyArray<string>
  /** The signature algorithms accepted. Default: jose's (any asymmetric one the key allows). */
  readonly algorithms?: ReadonlyArray<string>
  /** How long a JWKS fetch may take. Default: 5 seconds. */
  readonly jwksTimeout?: Duration.DurationInput
  /**
   * The least time between two JWKS fetches (a token whose key id the cached keys lack fetches them
   * again, so rotated keys are found): a flood of such tokens does not flood the server. Default: 30 seconds.
   */
  readonly jwksCooldown?: Duration.DurationInput
}

/** Options that cannot work: a URL that is not one, neither a JWKS nor introspection. */
export class OAuthConfigError extends Data.TaggedError("OAuthConfigError")<{ readonly reason: string }> {
  override get message(): string {
    return `OAuth resource server: ${this.reason}`
  }
}

/** The token is missing, malformed, expired, not for this resource, or not the issuer's (401). */
export class InvalidToken extends Data.TaggedError("InvalidToken")<{ readonly reason: string }> {}

/** The token lacks scopes the gateway requires (403). */
export class InsufficientScope extends Data.TaggedError("InsufficientScope")<{
  readonly required: ReadonlyArray<string>
}> {}

/** The authorization server could not be asked (its JWKS or introspection endpoint failed): 503. */
export class VerifierUnavailable extends Data.TaggedError("VerifierUnavailable")<{ readonly reason: string }> {}

/** Why a token was refused. */
export type Refusal = InvalidToken | InsufficientScope | VerifierUnavailable

/** The Protected Resource Metadata document (RFC 9728 §2). */
export interface Metadata {
  readonly resource: string
  readonly authorization_servers: ReadonlyArray<string>
  readonly scopes_supported?: ReadonlyArray<string>
  readonly bearer_methods_supported: ReadonlyArray<string>
}

/** The resource server's checks and documents. */
export interface Verifier {
  readonly metadata: Metadata
  /** Where the metadata is served (RFC 9728 §3.1: the well-known path inserted before the resource's path). */
  readonly metadataUrl: string
  /** The paths the metadata is served at: the resource's path-suffixed form and the root form. */
  readonly metadataPaths: ReadonlyArray<string>
  /** The principal a token is, or why it is refused. */
  readonly verify: (token: string) => Effect.Effect<Principal, Refusal>
  /** The `WWW-Authenticate` value for a refusal, or for a request with no token. */
  readonly challenge: (refusal?: Refusal) => string
}

/** The claims the gateway reads from an access token; others are ignored. */
const Claims = Schema.Struct({
  sub: Schema.String,
  scope: Schema.optional(Schema.String),
  scp: Schema.optional(Schema.Union(Schema.String, Schema.Array(Schema.String)))
})

/** An active token as its introspection answer vouched for it, and for how long (milliseconds) to trust that. */
interface Trusted {
  readonly subject: string
  readonly scopes: ReadonlyArray<string>
  readonly trustFor: number
}

/** An introspection answer (RFC 7662 §2.2). */
const Introspection = Schema.Struct({
  active: Schema.Boolean,
  scope: Schema.optional(Schema.String),
  sub: Schema.optional(Schema.String),
  client_id: Schema.optional(Schema.String),
  aud: Schema.optional(Schema.Union(Schema.String, Schema.Array(Schema.String))),
  iss: Schema.optional(Schema.String),
  exp: Schema.optional(Schema.Number)
})

const decodeClaims = Schema.decodeUnknown(Claims)
const decodeIntrospection = HttpClientResponse.schemaBodyJson(Introspection)

const scopesOf = (scope: string | undefined, scp?: string | ReadonlyArray<string>): ReadonlyArray<string> => [
  ...(scope ?? "").split(" ").filter((part) => part !== ""),
  ...(scp === undefined ? [] : typeof scp === "string" ? scp.split(" ").filter((part) => part !== "") : scp)
]

const urlOf = (text: string, what: string): Effect.Effect<URL, OAuthConfigError> =>
  Effect.try({
    try: () => new URL(text),
    catch: () => new OAuthConfigError({ reason: `${what} is not a URL: ${text}` })
  }).pipe(
    Effect.filterOrFail(
      (url) => (url.protocol === "https:" || url.protocol === "http:") && url.hash === "",
      () => new OAuthConfigError({ reason: `${what} must be an http(s) URL without a fragment: ${text}` })
    )
  )

/** A quoted-string of a challenge parameter (RFC 9110 §5.6.4). */
const quoted = (text: string): string => `"${text.replace(/["\\]/g, "\\$&")}"`

/** Why jose refused a JWT, as the challenge's description. */
const reasonOf = (cause: unknown): Refusal => {
  if (cause instanceof errors.JWTExpired) return new InvalidToken({ reason: "the token has expired" })
  if (cause instanceof errors.JWTClaimValidationFailed) {
    const claim = cause.claim === "aud" ? "audience" : cause.claim === "iss" ? "issuer" : `claim ${cause.claim}`
    return new InvalidToken({ reason: `the token's ${claim} is not accepted (${cause.reason})` })
  }
  if (cause instanceof errors.JWKSTimeout || !(cause instanceof errors.JOSEError)) {
    return new VerifierUnavailable({
      reason: `the JWKS could not be fetched: ${cause instanceof Error ? cause.message : String(cause)}`
    })
  }
  if (cause instanceof errors.JWKSNoMatchingKey) return new InvalidToken({ reason: "no key of the issuer signed it" })
  if (cause instanceof errors.JWSSignatureVerificationFailed) {
    return new InvalidToken({ reason: "the signature does not verify" })
  }
  return new InvalidToken({ reason: "the token is malformed" })
}

/**
 * The verifier of `options`; fails with {@link OAuthConfigError} for options that cannot work.
 * Introspection goes through the platform's `HttpClient`.
 */
export const make = (options: Options): Effect.Effect<Verifier, OAuthConfigError, HttpClient.HttpClient> =>
  Effect.gen(function* () {
    const resource = yield* urlOf(options.resource, "the resource")
    yield* urlOf(options.issuer, "the issuer")
    if (options.jwksUrl === undefined && options.introspection === undefined) {
      return yield* new OAuthConfigError({ reason: "give a JWKS URL or an introspection endpoint (or both)" })
    }
    const jwksUrl = options.jwksUrl === undefined ? undefined : yield* urlOf(options.jwksUrl, "the JWKS URL")
    if (options.introspection !== undefined) yield* urlOf(options.introspection.url, "the introspection endpoint")
    const client = yield* HttpClient.HttpClient
    const audience = options.audience ?? options.resource
    const required = options.requiredScopes ?? []
    const suffix = resource.pathname === "/" ? "" : resource.pathname
    const metadataPath = `/.well-known/oauth-protected-resource${suffix}`
    const metadataUrl = `${resource.origin}${metadataPath}`
    const supported = options.scopesSupported ?? required
    const metadata: Metadata = {
      resource: options.resource,
      authorization_servers: [options.issuer],
      ...(supported.length > 0 ? { scopes_supported: supported } : {}),
      bearer_methods_supported: ["header"]
    }
    const jwks =
      jwksUrl === undefined
        ? undefined
        : createRemoteJWKSet(jwksUrl, {
            timeoutDuration: Duration.toMillis(options.jwksTimeout ?? "5 seconds"),
            cooldownDuration: Duration.toMillis(options.jwksCooldown ?? "30 seconds")
          })

    /** The principal of verified claims, once its scopes are enough. */
    const principalOf = (subject: string, scopes: ReadonlyArray<string>) => {
      const missing = required.filter((scope) => !scopes.includes(scope))
      return missing.length > 0
        ? Effect.fail(new InsufficientScope({ required }))
        : Effect.succeed<Principal>({ id: subject, kind: "oauth", scopes, issuer: options.issuer })
    }

    const viaJwks = (token: string, keys: NonNullable<typeof jwks>) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const verified = yield* Effect.tryPromise({
          try: () =>
            jwtVerify(token, keys, {
              issuer: options.issuer,
              audience,
              requiredClaims: ["exp", "sub"],
              currentDate: new Date(now),
              ...(options.algorithms === undefined ? {} : { algorithms: [...options.algorithms] })
            }),
          catch: reasonOf
        })
        const claims = yield* Effect.mapError(
          decodeClaims(verified.payload),
          (error) =>
            new InvalidToken({ reason: `the token's claims: ${ParseResult.TreeFormatter.formatErrorSync(error)}` })
        )
        return yield* principalOf(claims.sub, scopesOf(claims.scope, claims.scp))
      })

    /** What the endpoint says of a token: who, with which scopes, for how long to trust it; or why not. */
    const introspect = (
      token: string,
      endpoint: NonNullable<Options["introspection"]>
    ): Effect.Effect<Either.Either<Trusted, InvalidToken>, VerifierUnavailable> =>
      Effect.gen(function* () {
        const answer = yield* HttpClientRequest.post(endpoint.url).pipe(
          HttpClientRequest.acceptJson,
          HttpClientRequest.basicAuth(endpoint.clientId, Redacted.value(endpoint.clientSecret)),
          HttpClientRequest.bodyUrlParams({ token, token_type_hint: "access_token" }),
          client.execute,
          Effect.flatMap(HttpClientResponse.filterStatusOk),
          Effect.flatMap(decodeIntrospection),
          Effect.scoped,
          Effect.mapError(
            (error) => new VerifierUnavailable({ reason: `the introspection endpoint failed: ${error.message}` })
          )
        )
        const now = yield* Clock.currentTimeMillis
        const audiences = answer.aud === undefined ? [] : typeof answer.aud === "string" ? [answer.aud] : answer.aud
        const subject = answer.sub ?? answer.client_id
        const refusal = !answer.active
          ? "the token is not active"
          : answer.exp !== undefined && answer.exp * 1000 <= now
            ? "the token has expired"
            : answer.iss !== undefined && answer.iss !== options.issuer
              ? "the token's issuer is not accepted"
              : !audiences.includes(audience)
                ? "the token's audience is not accepted"
                : subject === undefined
                  ? "the token names no subject"
                  : undefined
        if (refusal !== undefined || subject === undefined) {
          return Either.left(new InvalidToken({ reason: refusal ?? "the token names no subject" }))
        }
        const trustFor = Math.min(cacheFor, answer.exp === undefined ? cacheFor : answer.exp * 1000 - now)
        return Either.right({ subject, scopes: scopesOf(answer.scope), trustFor })
      })
    const cacheFor = Duration.toMillis(options.introspection?.cacheFor ?? "60 seconds")
    // Active answers are kept (an endpoint asked once per token and minute, not per request);
    // refusals and failures are asked again.
    const endpoint = options.introspection
    const introspected =
      endpoint === undefined
        ? undefined
        : yield* Cache.makeWith({
            capacity: endpoint.cacheCapacity ?? 10_000,
            lookup: (token: string) => introspect(token, endpoint),
            timeToLive: (exit) =>
              Exit.isSuccess(exit) && Either.isRight(exit.value)
                ? Duration.millis(exit.value.right.trustFor)
                : Duration.zero
          })
    const viaIntrospection = (
      token: string,
      cache: NonNullable<typeof introspected>
    ): Effect.Effect<Principal, InvalidToken | InsufficientScope | VerifierUnavailable> =>
      Effect.flatMap(
        // Kept for no time is not kept at all: the cache would still hand it out within its millisecond.
        Effect.onExit(cache.get(token), (exit) =>
          Exit.isSuccess(exit) && Either.isRight(exit.value) && exit.value.right.trustFor > 0
            ? Effect.void
            : cache.invalidate(token)
        ),
        (answer) =>
          Either.isLeft(answer)
            ? Effect.fail<InvalidToken | InsufficientScope>(answer.left)
            : principalOf(answer.right.subject, answer.right.scopes)
      )

    const looksLikeJwt = (token: string) => token.split(".").length === 3

    return {
      metadata,
      metadataUrl,
      metadataPaths: [metadataPath, "/.well-known/oauth-protected-resource"],
      verify: (token) =>
        jwks !== undefined && (looksLikeJwt(token) || options.introspection === undefined)
          ? viaJwks(token, jwks)
          : introspected !== undefined
            ? viaIntrospection(token, introspected)
            : Effect.fail(new InvalidToken({ reason: "the token is malformed" })),
      challenge: (refusal) => {
        const parameters: Array<string> = []
        if (refusal?._tag === "InvalidToken") {
          parameters.push(`error="invalid_token"`, `error_description=${quoted(refusal.reason)}`)
        }
        if (refusal?._tag === "InsufficientScope") {
          parameters.push(`error="insufficient_scope"`, `scope=${quoted(refusal.required.join(" "))}`)
        } else if (required.length > 0) parameters.push(`scope=${quoted(required.join(" "))}`)
        parameters.push(`resource_metadata=${quoted(metadataUrl)}`)
        return `Bearer ${parameters.join(", ")}`
      }
    }
  })
