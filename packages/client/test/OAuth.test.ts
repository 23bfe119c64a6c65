/**
 * Authorization against loopback worlds: an authorization server and an MCP server on two
 * origins (support/authServers.ts). The happy path end to end, step-up, refresh, the token
 * store, migration to another authorization server, machine clients, the 2025-03-26
 * fallback; and hostile servers: a wrong issuer, no S256, a metadata redirect to another
 * origin, oversize metadata, a resource that is not the server, a wrong state or iss, an
 * insecure endpoint, an endless step-up. Tokens are checked to reach only the MCP server,
 * and secrets never to appear in errors or logs.
 */
import { mkdtempSync, readFileSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it } from "@effect/vitest"
import { AuthError, Authorizer, HttpTransport, McpClient, type McpError, OAuth, TokenStore } from "@effect-mcp/client"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FastCheck from "effect/FastCheck"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Schema from "effect/Schema"
import * as AuthorizedClient from "../src/auth/AuthorizedClient.js"
import * as Challenge from "../src/auth/Challenge.js"
import * as OAuthMetadata from "../src/auth/Metadata.js"
import {
  type AuthorizationServerOptions,
  authorizationServer,
  bearerRequests,
  es256KeyPair,
  type ResourceServerOptions,
  resourceServer,
  TokenRegistry,
  verifyDpopProof
} from "./support/authServers.js"
import { faultServer } from "./support/faultServer.js"
import { noFibersLeft } from "./support/fibers.js"
import { keepAliveHttpClient } from "./support/httpClient.js"

const runs = Number(process.env.PROP_RUNS ?? 50)

/** A world: an authorization server and an MCP server that trusts it. */
const world = (as: AuthorizationServerOptions = {}, rs: Omit<ResourceServerOptions, "authorizationServer"> = {}) =>
  Effect.gen(function* () {
    const registry = new TokenRegistry()
    const authorization = yield* authorizationServer(registry, as)
    const resource = yield* resourceServer(registry, { authorizationServer: () => authorization.origin, ...rs })
    return { registry, authorization, resource, url: `${resource.origin}/mcp` }
  })

const services = Layer.merge(Authorizer.followRedirect(), TokenStore.layerMemory)

/** A connected client (in the caller's scope); `store` replaces the memory store. */
const connect = (
  url: string,
  auth: OAuth.OAuthOptions = {},
  store: Layer.Layer<TokenStore.TokenStore> = TokenStore.layerMemory
) =>
  Effect.map(
    Layer.build(
      McpClient.layer({ name: "protected" }).pipe(
        Layer.provide(HttpTransport.layer({ url, name: "protected", transport: "http", listen: false, auth })),
        Layer.provide(Layer.merge(Authorizer.followRedirect(), store)),
        Layer.provide(keepAliveHttpClient)
      )
    ),
    (context) => Context.get(context, McpClient.McpClient)
  )

/** The failure's whole text: message and the causes under it. */
const failureText = (exit: Exit.Exit<unknown, unknown>) => (Exit.isFailure(exit) ? Cause.pretty(exit.cause) : "")

const paths = (seen: ReadonlyArray<{ readonly method: string; readonly path: string }>) =>
  seen.map((entry) => `${entry.method} ${entry.path}`)

describe("OAuth: the flow", () => {
  it.scopedLive(
    "discovers, registers, authorizes with PKCE and resource, and sends the token only to the MCP server",
    () =>
      Effect.gen(function* () {
        const { authorization, resource, url } = yield* world({}, { scopesSupported: ["mcp:read"] })
        yield* Effect.scoped(
          Effect.gen(function* () {
            const client = yield* connect(url)
            expect((yield* client.tools).map((tool) => tool.name)).toStrictEqual(["secret"])
            yield* client.callTool("secret")
          })
        )
        expect(paths(authorization.seen)).toStrictEqual([
          "GET /.well-known/oauth-authorization-server",
          "POST /register",
          "GET /authorize",
          "POST /token"
        ])
        const authorize = authorization.seen[2]
        expect(authorize?.query.get("code_challenge_method")).toBe("S256")
        expect(authorize?.query.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/)
        expect(authorize?.query.get("resource")).toBe(url)
        expect(authorize?.query.get("scope")).toBe("mcp:read")
        expect(authorize?.query.get("state")?.length).toBeGreaterThanOrEqual(16)
        const token = new URLSearchParams(authorization.seen[3]?.body)
        expect(token.get("resource")).toBe(url)
        expect(token.get("code_verifier")).toMatch(/^[A-Za-z0-9_-]{43}$/)
        // No bearer token ever went to the authorization server or to a metadata URL.
        expect(bearerRequests(authorization.seen)).toStrictEqual([])
        const withToken = bearerRequests(resource.seen)
        expect(withToken.every((entry) => entry.path === "/mcp")).toBe(true)
        expect(withToken.length).toBeGreaterThanOrEqual(3)
      })
  )

  it.scopedLive("two requests refused at once authorize once: the second is retried with the first's token", () =>
    Effect.gen(function* () {
      const { authorization, resource, url } = yield* world()
      const raw = yield* HttpClient.HttpClient
      const session = yield* OAuth.make("protected", url, raw).pipe(Effect.provide(services))
      const client = AuthorizedClient.authorize(raw, session)
      const ping = (id: number) =>
        HttpClientRequest.post(url).pipe(
          HttpClientRequest.setHeader("accept", "application/json, text/event-stream"),
          HttpClientRequest.bodyUnsafeJson({ jsonrpc: "2.0", id, method: "ping" }),
          client.execute,
          Effect.map((response) => response.status),
          Effect.scoped
        )
      const statuses = yield* Effect.all([ping(1), ping(2)], { concurrency: "unbounded" })
      expect(statuses.every((status) => status !== 401)).toBe(true)
      expect(paths(authorization.seen).filter((path) => path === "POST /token")).toStrictEqual(["POST /token"])
      expect(
        resource.seen.filter((entry) => entry.path === "/mcp" && entry.headers.authorization === undefined).length
      ).toBe(2)
    }).pipe(Effect.provide(keepAliveHttpClient))
  )

  it.scopedLive("steps up on 403 insufficient_scope, asking for the union of the scopes", () =>
    Effect.gen(function* () {
      const { authorization, url } = yield* world(
        {},
        { scopesFor: (method) => (method === "tools/call" ? ["mcp:read", "mcp:write"] : ["mcp:read"]) }
      )
      yield* Effect.scoped(
        Effect.gen(function* () {
          const client = yield* connect(url)
          yield* client.tools
          const result = yield* client.callTool("secret")
          expect(result.content).toStrictEqual([{ type: "text", text: "the secret" }])
        })
      )
      const scopes = authorization.seen.filter((entry) => entry.path === "/authorize").map((e) => e.query.get("scope"))
      expect(scopes).toStrictEqual(["mcp:read", "mcp:read mcp:write"])
      // One registration serves both authorizations.
      expect(authorization.seen.filter((entry) => entry.path === "/register")).toHaveLength(1)
    })
  )

  it.scopedLive("gives up on a server that never has enough scope, after 3 authorizations, with a typed error", () =>
    Effect.gen(function* () {
      const { authorization, url } = yield* world({}, { neverEnough: true })
      const exit = yield* Effect.scoped(Effect.flatMap(connect(url), (client) => client.tools)).pipe(Effect.exit)
      expect(Exit.isFailure(exit)).toBe(true)
      const failure = Exit.isFailure(exit) ? Cause.failureOption(exit.cause) : undefined
      expect(failure?._tag === "Some" && (failure.value as McpError.TransportError)._tag).toBe("TransportError")
      expect(failureText(exit)).toContain("403")
      expect(authorization.seen.filter((entry) => entry.path === "/authorize")).toHaveLength(3)
    }).pipe(noFibersLeft)
  )

  it.scopedLive(
    "a stored token that has expired and cannot be refreshed: the refusal runs the flow, not a bare retry",
    () =>
      Effect.gen(function* () {
        const { authorization, url } = yield* world()
        // Expired an hour ago, no refresh_token: credentials has nothing to send, though the token is in use.
        const expired = {
          access_token: "old",
          token_type: "Bearer",
          client_id: "c",
          expires_at: Date.now() - 3_600_000
        }
        const store = Layer.tap(TokenStore.layerMemory, (context) =>
          Context.get(context, TokenStore.TokenStore).saveTokens(
            { issuer: authorization.origin, resource: url },
            expired
          )
        )
        yield* Effect.scoped(
          Effect.gen(function* () {
            const client = yield* connect(url, {}, store)
            expect((yield* client.tools).map((tool) => tool.name)).toStrictEqual(["secret"])
          })
        )
        expect(authorization.seen.filter((entry) => entry.path === "/authorize")).toHaveLength(1)
      })
  )

  it.scopedLive("refreshes an expiring token instead of asking the user again", () =>
    Effect.gen(function* () {
      // Tokens live 10 s, inside the 30 s margin: each request refreshes first.
      const { authorization, url } = yield* world({ expiresIn: 10 })
      yield* Effect.scoped(
        Effect.gen(function* () {
          const client = yield* connect(url)
          yield* client.tools
          yield* client.callTool("secret")
        })
      )
      const grants = authorization.seen
        .filter((entry) => entry.path === "/token")
        .map((entry) => new URLSearchParams(entry.body).get("grant_type"))
      expect(grants[0]).toBe("authorization_code")
      expect(grants.slice(1).every((grant) => grant === "refresh_token")).toBe(true)
      expect(grants.length).toBeGreaterThan(1)
      expect(authorization.seen.filter((entry) => entry.path === "/authorize")).toHaveLength(1)
    })
  )

  it.scopedLive(
    "keeps tokens in a 0600 file and sends them at once next time; never reuses them with another issuer",
    () =>
      Effect.gen(function* () {
        const file = join(mkdtempSync(join(tmpdir(), "effect-mcp-tokens-")), "nested", "tokens.json")
        const store = TokenStore.layerFile(file).pipe(Layer.provide(NodeContext.layer))
        const { authorization, resource, url } = yield* world()
        yield* Effect.scoped(Effect.flatMap(connect(url, {}, store), (client) => client.tools))
        expect(statSync(file).mode & 0o777).toBe(0o600)
        const saved = JSON.parse(readFileSync(file, "utf8")) as { version: number; entries: Record<string, string> }
        expect(saved.version).toBe(2)
        expect(JSON.parse(saved.entries.tokens ?? "[]")).toStrictEqual([
          { issuer: authorization.origin, resource: url }
        ])
        // A second run: the stored token goes with the first request; nothing is asked again.
        const before = { as: authorization.seen.length, unauthorized: resource.seen.length }
        yield* Effect.scoped(Effect.flatMap(connect(url, {}, store), (client) => client.tools))
        expect(authorization.seen.length).toBe(before.as)
        expect(resource.seen[before.unauthorized]?.headers.authorization).toMatch(/^Bearer at-/)
      })
  )

  it.scopedLive("moves to a new authorization server: registers there, never presents the old one's client", () =>
    Effect.gen(function* () {
      const registry = new TokenRegistry()
      const first = yield* authorizationServer(registry)
      const second = yield* authorizationServer(registry)
      let current = first.origin
      const resource = yield* resourceServer(registry, {
        authorizationServer: () => current,
        acceptIssuer: () => current
      })
      const url = `${resource.origin}/mcp`
      yield* Effect.scoped(
        Effect.gen(function* () {
          const client = yield* connect(url)
          yield* client.tools
          current = second.origin
          yield* client.callTool("secret")
        })
      )
      expect(paths(second.seen)).toContain("POST /register")
      const firstIds = new Set(first.seen.map((entry) => entry.query.get("client_id")).filter((id) => id !== null))
      for (const entry of second.seen) {
        expect(firstIds.has(entry.query.get("client_id") ?? "")).toBe(false)
        expect(firstIds.has(new URLSearchParams(entry.body).get("client_id") ?? "")).toBe(false)
      }
    })
  )

  it.scopedLive("machine clients: client credentials with a secret (basic) and with a private-key JWT", () =>
    Effect.gen(function* () {
      const { publicKey, pem } = yield* es256KeyPair
      const secretWorld = yield* world({ clients: { "machine-1": "machine-secret" } })
      yield* Effect.scoped(
        Effect.flatMap(
          connect(secretWorld.url, {
            machine: { _tag: "Secret", clientId: "machine-1", clientSecret: "machine-secret" }
          }),
          (client) => client.tools
        )
      )
      const secretToken = secretWorld.authorization.seen.find((entry) => entry.path === "/token")
      expect(new URLSearchParams(secretToken?.body).get("grant_type")).toBe("client_credentials")
      expect(secretToken?.headers.authorization).toMatch(/^Basic /)
      expect(paths(secretWorld.authorization.seen)).not.toContain("GET /authorize")

      const jwtWorld = yield* world({ assertionKey: publicKey })
      yield* Effect.scoped(
        Effect.flatMap(
          connect(jwtWorld.url, { machine: { _tag: "PrivateKeyJwt", clientId: "machine-2", privateKeyPem: pem } }),
          (client) => client.tools
        )
      )
      const jwtToken = new URLSearchParams(jwtWorld.authorization.seen.find((entry) => entry.path === "/token")?.body)
      expect(jwtToken.get("client_assertion_type")).toBe("urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
      expect(jwtToken.get("client_assertion")?.split(".")).toHaveLength(3)
    })
  )

  it.scopedLive(
    "workload identity (a JWT-bearer grant) and enterprise-managed authorization (token exchange, then JWT bearer)",
    () =>
      Effect.gen(function* () {
        const workload = yield* world()
        yield* Effect.scoped(
          Effect.flatMap(
            connect(workload.url, {
              machine: { _tag: "JwtBearer", clientId: "workload", assertion: Effect.succeed("workload-jwt") }
            }),
            (client) => client.tools
          )
        )
        const grant = new URLSearchParams(workload.authorization.seen.find((entry) => entry.path === "/token")?.body)
        expect(grant.get("grant_type")).toBe("urn:ietf:params:oauth:grant-type:jwt-bearer")
        expect(grant.get("assertion")).toBe("workload-jwt")
        expect(grant.get("resource")).toBe(workload.url)

        // A rejected assertion is surfaced once: no retry, no other grant.
        const rejected = yield* world()
        const exit = yield* Effect.scoped(
          Effect.flatMap(
            connect(rejected.url, { machine: { _tag: "JwtBearer", clientId: "workload", assertion: "rejected" } }),
            (client) => client.tools
          )
        ).pipe(Effect.exit)
        expect(failureText(exit)).toContain("invalid_grant")
        expect(rejected.authorization.seen.filter((entry) => entry.path === "/token")).toHaveLength(1)

        const registry = new TokenRegistry()
        const idp = yield* authorizationServer(registry)
        const enterprise = yield* world({ clients: { "enterprise-client": "enterprise-secret" } })
        yield* Effect.scoped(
          Effect.flatMap(
            connect(enterprise.url, {
              machine: {
                _tag: "IdJag",
                clientId: "enterprise-client",
                clientSecret: "enterprise-secret",
                identityProvider: {
                  tokenEndpoint: `${idp.origin}/token`,
                  clientId: "idp-client",
                  idToken: "user-id-token"
                }
              }
            }),
            (client) => client.tools
          )
        )
        const exchange = new URLSearchParams(idp.seen.find((entry) => entry.path === "/token")?.body)
        expect(exchange.get("grant_type")).toBe("urn:ietf:params:oauth:grant-type:token-exchange")
        expect(exchange.get("subject_token_type")).toBe("urn:ietf:params:oauth:token-type:id_token")
        expect(exchange.get("audience")).toBe(enterprise.authorization.origin)
        expect(exchange.get("resource")).toBe(enterprise.url)
        const bearer = enterprise.authorization.seen.find((entry) => entry.path === "/token")
        expect(new URLSearchParams(bearer?.body).get("assertion")).toBe("jag-for-user-id-token")
        expect(bearer?.headers.authorization).toMatch(/^Basic /)
      })
  )

  it.scopedLive("DPoP: proofs at the token endpoint and on each request, both servers' nonces honoured", () =>
    Effect.gen(function* () {
      const { authorization, resource, url } = yield* world({ dpop: { nonce: "as-nonce" } }, { dpopNonce: "rs-nonce" })
      yield* Effect.scoped(
        Effect.gen(function* () {
          const client = yield* connect(url)
          yield* client.tools
          yield* client.callTool("secret")
        })
      )
      const tokenRequests = authorization.seen.filter((entry) => entry.path === "/token")
      // The first proof has no nonce and is refused; the retry carries the server's.
      expect(tokenRequests).toHaveLength(2)
      const accepted = yield* Effect.promise(() => verifyDpopProof(tokenRequests[1]?.headers.dpop as string))
      expect(accepted.ok && accepted.claims.nonce).toBe("as-nonce")
      const presented = resource.seen.filter((entry) => entry.headers.authorization?.startsWith("DPoP ") === true)
      expect(presented.length).toBeGreaterThanOrEqual(3)
      expect(bearerRequests(resource.seen)).toStrictEqual([])
      const proofs = presented.map((entry) => String(entry.headers.dpop))
      expect(new Set(proofs).size).toBe(proofs.length)
      const last = yield* Effect.promise(() => verifyDpopProof(proofs.at(-1)))
      expect(last.ok && last.claims.nonce).toBe("rs-nonce")
      // The MCP server's nonce did not cost a second authorization.
      expect(authorization.seen.filter((entry) => entry.path === "/authorize")).toHaveLength(1)
    })
  )

  it.scopedLive("a 2025-03-26 server without any metadata: its origin's default endpoints", () =>
    Effect.gen(function* () {
      // One origin is both the MCP server and the authorization server, with no metadata documents.
      const registry = new TokenRegistry()
      const server = yield* authorizationServer(registry, { noMetadata: true, servesMcp: true })
      yield* Effect.scoped(Effect.flatMap(connect(`${server.origin}/mcp`), (client) => client.tools))
      expect(paths(server.seen).filter((path) => path !== "POST /mcp")).toStrictEqual([
        "GET /.well-known/oauth-protected-resource/mcp",
        "GET /.well-known/oauth-protected-resource",
        "GET /.well-known/oauth-authorization-server",
        "POST /register",
        "GET /authorize",
        "POST /token"
      ])
    })
  )
})

describe("OAuth: failures say what the server said first", () => {
  /** An MCP server that refuses every request 403 insufficient_scope and serves nothing else (no metadata, no registration). */
  const refusingServer = faultServer((request, response) => {
    if (request.method !== "POST" || request.path !== "/mcp") return response.writeHead(404).end()
    response.writeHead(403, {
      "content-type": "application/json",
      "www-authenticate": 'Bearer error="insufficient_scope", scope="admin", error_description="needs admin"'
    })
    response.end(JSON.stringify({ error: "insufficient_scope" }))
  })

  it.scopedLive("a 403 insufficient_scope whose authorization fails: the status, error and scope, then the step", () =>
    Effect.gen(function* () {
      const { url } = yield* refusingServer
      const error = yield* Effect.flip(connect(url))
      expect(error.message).toMatch(
        /^protected: .*the server answered 403 \(insufficient_scope, "needs admin", scope "admin"\); authorization then failed \(registration\): http:\/\/127\.0\.0\.1:\d+\/register answered 404$/
      )
    }).pipe(noFibersLeft)
  )

  it.scopedLive("a failed authorization is an AuthorizationError a caller can catch by tag, said once", () =>
    Effect.gen(function* () {
      const { url } = yield* world({ registration: false })
      const caught = yield* connect(url).pipe(
        Effect.as("connected"),
        Effect.catchTag("AuthorizationError", (error) => Effect.succeed(error.message))
      )
      expect(caught).toMatch(
        /^protected: server\/discover: the server answered 401; authorization then failed \(registration\): http:\/\/127\.0\.0\.1:\d+ offers no dynamic registration; configure a client id registered with it$/
      )
    }).pipe(noFibersLeft)
  )
})

describe("OAuth: hostile servers", () => {
  const refused = (as: AuthorizationServerOptions, rs: Omit<ResourceServerOptions, "authorizationServer"> = {}) =>
    Effect.gen(function* () {
      const { authorization, url } = yield* world(as, rs)
      const exit = yield* Effect.scoped(Effect.flatMap(connect(url), (client) => client.tools)).pipe(Effect.exit)
      expect(Exit.isFailure(exit)).toBe(true)
      return { text: failureText(exit), seen: paths(authorization.seen) }
    })

  it.scopedLive("metadata naming another issuer is refused before anything is sent to it", () =>
    Effect.gen(function* () {
      const { text, seen } = yield* refused({ issuer: () => "https://attacker.example.com" })
      expect(text).toContain("names the issuer https://attacker.example.com")
      expect(seen).toStrictEqual(["GET /.well-known/oauth-authorization-server"])
    })
  )

  it.scopedLive("an authorization server without S256 is refused, before registration", () =>
    Effect.gen(function* () {
      const missing = yield* refused({ pkce: null })
      expect(missing.text).toContain("does not list PKCE S256")
      expect(missing.seen).toStrictEqual(["GET /.well-known/oauth-authorization-server"])
      const plainOnly = yield* refused({ pkce: ["plain"] })
      expect(plainOnly.text).toContain("does not list PKCE S256")
    })
  )

  it.scopedLive("a metadata redirect to another origin is not followed", () =>
    Effect.gen(function* () {
      const registry = new TokenRegistry()
      const elsewhere = yield* authorizationServer(registry)
      const { text } = yield* refused({
        metadataRedirect: `${elsewhere.origin}/.well-known/oauth-authorization-server`
      })
      expect(text).toContain("redirected to another origin")
      expect(elsewhere.seen).toStrictEqual([])
    })
  )

  it.scopedLive("oversize metadata is an error, not memory", () =>
    Effect.gen(function* () {
      const { text } = yield* refused({ metadataBytes: 2 * 1024 * 1024 })
      expect(text).toContain("exceeded the maximum size")
    })
  )

  it.scopedLive("metadata that never comes is an error after the time limit, not a hang", () =>
    Effect.gen(function* () {
      const { url } = yield* world({ metadataHangs: true })
      const exit = yield* Effect.scoped(
        // Generous: the steps before the metadata (the 401, the resource metadata) must fit in it on a loaded machine.
        Effect.flatMap(connect(url, { requestTimeout: "3 seconds" }), (client) => client.tools)
      ).pipe(Effect.exit)
      expect(failureText(exit)).toContain("took longer than 3s")
    }).pipe(noFibersLeft)
  )

  it.scopedLive("protected resource metadata for another resource is refused before authorization", () =>
    Effect.gen(function* () {
      const { text, seen } = yield* refused({}, { resource: () => "https://evil.example.com/mcp" })
      expect(text).toContain("is for https://evil.example.com/mcp")
      expect(seen).toStrictEqual([])
    })
  )

  it.scopedLive("a wrong state, a wrong iss, a promised iss that is missing: no token is requested", () =>
    Effect.gen(function* () {
      const state = yield* refused({ wrongState: true })
      expect(state.text).toContain("state")
      expect(state.seen).not.toContain("POST /token")
      const iss = yield* refused({ iss: "wrong" })
      expect(iss.text).toContain("RFC 9207")
      expect(iss.seen).not.toContain("POST /token")
      const missing = yield* refused({ iss: "omit", issSupported: true })
      expect(missing.text).toContain("promised an iss")
      expect(missing.seen).not.toContain("POST /token")
    })
  )

  it.scopedLive("an authorization endpoint that is neither HTTPS nor loopback is refused", () =>
    Effect.gen(function* () {
      const { text, seen } = yield* refused({ authorizationEndpoint: () => "http://auth.example.com/authorize" })
      expect(text).toContain("http://auth.example.com/authorize is neither HTTPS nor on this machine")
      expect(seen).not.toContain("GET /authorize")
    })
  )

  it.scopedLive("secrets, codes and tokens never appear in errors or logs", () =>
    Effect.gen(function* () {
      const logs: Array<string> = []
      const logger = Logger.make(({ message }) => logs.push(JSON.stringify(message)))
      const secret = "pre-registered-s3cr3t"
      const { authorization, url } = yield* world({
        registration: false,
        clients: { "known-client": secret },
        tokenError: { status: 400, error: "invalid_grant", description: "the code was already used" }
      })
      const exit = yield* Effect.scoped(
        Effect.flatMap(
          connect(url, { client: { clientId: "known-client", clientSecret: secret } }),
          (client) => client.tools
        )
      ).pipe(
        Effect.exit,
        Effect.provide(Logger.replace(Logger.defaultLogger, logger)),
        Logger.withMinimumLogLevel(LogLevel.All)
      )
      const text = failureText(exit)
      expect(text).toContain("invalid_grant: the code was already used")
      const token = authorization.seen.find((entry) => entry.path === "/token")
      expect(token?.headers.authorization).toMatch(/^Basic /)
      const code = new URLSearchParams(token?.body).get("code") ?? "no code"
      const verifier = new URLSearchParams(token?.body).get("code_verifier") ?? "no verifier"
      for (const leaked of [secret, code, verifier, token?.headers.authorization ?? "none"]) {
        expect(text).not.toContain(leaked)
        expect(logs.join("\n")).not.toContain(leaked)
      }
    })
  )
})

describe("OAuth: pieces", () => {
  const quoted = (value: string) => `"${value.replace(/(["\\])/g, "\\$1")}"`
  const name = FastCheck.stringMatching(/^[a-z_]{1,12}$/)

  it.prop(
    "WWW-Authenticate: any Bearer parameters, quoted with escapes, parse back",
    [FastCheck.dictionary(name, FastCheck.string({ maxLength: 30 }), { maxKeys: 5 })],
    ([params]) => {
      const header = `Basic realm="x", Bearer ${Object.entries(params)
        .map(([key, value]) => `${key}=${quoted(value)}`)
        .join(", ")}`
      expect(Challenge.bearer(header)).toStrictEqual(params)
    },
    { fastCheck: { numRuns: runs } }
  )

  it("WWW-Authenticate: a parameter named __proto__ is kept as a parameter (found by the property above)", () => {
    const params = Challenge.bearer('Bearer __proto__="x", scope="a"')
    expect(params !== undefined && Object.hasOwn(params, "__proto__")).toBe(true)
    expect(params?.scope).toBe("a")
    expect(Object.getPrototypeOf(params)).toBe(Object.prototype)
  })

  it("WWW-Authenticate: token values, several challenges, and garbage", () => {
    expect(
      Challenge.parse('Bearer error=insufficient_scope, scope="a b", resource_metadata="https://x/.well-known/y"')
    ).toStrictEqual([
      {
        scheme: "bearer",
        params: { error: "insufficient_scope", scope: "a b", resource_metadata: "https://x/.well-known/y" }
      }
    ])
    expect(Challenge.bearer(undefined)).toBeUndefined()
    expect(Challenge.bearer('DPoP algs="ES256", Bearer scope="s"')).toStrictEqual({ scope: "s" })
    expect(Challenge.bearer(',,, "unterminated')).toBeUndefined()
    expect(Challenge.bearer('Bearer scope="never closed')).toStrictEqual({ scope: "never closed" })
    expect(Challenge.scopes("  a  b ")).toStrictEqual(["a", "b"])
  })

  it("well-known URLs in the specification's order, and the canonical resource", () => {
    expect(OAuthMetadata.resourceMetadataUrls("https://h.example/public/mcp")).toStrictEqual([
      "https://h.example/.well-known/oauth-protected-resource/public/mcp",
      "https://h.example/.well-known/oauth-protected-resource"
    ])
    expect(OAuthMetadata.authorizationServerMetadataUrls("https://auth.example/tenant1")).toStrictEqual([
      "https://auth.example/.well-known/oauth-authorization-server/tenant1",
      "https://auth.example/.well-known/openid-configuration/tenant1",
      "https://auth.example/tenant1/.well-known/openid-configuration"
    ])
    expect(OAuthMetadata.authorizationServerMetadataUrls("https://auth.example")).toStrictEqual([
      "https://auth.example/.well-known/oauth-authorization-server",
      "https://auth.example/.well-known/openid-configuration"
    ])
    expect(OAuthMetadata.canonicalResource("HTTPS://MCP.Example.com/mcp/#frag")).toBe("https://mcp.example.com/mcp")
    expect(OAuthMetadata.resourceCovers("https://h.example", "https://h.example/mcp")).toBe(true)
    expect(OAuthMetadata.resourceCovers("https://h.example/mcp", "https://h.example/mcp")).toBe(true)
    expect(OAuthMetadata.resourceCovers("https://h.example/other", "https://h.example/mcp")).toBe(false)
    expect(OAuthMetadata.resourceCovers("https://evil.example/mcp", "https://h.example/mcp")).toBe(false)
    expect(OAuthMetadata.isSecure("http://127.0.0.1:8080/x")).toBe(true)
    expect(OAuthMetadata.isSecure("http://localhost/x")).toBe(true)
    expect(OAuthMetadata.isSecure("http://auth.example/x")).toBe(false)
    expect(OAuthMetadata.isSecure("https://auth.example/x")).toBe(true)
  })

  it("AuthorizationError is a Schema.TaggedError: it encodes to JSON and decodes to the same message", () => {
    const error = new AuthError.AuthorizationError({
      server: "s",
      step: "token",
      reason: "refused",
      method: "tools/call",
      refusal: { status: 401, error: "invalid_token" },
      cause: new AuthError.AssertionError({ reason: "no workload identity" })
    })
    const encoded = JSON.parse(JSON.stringify(Schema.encodeSync(AuthError.AuthorizationError)(error)))
    expect(encoded).toMatchObject({ _tag: "AuthorizationError", server: "s", step: "token", method: "tools/call" })
    const decoded = Schema.decodeUnknownSync(AuthError.AuthorizationError)(encoded)
    expect(decoded.message).toBe(error.message)
    expect(decoded.message).toBe(
      "s: tools/call: the server answered 401 (invalid_token); authorization then failed (token): refused"
    )
    expect(decoded).toBeInstanceOf(AuthError.AuthorizationError)
  })

  it.effect("the token store keeps issuers apart", () =>
    Effect.gen(function* () {
      const store = yield* TokenStore.TokenStore
      const tokens = { access_token: "a", token_type: "Bearer", client_id: "c" }
      yield* store.saveTokens({ issuer: "https://as1", resource: "https://rs/mcp" }, tokens)
      yield* store.saveClient("https://as1", { client_id: "c" })
      expect((yield* store.client("https://as2"))._tag).toBe("None")
      expect((yield* store.tokens({ issuer: "https://as2", resource: "https://rs/mcp" }))._tag).toBe("None")
      const latest = yield* store.latest("https://rs/mcp")
      expect(latest._tag === "Some" && latest.value.issuer).toBe("https://as1")
      yield* store.removeTokens({ issuer: "https://as1", resource: "https://rs/mcp" })
      expect((yield* store.latest("https://rs/mcp"))._tag).toBe("None")
    }).pipe(Effect.provide(services.pipe(Layer.provide(keepAliveHttpClient))))
  )
})
