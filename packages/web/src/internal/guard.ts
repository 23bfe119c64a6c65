/**
 * Who may use the page (the lesson of the Inspector's CVE-2025-49596, where any web page could
 * make its proxy run commands): a random token per launch, required on every route, compared in
 * constant time; `Host` must be a name the server is bound as (DNS rebinding) and `Origin`, when a
 * browser sends one, one of the page's own, failing closed. The token comes once in the printed
 * address (`/?token=…`), which trades it for an HttpOnly, SameSite=Strict cookie and sends the
 * browser on to `/` (the `#` fragment of a deep link survives the redirect); scripts may send it
 * as `Authorization: Bearer …` instead. A request with `Sec-Fetch-Site: cross-site` is refused.
 * `/oauth/callback` is the one route without the token (a redirect from the authorization server
 * carries no Strict cookie); the login's `state` is the secret there, used once.
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"

/** What the guard checks against. */
export interface Guard {
  readonly token: string
  /** `127.0.0.1:PORT`, `localhost:PORT`, … */
  readonly hosts: ReadonlySet<string>
  /** `http://127.0.0.1:PORT`, … */
  readonly origins: ReadonlySet<string>
  /** The cookie's name: one per port, as cookies do not tell ports apart. */
  readonly cookie: string
}

/** A new token: 32 random bytes, base64url. */
export const newToken = (): string =>
  btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "")

/** Compares in time that depends on the length only (a token's length is no secret). */
export const sameText = (a: string, b: string): boolean => {
  const left = new TextEncoder().encode(a)
  const right = new TextEncoder().encode(b)
  if (left.length !== right.length) return false
  let difference = 0
  for (let index = 0; index < left.length; index++) difference |= (left[index] ?? 0) ^ (right[index] ?? 0)
  return difference === 0
}

/** The guard of a server bound to `host:port` (a loopback bind also answers as `localhost` and `127.0.0.1`). */
export const make = (token: string, host: string, port: number): Guard => {
  const names = new Set([host, ...(isLoopback(host) ? ["127.0.0.1", "localhost", "[::1]"] : [])])
  const hosts = new Set([...names].map((name) => `${name}:${port}`))
  return { token, hosts, origins: new Set([...hosts].map((name) => `http://${name}`)), cookie: `effect_mcp_ui_${port}` }
}

/** Whether a bind address is on this machine only. */
export const isLoopback = (host: string) =>
  host === "localhost" || host === "::1" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host)

/** Refused unless the request names this server as its `Host` (DNS rebinding). */
export const checkHost = (guard: Guard, request: HttpServerRequest.HttpServerRequest) => {
  const host = request.headers.host
  return host === undefined || !guard.hosts.has(host.toLowerCase())
    ? ({ status: 403, error: "this host name is not served here" } as const)
    : undefined
}

/** Why a request is refused, or `undefined` when it may go on. 401: no or a wrong token; 403: not from the page. */
export const check = (guard: Guard, request: HttpServerRequest.HttpServerRequest, token: string | undefined) => {
  const wrongHost = checkHost(guard, request)
  if (wrongHost !== undefined) return wrongHost
  const origin = request.headers.origin
  if (origin !== undefined && !guard.origins.has(origin.toLowerCase()))
    return { status: 403, error: "requests from other origins are refused" } as const
  if (request.headers["sec-fetch-site"] === "cross-site")
    return { status: 403, error: "requests from other sites are refused" } as const
  const given = token ?? request.cookies[guard.cookie] ?? bearer(request.headers.authorization)
  if (given === undefined)
    return { status: 401, error: "the token is missing: open the address the command printed" } as const
  if (!sameText(given, guard.token))
    return { status: 401, error: "the token is wrong: open the address the command printed" } as const
  return undefined
}

const bearer = (header: string | undefined) => {
  const match = header === undefined ? null : /^bearer\s+(\S+)$/i.exec(header)
  return match?.[1]
}

/** The page's own Content-Security-Policy: its scripts and styles only; `frames` are the origins views may be drawn from. */
export const contentSecurityPolicy = (frames: ReadonlyArray<string>) =>
  [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    "media-src 'self' data: blob:",
    "connect-src 'self'",
    `frame-src ${frames.length === 0 ? "'none'" : frames.join(" ")}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'"
  ].join("; ")
