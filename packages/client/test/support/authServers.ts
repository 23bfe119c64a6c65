/**
 * Loopback OAuth worlds for the authorization tests: an authorization server and an MCP
 * server (a protected resource) on two ports, so two origins. Both record every request.
 * The authorization server can be made hostile (wrong issuer, no S256, a metadata redirect
 * to another origin, oversize metadata, a wrong state or iss, an insecure endpoint); the MCP
 * server can require scopes per method, refuse every token, or move to another
 * authorization server.
 */
import { createHash, randomUUID, webcrypto } from "node:crypto"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import * as Effect from "effect/Effect"

/** A request a server received. */
export interface Seen {
  readonly method: string
  readonly path: string
  readonly query: URLSearchParams
  readonly headers: IncomingMessage["headers"]
  readonly body: string
}

/** A started server. */
interface Started {
  readonly origin: string
  readonly seen: Array<Seen>
}

const started = new Set<Server>()

const start = (
  handle: (seen: Seen, response: ServerResponse, origin: string) => unknown
): Effect.Effect<Started, never, import("effect/Scope").Scope> =>
  Effect.acquireRelease(
    Effect.async<{ started: Started; server: Server }>((resume) => {
      const seen: Array<Seen> = []
      let origin = ""
      const server = createServer((request, response) => {
        const chunks: Array<Buffer> = []
        request.on("data", (chunk: Buffer) => chunks.push(chunk))
        request.on("end", () => {
          const url = new URL(request.url ?? "/", origin)
          const entry: Seen = {
            method: request.method ?? "",
            path: url.pathname,
            query: url.searchParams,
            headers: request.headers,
            body: Buffer.concat(chunks).toString("utf8")
          }
          seen.push(entry)
          void handle(entry, response, origin)
        })
      })
      started.add(server)
      server.listen(0, "127.0.0.1", () => {
        origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
        resume(Effect.succeed({ started: { origin, seen }, server }))
      })
    }),
    ({ server }) =>
      Effect.promise(
        () =>
          new Promise<void>((resolve) => {
            started.delete(server)
            server.closeAllConnections()
            server.close(() => resolve())
          })
      )
  ).pipe(Effect.map(({ started }) => started))

const sendJson = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  response.writeHead(status, { "content-type": "application/json", ...headers })
  response.end(JSON.stringify(body))
}

/** Tokens issued by authorization servers, shared with the MCP server that checks them. */
export class TokenRegistry {
  readonly tokens = new Map<
    string,
    { readonly scopes: ReadonlyArray<string>; readonly issuer: string; readonly boundTo?: string }
  >()
}

/** How the authorization server behaves. */
export interface AuthorizationServerOptions {
  /** The issuer its metadata names (default: its origin). */
  readonly issuer?: (origin: string) => string
  /** PKCE methods listed; `null` omits the field. Default: S256. */
  readonly pkce?: ReadonlyArray<string> | null
  /** Redirects the metadata request here instead of answering. */
  readonly metadataRedirect?: string
  /** Never answers the metadata request (a server that hangs). */
  readonly metadataHangs?: boolean
  /** Pads the metadata document to this many bytes. */
  readonly metadataBytes?: number
  /** Whether dynamic registration is offered. Default: true. */
  readonly registration?: boolean
  readonly tokenEndpointAuthMethods?: ReadonlyArray<string>
  readonly scopesSupported?: ReadonlyArray<string>
  /** Whether the redirect carries `iss`, and which. Default: the right one. */
  readonly iss?: "correct" | "wrong" | "omit"
  readonly issSupported?: boolean
  /** Sends back another state than the client's. */
  readonly wrongState?: boolean
  /** The authorization endpoint it advertises (default: its own /authorize). */
  readonly authorizationEndpoint?: (origin: string) => string
  /** Access tokens' lifetime in seconds; refresh tokens are issued when set. */
  readonly expiresIn?: number
  /** The token endpoint answers with this error instead of tokens. */
  readonly tokenError?: { readonly status: number; readonly error: string; readonly description?: string }
  /** Verifies private-key JWT client assertions with this public key. */
  readonly assertionKey?: webcrypto.CryptoKey
  /** Client ids it accepts with their secrets (pre-registered clients). */
  readonly clients?: { readonly [id: string]: string | undefined }
  /** Serves no metadata at all (a 2025-03-26 server relying on the default endpoints). */
  readonly noMetadata?: boolean
  /** Also serves a protected MCP endpoint at /mcp on the same origin (a 2025-03-26 server). */
  readonly servesMcp?: boolean
  /** Offers DPoP (ES256) and binds tokens to the proof's key; with a nonce, demands it first. */
  readonly dpop?: { readonly nonce?: string }
  /** Offers token revocation (RFC 7009) at /revoke; with `fails`, answers that error instead of revoking. */
  readonly revocation?: { readonly fails?: { readonly status: number; readonly error: string } }
}

/** The claims of a DPoP proof whose signature verifies with the key in its own header, or a reason it is not one. */
export const verifyDpopProof = async (
  proof: string | undefined
): Promise<
  | { readonly ok: true; readonly jwk: string; readonly claims: { readonly [name: string]: unknown } }
  | { readonly ok: false; readonly reason: string }
> => {
  if (proof === undefined) return { ok: false, reason: "no proof" }
  const [header, payload, signature] = proof.split(".")
  const parsed = JSON.parse(Buffer.from(header ?? "", "base64url").toString("utf8")) as {
    typ?: string
    alg?: string
    jwk?: webcrypto.JsonWebKey
  }
  if (parsed.typ !== "dpop+jwt" || parsed.alg !== "ES256" || parsed.jwk === undefined)
    return { ok: false, reason: "bad header" }
  if ("d" in parsed.jwk) return { ok: false, reason: "private key in the proof" }
  const key = await webcrypto.subtle.importKey("jwk", parsed.jwk, { name: "ECDSA", namedCurve: "P-256" }, false, [
    "verify"
  ])
  const valid = await webcrypto.subtle.verify(
    { name: "ECDSA", hash: "SHA-256" },
    key,
    Buffer.from(signature ?? "", "base64url"),
    Buffer.from(`${header}.${payload}`)
  )
  if (!valid) return { ok: false, reason: "bad signature" }
  return {
    ok: true,
    jwk: JSON.stringify({ x: parsed.jwk.x, y: parsed.jwk.y }),
    claims: JSON.parse(Buffer.from(payload ?? "", "base64url").toString("utf8")) as { [name: string]: unknown }
  }
}

const base64url = (bytes: Buffer) => bytes.toString("base64").replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")

/** Starts an authorization server issuing tokens into `registry`. */
export const authorizationServer = (registry: TokenRegistry, options: AuthorizationServerOptions = {}) =>
  Effect.gen(function* () {
    const challenges = new Map<string, { challenge: string; scopes: ReadonlyArray<string>; resource: string | null }>()
    const refreshTokens = new Map<string, ReadonlyArray<string>>()
    const clients = new Map<string, string | undefined>(Object.entries(options.clients ?? {}))
    let issued = 0
    const server = yield* start(async (seen, response, origin) => {
      const issuer = options.issuer?.(origin) ?? origin
      const issue = (scopes: ReadonlyArray<string>, boundTo?: string) => {
        issued += 1
        const token = `at-${issued}-${origin.slice(-5)}`
        registry.tokens.set(token, { scopes, issuer: origin, ...(boundTo === undefined ? {} : { boundTo }) })
        const refresh = options.expiresIn === undefined ? undefined : `rt-${issued}`
        if (refresh !== undefined) refreshTokens.set(refresh, scopes)
        return {
          access_token: token,
          token_type: boundTo === undefined ? "Bearer" : "DPoP",
          ...(options.expiresIn === undefined ? {} : { expires_in: options.expiresIn, refresh_token: refresh }),
          scope: scopes.join(" ")
        }
      }
      if (
        seen.method === "GET" &&
        seen.path.startsWith("/.well-known/oauth-authorization-server") &&
        options.noMetadata !== true
      ) {
        if (options.metadataHangs === true) return
        if (options.metadataRedirect !== undefined) {
          response.writeHead(302, { location: options.metadataRedirect })
          return response.end()
        }
        const metadata = {
          issuer,
          authorization_endpoint: options.authorizationEndpoint?.(origin) ?? `${origin}/authorize`,
          token_endpoint: `${origin}/token`,
          ...(options.registration === false ? {} : { registration_endpoint: `${origin}/register` }),
          response_types_supported: ["code"],
          grant_types_supported: ["authorization_code", "refresh_token", "client_credentials"],
          ...(options.pkce === null ? {} : { code_challenge_methods_supported: options.pkce ?? ["S256"] }),
          token_endpoint_auth_methods_supported: options.tokenEndpointAuthMethods ?? ["none", "client_secret_basic"],
          ...(options.scopesSupported === undefined ? {} : { scopes_supported: options.scopesSupported }),
          ...(options.issSupported === undefined
            ? {}
            : { authorization_response_iss_parameter_supported: options.issSupported }),
          ...(options.dpop === undefined ? {} : { dpop_signing_alg_values_supported: ["ES256"] }),
          ...(options.revocation === undefined ? {} : { revocation_endpoint: `${origin}/revoke` }),
          ...(options.metadataBytes === undefined ? {} : { padding: "x".repeat(options.metadataBytes) })
        }
        return sendJson(response, 200, metadata)
      }
      if (seen.method === "POST" && seen.path === "/register") {
        const body = JSON.parse(seen.body) as { token_endpoint_auth_method?: string; redirect_uris?: Array<string> }
        const id = `client-${clients.size + 1}-${origin.slice(-5)}`
        const secret = body.token_endpoint_auth_method === "none" ? undefined : `secret-${id}`
        clients.set(id, secret)
        return sendJson(response, 201, {
          client_id: id,
          ...(secret === undefined ? {} : { client_secret: secret }),
          redirect_uris: body.redirect_uris,
          token_endpoint_auth_method: body.token_endpoint_auth_method ?? "none"
        })
      }
      if (seen.method === "POST" && seen.path === "/revoke" && options.revocation !== undefined) {
        const fails = options.revocation.fails
        if (fails !== undefined) return sendJson(response, fails.status, { error: fails.error })
        const token = new URLSearchParams(seen.body).get("token") ?? ""
        registry.tokens.delete(token)
        refreshTokens.delete(token)
        response.writeHead(200)
        return response.end()
      }
      if (seen.method === "GET" && seen.path === "/authorize") {
        const redirect = new URL(seen.query.get("redirect_uri") ?? "http://127.0.0.1/none")
        const code = `code-${challenges.size + 1}-${randomUUID()}`
        challenges.set(code, {
          challenge: seen.query.get("code_challenge") ?? "",
          scopes: (seen.query.get("scope") ?? "").split(" ").filter((scope) => scope !== ""),
          resource: seen.query.get("resource")
        })
        redirect.searchParams.set("code", code)
        redirect.searchParams.set("state", options.wrongState === true ? "not-yours" : (seen.query.get("state") ?? ""))
        if ((options.iss ?? "correct") === "correct") redirect.searchParams.set("iss", issuer)
        if (options.iss === "wrong") redirect.searchParams.set("iss", "https://evil.example.com")
        response.writeHead(302, { location: redirect.href })
        return response.end()
      }
      if (seen.method === "POST" && seen.path === "/token") {
        if (options.tokenError !== undefined)
          return sendJson(response, options.tokenError.status, {
            error: options.tokenError.error,
            error_description: options.tokenError.description
          })
        const form = new URLSearchParams(seen.body)
        let boundTo: string | undefined
        if (options.dpop !== undefined) {
          const proof = await verifyDpopProof(seen.headers.dpop as string | undefined)
          if (!proof.ok || proof.claims.htm !== "POST" || proof.claims.htu !== `${origin}/token`)
            return sendJson(response, 400, { error: "invalid_dpop_proof" })
          if (options.dpop.nonce !== undefined && proof.claims.nonce !== options.dpop.nonce)
            return sendJson(response, 400, { error: "use_dpop_nonce" }, { "dpop-nonce": options.dpop.nonce })
          boundTo = proof.jwk
        }
        const basic = seen.headers.authorization?.startsWith("Basic ")
          ? Buffer.from(seen.headers.authorization.slice(6), "base64")
              .toString("utf8")
              .split(":")
              .map(decodeURIComponent)
          : undefined
        const clientId = basic?.[0] ?? form.get("client_id") ?? ""
        const secret = basic?.[1] ?? form.get("client_secret") ?? undefined
        switch (form.get("grant_type")) {
          case "authorization_code": {
            const pending = challenges.get(form.get("code") ?? "")
            const verifier = form.get("code_verifier") ?? ""
            const computed = base64url(createHash("sha256").update(verifier).digest())
            if (pending === undefined || pending.challenge !== computed)
              return sendJson(response, 400, { error: "invalid_grant", error_description: "PKCE verification failed" })
            if (clients.has(clientId) && clients.get(clientId) !== secret)
              return sendJson(response, 401, { error: "invalid_client" })
            challenges.delete(form.get("code") ?? "")
            return sendJson(response, 200, issue(pending.scopes, boundTo))
          }
          case "refresh_token": {
            const scopes = refreshTokens.get(form.get("refresh_token") ?? "")
            if (scopes === undefined) return sendJson(response, 400, { error: "invalid_grant" })
            refreshTokens.delete(form.get("refresh_token") ?? "")
            return sendJson(response, 200, issue(scopes))
          }
          case "client_credentials": {
            const assertion = form.get("client_assertion")
            if (assertion !== null && options.assertionKey !== undefined) {
              const [header, payload, signature] = assertion.split(".")
              const valid = await webcrypto.subtle.verify(
                { name: "ECDSA", hash: "SHA-256" },
                options.assertionKey,
                Buffer.from(signature ?? "", "base64url"),
                Buffer.from(`${header}.${payload}`)
              )
              const claims = JSON.parse(Buffer.from(payload ?? "", "base64url").toString("utf8")) as {
                iss?: string
                aud?: string
              }
              if (!valid || claims.iss !== clientId || claims.aud !== issuer)
                return sendJson(response, 401, { error: "invalid_client", error_description: "bad assertion" })
            } else if (clients.get(clientId) === undefined || clients.get(clientId) !== secret)
              return sendJson(response, 401, { error: "invalid_client" })
            return sendJson(response, 200, issue((form.get("scope") ?? "").split(" ").filter((s) => s !== "")))
          }
          case "urn:ietf:params:oauth:grant-type:token-exchange": {
            // As an enterprise identity provider: the ID token for an identity assertion grant.
            if (
              form.get("subject_token") === null ||
              form.get("requested_token_type") !== "urn:ietf:params:oauth:token-type:id-jag"
            )
              return sendJson(response, 400, { error: "invalid_request" })
            return sendJson(response, 200, {
              access_token: `jag-for-${form.get("subject_token")}`,
              issued_token_type: "urn:ietf:params:oauth:token-type:id-jag",
              token_type: "N_A"
            })
          }
          case "urn:ietf:params:oauth:grant-type:jwt-bearer": {
            if (form.get("assertion") === null) return sendJson(response, 400, { error: "invalid_request" })
            if (form.get("assertion") === "rejected") return sendJson(response, 400, { error: "invalid_grant" })
            return sendJson(response, 200, issue([]))
          }
          default:
            return sendJson(response, 400, { error: "unsupported_grant_type" })
        }
      }
      if (options.servesMcp === true)
        return resourceHandler(registry, { authorizationServer: () => origin, noMetadata: true })(
          seen,
          response,
          origin
        )
      sendJson(response, 404, { error: "not_found" })
    })
    return server
  })

/** How the MCP server behaves. */
export interface ResourceServerOptions {
  /** The authorization server its metadata names (may change while it runs). */
  readonly authorizationServer: () => string
  /** Scopes each method needs (default: none). */
  readonly scopesFor?: (method: string) => ReadonlyArray<string>
  /** Answers every authorized request 403 insufficient_scope. */
  readonly neverEnough?: boolean
  /** The `resource` its metadata names (default: its /mcp URL). */
  readonly resource?: (origin: string) => string
  /** Serves no protected resource metadata (a 2025-03-26 server). */
  readonly noMetadata?: boolean
  /** Only tokens from this issuer origin are accepted (default: any the registry knows). */
  readonly acceptIssuer?: () => string | undefined
  readonly scopesSupported?: ReadonlyArray<string>
  /** Demands this DPoP nonce in proofs (answering use_dpop_nonce until it comes). */
  readonly dpopNonce?: string
  /** Answers every request, with a token or without (a server that needs no authorization). */
  readonly open?: boolean
}

/** Answers MCP requests (and its metadata) wanting bearer tokens from `registry`. */
const resourceHandler =
  (registry: TokenRegistry, options: ResourceServerOptions) =>
  async (seen: Seen, response: ServerResponse, origin: string): Promise<unknown> => {
    const metadataUrl = `${origin}/.well-known/oauth-protected-resource/mcp`
    if (
      seen.method === "GET" &&
      seen.path === "/.well-known/oauth-protected-resource/mcp" &&
      options.noMetadata !== true
    )
      return sendJson(response, 200, {
        resource: options.resource?.(origin) ?? `${origin}/mcp`,
        authorization_servers: [options.authorizationServer()],
        ...(options.scopesSupported === undefined ? {} : { scopes_supported: options.scopesSupported })
      })
    if (seen.path !== "/mcp") return sendJson(response, 404, { error: "not_found" })
    if (seen.method !== "POST") return sendJson(response, 405, { error: "method_not_allowed" })
    const message = JSON.parse(seen.body) as { id?: number; method: string }
    const needed = options.scopesFor?.(message.method) ?? []
    const header = seen.headers.authorization ?? ""
    const [scheme = "", value = ""] = header.split(" ")
    const presented = registry.tokens.get(value)
    let token = scheme === "Bearer" && presented?.boundTo === undefined ? presented : undefined
    if (scheme === "DPoP" && presented?.boundTo !== undefined) {
      const proof = await verifyDpopProof(seen.headers.dpop as string | undefined)
      const ath = createHash("sha256").update(value).digest("base64url")
      if (
        proof.ok &&
        proof.jwk === presented.boundTo &&
        proof.claims.htm === "POST" &&
        proof.claims.htu === `${origin}/mcp` &&
        proof.claims.ath === ath
      ) {
        if (options.dpopNonce !== undefined && proof.claims.nonce !== options.dpopNonce)
          return sendJson(
            response,
            401,
            { error: "use_dpop_nonce" },
            {
              "www-authenticate": 'DPoP error="use_dpop_nonce"',
              "dpop-nonce": options.dpopNonce
            }
          )
        token = presented
      }
    }
    const acceptable = options.acceptIssuer?.()
    const pointer = options.noMetadata === true ? "" : ` resource_metadata="${metadataUrl}"`
    const open = options.open === true
    if (!open && (token === undefined || (acceptable !== undefined && token.issuer !== acceptable)))
      return sendJson(
        response,
        401,
        { error: "invalid_token" },
        {
          "www-authenticate": `Bearer${pointer}${needed.length > 0 ? `${pointer === "" ? "" : ","} scope="${needed.join(" ")}"` : ""}`
        }
      )
    if (!open && (options.neverEnough === true || !needed.every((scope) => token?.scopes.includes(scope) === true)))
      return sendJson(
        response,
        403,
        { error: "insufficient_scope" },
        {
          "www-authenticate": `Bearer error="insufficient_scope", scope="${options.neverEnough === true ? "admin" : needed.join(" ")}", resource_metadata="${metadataUrl}"`
        }
      )
    if (message.id === undefined) {
      response.writeHead(202).end()
      return
    }
    const result =
      message.method === "initialize"
        ? {
            protocolVersion: "2025-11-25",
            capabilities: { tools: {} },
            serverInfo: { name: "protected", version: "1" }
          }
        : message.method === "tools/list"
          ? { tools: [{ name: "secret", inputSchema: { type: "object" } }] }
          : message.method === "tools/call"
            ? { content: [{ type: "text", text: "the secret" }] }
            : {}
    sendJson(response, 200, { jsonrpc: "2.0", id: message.id, result })
  }

/** Starts an MCP server that wants bearer tokens from `registry`. */
export const resourceServer = (registry: TokenRegistry, options: ResourceServerOptions) =>
  start(resourceHandler(registry, options))

/** Requests with a bearer token (the only ones that may carry one are the MCP server's). */
export const bearerRequests = (seen: ReadonlyArray<Seen>) =>
  seen.filter((entry) => entry.headers.authorization?.startsWith("Bearer ") === true)

/** A fresh ES256 key pair, the private key as PKCS#8 PEM. */
export const es256KeyPair = Effect.promise(async () => {
  const pair = await webcrypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"])
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey("pkcs8", pair.privateKey)).toString("base64")
  const pem = `-----BEGIN PRIVATE KEY-----\n${pkcs8.match(/.{1,64}/g)?.join("\n") ?? ""}\n-----END PRIVATE KEY-----\n`
  return { publicKey: pair.publicKey, pem }
})
