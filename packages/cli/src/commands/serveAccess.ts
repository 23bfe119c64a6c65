/**
 * Who may call `effect-mcp serve --port`, and what each caller may do: the options that turn on API
 * keys (`--api-keys FILE`), the OAuth resource server (`--oauth-issuer`, `--oauth-jwks`,
 * `--oauth-introspection`, `--oauth-resource`, `--oauth-audience`, `--oauth-scope`) and a policy
 * (`--policy FILE`), read into the gateway's HTTP options. Secrets come from the environment
 * (`EFFECT_MCP_OAUTH_CLIENT_ID`/`_SECRET` for introspection; `EFFECT_MCP_GATEWAY_TOKEN` stays the
 * one shared token); a file or an option that cannot work is a usage error saying why.
 */
import * as Options from "@effect/cli/Options"
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as HttpClient from "@effect/platform/HttpClient"
import { AccessPolicy, Authentication, type NodeStreamableHttpServer } from "@effect-mcp/gateway"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { UsageError } from "../CliError.js"

/** An option given at most once. */
const optional = (option: Options.Options<string>, description: string) =>
  option.pipe(Options.withDescription(description), Options.optional)

/** The access options of `serve`. */
export const options = {
  apiKeys: optional(
    Options.file("api-keys"),
    'With --port: callers\' API keys, sent as bearer tokens: JSON lines (or a JSON array) of {"name", "key"} or {"name", "sha256"}, with optional "allow"/"deny" rules'
  ),
  policy: optional(
    Options.file("policy"),
    "With --port: what each caller (by name) may see and how often it may call: a JSON policy file (allow/deny by server and name, requests and tools limits)"
  ),
  oauthIssuer: optional(
    Options.text("oauth-issuer"),
    "With --port: accept OAuth access tokens of this authorization server (its issuer URL), as an OAuth 2.1 resource server"
  ),
  oauthJwks: optional(
    Options.text("oauth-jwks"),
    "The authorization server's JWKS URL: JWT access tokens are verified with its keys"
  ),
  oauthIntrospection: optional(
    Options.text("oauth-introspection"),
    "The authorization server's introspection endpoint (RFC 7662), with EFFECT_MCP_OAUTH_CLIENT_ID and EFFECT_MCP_OAUTH_CLIENT_SECRET"
  ),
  oauthResource: optional(
    Options.text("oauth-resource"),
    "This gateway's canonical URI as clients reach it (e.g. https://mcp.example.com/mcp): its Protected Resource Metadata's resource, and the audience tokens must name"
  ),
  oauthAudience: optional(
    Options.text("oauth-audience"),
    "The audience tokens must name, when it is not the resource URI"
  ),
  oauthScope: Options.text("oauth-scope").pipe(
    Options.withDescription("A scope every token must grant (repeat for more; 403 insufficient_scope otherwise)"),
    Options.repeated
  )
}

/** The values of {@link options}. */
export interface Flags {
  readonly apiKeys: Option.Option<string>
  readonly policy: Option.Option<string>
  readonly oauthIssuer: Option.Option<string>
  readonly oauthJwks: Option.Option<string>
  readonly oauthIntrospection: Option.Option<string>
  readonly oauthResource: Option.Option<string>
  readonly oauthAudience: Option.Option<string>
  readonly oauthScope: ReadonlyArray<string>
}

/** What the flags ask for, to refuse them on stdio (which has no callers to tell apart). */
export const given = (flags: Flags): ReadonlyArray<string> => [
  ...(Option.isSome(flags.apiKeys) ? ["--api-keys"] : []),
  ...(Option.isSome(flags.policy) ? ["--policy"] : []),
  ...(Option.isSome(flags.oauthIssuer) ? ["--oauth-issuer"] : [])
]

/** The gateway's HTTP options for who may call and what each may do. */
export type Access = Pick<NodeStreamableHttpServer.Options, "apiKeys" | "oauth" | "policy">

const usage = (error: { readonly message: string }) => new UsageError({ reason: error.message })

/** The OAuth resource server the flags describe, if any. */
const oauthOf = (flags: Flags) =>
  Effect.gen(function* () {
    const issuer = Option.getOrUndefined(flags.oauthIssuer)
    const dependent = (
      [
        ["--oauth-jwks", Option.isSome(flags.oauthJwks)],
        ["--oauth-introspection", Option.isSome(flags.oauthIntrospection)],
        ["--oauth-resource", Option.isSome(flags.oauthResource)],
        ["--oauth-audience", Option.isSome(flags.oauthAudience)],
        ["--oauth-scope", flags.oauthScope.length > 0]
      ] as const
    ).flatMap(([flag, isGiven]) => (isGiven ? [flag] : []))
    if (issuer === undefined) {
      if (dependent.length === 0) return undefined
      return yield* new UsageError({ reason: `${dependent.join(", ")} needs --oauth-issuer` })
    }
    if (Option.isNone(flags.oauthResource)) {
      return yield* new UsageError({
        reason:
          "--oauth-issuer needs --oauth-resource, this gateway's URI as clients reach it (e.g. https://mcp.example.com/mcp)"
      })
    }
    const introspection = yield* Option.match(flags.oauthIntrospection, {
      onNone: () => Effect.succeed(undefined),
      onSome: (url) =>
        Effect.map(
          Config.all({
            clientId: Config.string("EFFECT_MCP_OAUTH_CLIENT_ID"),
            clientSecret: Config.redacted("EFFECT_MCP_OAUTH_CLIENT_SECRET")
          }),
          (credentials) => ({ url, ...credentials })
        ).pipe(
          Effect.mapError(
            () =>
              new UsageError({
                reason: "--oauth-introspection needs EFFECT_MCP_OAUTH_CLIENT_ID and EFFECT_MCP_OAUTH_CLIENT_SECRET"
              })
          )
        )
    })
    return yield* Authentication.oauth({
      issuer,
      resource: flags.oauthResource.value,
      ...(Option.isSome(flags.oauthAudience) ? { audience: flags.oauthAudience.value } : {}),
      ...(Option.isSome(flags.oauthJwks) ? { jwksUrl: flags.oauthJwks.value } : {}),
      ...(introspection === undefined ? {} : { introspection }),
      requiredScopes: flags.oauthScope
    }).pipe(Effect.mapError(usage))
  })

/** The gateway's HTTP options the flags ask for; a file or option that cannot work is a {@link UsageError}. */
export const read = (flags: Flags): Effect.Effect<Access, UsageError, FileSystem.FileSystem | HttpClient.HttpClient> =>
  Effect.gen(function* () {
    const apiKeys = Option.isSome(flags.apiKeys)
      ? yield* Authentication.apiKeysFromFile(flags.apiKeys.value).pipe(Effect.mapError(usage))
      : undefined
    const policy = Option.isSome(flags.policy)
      ? yield* AccessPolicy.fromFile(flags.policy.value, apiKeys).pipe(Effect.mapError(usage))
      : undefined
    const oauth = yield* oauthOf(flags)
    return {
      ...(apiKeys === undefined ? {} : { apiKeys }),
      ...(policy === undefined ? {} : { policy }),
      ...(oauth === undefined ? {} : { oauth })
    }
  })
