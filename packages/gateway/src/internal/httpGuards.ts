/**
 * What every HTTP request of the gateway passes before its principal is known: the `Host` and
 * `Origin` checks, the path (the Protected Resource Metadata is answered here, publicly), CORS
 * preflights and the headers a configured origin's page may read; and, once the principal is
 * known, its request limit (429 with `Retry-After`).
 */
import { JsonRpc } from "@effect-mcp/protocol"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as GuardedHost from "./guardedHost.js"
import type * as OAuthResource from "./oauthResource.js"
import type * as Policy from "./policy.js"
import * as Principal from "./principal.js"
import * as RateLimit from "./rateLimit.js"
import * as Reply from "./reply.js"
import type * as StatelessRequest from "./statelessRequest.js"

/** The part of a request the guards read. */
export interface Guarded {
  readonly method: string
  readonly url: string
  readonly headers: StatelessRequest.Headers
}

/** The methods a cross-origin page may use. */
export const CORS_METHODS = "GET, POST, DELETE"
const CORS_HEADERS =
  "authorization, content-type, accept, mcp-session-id, mcp-protocol-version, last-event-id, mcp-method, mcp-name"
const CORS_EXPOSED = "mcp-session-id, mcp-protocol-version, www-authenticate, retry-after"

const loopbackOrigin = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/

/** `reply` with `headers` added. */
const withHeaders = (reply: Reply.Reply, headers: Reply.Headers): Reply.Reply => ({
  ...reply,
  headers: { ...reply.headers, ...headers }
})

/** The name of a `Host` header without its port (an IPv6 literal keeps its brackets), lower case. */
export const hostName = (host: string | undefined): string | undefined => {
  if (host === undefined || host === "") return undefined
  const match = /^(\[[^\]]*\]|[^:]*)(?::\d*)?$/.exec(host.trim().toLowerCase())
  return match?.[1]
}

/** What the guards allow. */
export interface GuardOptions {
  /** The endpoint's path. */
  readonly path: string
  /** The `Host` names answered to (any when none is given). */
  readonly allowedHosts?: ReadonlyArray<string> | undefined
  /** Origins allowed beside loopback ones. */
  readonly allowedOrigins?: ReadonlyArray<string> | undefined
  /** Origins whose pages may read the answers (CORS); allowed too. */
  readonly corsOrigins?: ReadonlyArray<string> | undefined
  /** The resource server, whose metadata is served. */
  readonly oauth?: OAuthResource.Verifier | undefined
}

/** The guards of a gateway's requests. */
export interface Guards {
  /** The answer for a request stopped before authentication (a refusal, the metadata, a preflight); `undefined`: go on. */
  readonly refusal: (request: Guarded) => Reply.Reply | undefined
  /** The reply made readable by the request's page, when its origin is a configured CORS origin. */
  readonly readable: (request: Guarded) => (reply: Reply.Reply) => Reply.Reply
}

/** The guards of `options`. */
export const make = (options: GuardOptions): Guards => {
  const { path, oauth } = options
  const hosts =
    options.allowedHosts === undefined ? undefined : new Set(options.allowedHosts.map((name) => name.toLowerCase()))
  const cors = new Set(options.corsOrigins ?? [])
  const allowed = new Set([...(options.allowedOrigins ?? []), ...cors])
  // The Protected Resource Metadata's paths: the root form, the resource's and the endpoint's path-suffixed forms.
  const metadataPaths = new Set(
    oauth === undefined ? [] : [...oauth.metadataPaths, `/.well-known/oauth-protected-resource${path}`]
  )

  const readable = (request: Guarded) => (reply: Reply.Reply) => {
    const origin = request.headers.origin
    if (origin === undefined || !cors.has(origin)) return reply
    return withHeaders(reply, {
      "access-control-allow-origin": origin,
      "access-control-expose-headers": CORS_EXPOSED,
      vary: "origin"
    })
  }

  /**
   * A preflight: 204 (after the origin and path checks, before the token, which a preflight never
   * carries), with what a configured origin may send; the page's own request is checked as any.
   */
  const preflight = (request: Guarded): Reply.Reply => {
    const origin = request.headers.origin
    const asked = request.headers["access-control-request-headers"]
    const answer = Reply.empty(204, { allow: `${CORS_METHODS}, OPTIONS` })
    if (origin === undefined || !cors.has(origin)) return answer
    // The page's Mcp-Param-* headers (2026-07-28) are its tool's: allowed as asked.
    const params = (asked ?? "")
      .split(",")
      .map((name) => name.trim().toLowerCase())
      .filter((name) => name.startsWith("mcp-param-"))
    return withHeaders(answer, {
      "access-control-allow-methods": CORS_METHODS,
      "access-control-allow-headers": [CORS_HEADERS, ...params].join(", "),
      "access-control-max-age": "600"
    })
  }

  const refusal = (request: Guarded): Reply.Reply | undefined => {
    const named = hostName(request.headers.host)
    if (hosts !== undefined && (named === undefined || !hosts.has(named))) {
      return Reply.refuse(403, JsonRpc.ErrorCode.InvalidRequest, `Forbidden: host ${named ?? "(none)"} is not allowed`)
    }
    const origin = request.headers.origin
    if (origin !== undefined && !loopbackOrigin.test(origin) && !allowed.has(origin)) {
      return Reply.refuse(403, JsonRpc.ErrorCode.InvalidRequest, `Forbidden: origin ${origin} is not allowed`)
    }
    const query = request.url.indexOf("?")
    const asked = query === -1 ? request.url : request.url.slice(0, query)
    if (oauth !== undefined && metadataPaths.has(asked)) {
      // Public, as discovery needs: a client reads it before it has a token.
      if (request.method === "GET") return Reply.json(oauth.metadata, 200, { "cache-control": "max-age=300" })
      if (request.method === "OPTIONS") return preflight(request)
      return Reply.refuse(405, JsonRpc.ErrorCode.InvalidRequest, "Method not allowed", { allow: "GET, OPTIONS" })
    }
    if (asked !== path) {
      return Reply.refuse(404, JsonRpc.ErrorCode.InvalidRequest, `Not found: the endpoint is ${path}`)
    }
    if (request.method === "OPTIONS") return preflight(request)
    return undefined
  }

  return { refusal, readable }
}

/** A POST over its principal's request limit: 429, with when to retry; `undefined` within it. */
export const overLimit = (
  policy: Policy.Policy | undefined,
  limiter: RateLimit.Limiter,
  principal: Principal.Principal
): Effect.Effect<Reply.Reply | undefined> => {
  const limit = policy?.accessOf(principal).requests
  if (limit === undefined) return Effect.succeed(undefined)
  return Effect.map(
    limiter.take(`${Principal.binding(principal)}\u0000requests`, limit),
    Option.match({
      onNone: () => undefined,
      onSome: (wait) =>
        Reply.json(
          {
            jsonrpc: "2.0",
            error: {
              code: GuardedHost.RATE_LIMITED,
              message: `Too Many Requests: retry in ${RateLimit.seconds(wait)} s`,
              data: { retryAfter: RateLimit.seconds(wait), retryAfterMs: Duration.toMillis(wait) }
            }
          },
          429,
          { "retry-after": String(RateLimit.seconds(wait)) }
        )
    })
  )
}
