/**
 * The endpoints an operator's tools call beside the MCP endpoint: `GET /healthz` (the process
 * serves), `GET /readyz` (the servers have started: none still making its first connection, and
 * one ready at least, unless none is configured; 503 otherwise, the body saying each server's
 * state) and `GET /metrics` (the process's metrics in Prometheus' text format, behind a bearer
 * token when one is set). A browser cannot read them from another origin: a request with an
 * `Origin` is refused, as is a `Host` the gateway does not answer to.
 */
import { McpHost } from "@effect-mcp/host"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { bearerOf, sameSecret } from "./auth.js"
import * as HttpCore from "./httpCore.js"
import { countRestarts } from "./observe.js"
import * as Prometheus from "./prometheus.js"
import * as Reply from "./reply.js"

/** The operator's endpoints. */
export interface Options {
  /**
   * `GET /metrics` needs `Authorization: Bearer <token>`. Default: no token (fine on loopback; a
   * gateway listening beyond it should set one, as the CLI does from `EFFECT_MCP_METRICS_TOKEN`).
   */
  readonly metricsToken?: string
  /** Serve `/healthz`, `/readyz` and `/metrics`. Default: true. */
  readonly enabled?: boolean
}

const PATHS = new Set(["/healthz", "/readyz", "/metrics"])

/** The path of a request's URL, its query aside. */
const pathOf = (url: string): string => {
  const query = url.indexOf("?")
  return query === -1 ? url : url.slice(0, query)
}

/** Whether the servers have started: none still connecting, and one ready (or none configured). */
const readiness = (host: McpHost.McpHostService) =>
  Effect.map(host.servers, (servers) => {
    const enabled = servers.filter((server) => server.enabled)
    const states = Object.fromEntries(enabled.map((server) => [server.name, server.status._tag]))
    const ready =
      enabled.every((server) => server.status._tag !== "Connecting") &&
      (enabled.length === 0 || enabled.some((server) => server.status._tag === "Ready"))
    return Reply.json({ status: ready ? "ready" : "starting", servers: states }, ready ? 200 : 503)
  })

/**
 * The gateway's handler with the operator's endpoints before it; the servers' restarts counted for
 * `/metrics` while the scope is open.
 */
export const around = (
  handle: HttpCore.Handler,
  options: Options & { readonly allowedHosts?: ReadonlyArray<string> }
): Effect.Effect<HttpCore.Handler, never, Scope.Scope | McpHost.McpHost> =>
  Effect.gen(function* () {
    if (options.enabled === false) return handle
    const host = yield* McpHost.McpHost
    yield* countRestarts(host)
    const hosts =
      options.allowedHosts === undefined ? undefined : new Set(options.allowedHosts.map((name) => name.toLowerCase()))
    const token = options.metricsToken
    return (request) => {
      const path = pathOf(request.url)
      if (!PATHS.has(path)) return handle(request)
      const named = HttpCore.hostName(request.headers.host)
      if (hosts !== undefined && (named === undefined || !hosts.has(named))) {
        return Effect.succeed(Reply.text(`Forbidden: host ${named ?? "(none)"} is not allowed\n`, 403))
      }
      if (request.headers.origin !== undefined) {
        return Effect.succeed(Reply.text("Forbidden: not for browsers\n", 403))
      }
      if (request.method !== "GET" && request.method !== "HEAD") {
        return Effect.succeed(Reply.text("Method not allowed\n", 405, { allow: "GET, HEAD" }))
      }
      switch (path) {
        case "/healthz":
          return Effect.succeed(Reply.json({ status: "ok" }))
        case "/readyz":
          return readiness(host)
        default: {
          if (token !== undefined && !sameSecret(bearerOf(request.headers.authorization), token)) {
            return Effect.succeed(Reply.text("Unauthorized\n", 401, { "www-authenticate": "Bearer" }))
          }
          return Effect.map(Prometheus.scrape, (body) =>
            Reply.text(body, 200, { "content-type": "text/plain; version=0.0.4; charset=utf-8" })
          )
        }
      }
    }
  })
