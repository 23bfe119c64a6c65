/**
 * The gateway as an OAuth 2.1 resource server, against a loopback authorization server issuing real
 * JWTs (`support/authorizationServer.ts`): its Protected Resource Metadata at both well-known paths
 * and named by every challenge; a token accepted only when the issuer's key signed it for this
 * audience, unexpired, with the required scopes (401 `invalid_token` or 403 `insufficient_scope`
 * otherwise); the keys rotated; opaque tokens introspected; the principal its `sub`, whatever token
 * it presents (a refreshed token keeps its session; another subject's does not); our own client's
 * OAuth discovery finds the authorization server from the gateway's challenge. On the live clock
 * (no test services): the tokens' expiry is checked against the real time they were signed at.
 */
import { createServer } from "node:net"
import * as HttpClient from "@effect/platform/HttpClient"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { expect, layer } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Challenge from "../../client/src/auth/Challenge.js"
import * as Discovery from "../../client/src/auth/Discovery.js"
import { Authentication, NodeStreamableHttpServer } from "../src/index.js"
import * as HttpCore from "../src/internal/httpCore.js"
import type * as Reply from "../src/internal/reply.js"
import * as AuthorizationServer from "./support/authorizationServer.js"
import { postTo, statusOf } from "./support/core.js"
import { everything, gatewayHost } from "./support/gateway.js"

const RESOURCE = "https://mcp.example.com/mcp"
const METADATA = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "test", version: "1" } }
}

const withToken = (token: string) => ({ authorization: `Bearer ${token}` })

/** The resource server over `as`, requiring `mcp:tools`. */
const verifierOf = (
  as: AuthorizationServer.AuthorizationServer,
  options: Partial<Authentication.OAuthOptions> = {},
  jwks = true
) =>
  Authentication.oauth({
    resource: RESOURCE,
    issuer: as.issuer,
    ...(jwks ? { jwksUrl: as.jwksUrl } : {}),
    requiredScopes: ["mcp:tools"],
    jwksCooldown: 0,
    ...options
  }).pipe(
    // The HTTP client lives as long as the test (its scope): the verifier introspects with it later.
    (made) => Effect.flatMap(Layer.build(NodeHttpClient.layerUndici), (http) => Effect.provide(made, http))
  )

const get = (handle: HttpCore.Handler, url: string) =>
  handle({ method: "GET", url, headers: {}, json: Effect.succeed(undefined) })

const challengeOf = (reply: Reply.Reply) => reply.headers["www-authenticate"] ?? ""

/** A port free now on loopback. */
const freePort = Effect.async<number>((resume) => {
  const probe = createServer()
  probe.listen(0, "127.0.0.1", () => {
    const address = probe.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    probe.close(() => resume(Effect.succeed(port)))
  })
})

layer(gatewayHost({ servers: [{ name: "everything", target: everything }] }), {
  excludeTestServices: true,
  timeout: "60 seconds"
})("the gateway as an OAuth resource server", (it) => {
  it.scoped(
    "serves its Protected Resource Metadata at both well-known paths; a request without a token is told where",
    () =>
      Effect.gen(function* () {
        const as = yield* AuthorizationServer.start(RESOURCE)
        const handle = yield* HttpCore.make({
          oauth: yield* verifierOf(as, { scopesSupported: ["mcp:tools", "mcp:admin"] })
        })
        for (const url of ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]) {
          const metadata = yield* get(handle, url)
          expect(statusOf(metadata)).toBe(200)
          expect(metadata._tag === "Json" && metadata.body).toEqual({
            resource: RESOURCE,
            authorization_servers: [as.issuer],
            scopes_supported: ["mcp:tools", "mcp:admin"],
            bearer_methods_supported: ["header"]
          })
        }
        expect(
          statusOf(
            yield* handle({
              method: "POST",
              url: "/.well-known/oauth-protected-resource",
              headers: {},
              json: Effect.succeed({})
            })
          )
        ).toBe(405)
        const none = yield* postTo(handle, initialize)
        expect(statusOf(none)).toBe(401)
        expect(challengeOf(none)).toBe(`Bearer scope="mcp:tools", resource_metadata="${METADATA}"`)
      })
  )

  it.scoped(
    "accepts the issuer's token for this audience with the scopes, and refuses every other as the spec says",
    () =>
      Effect.gen(function* () {
        const as = yield* AuthorizationServer.start(RESOURCE)
        const handle = yield* HttpCore.make({ oauth: yield* verifierOf(as) })
        const status = (token: string) => Effect.map(postTo(handle, initialize, withToken(token)), statusOf)
        const good = yield* Effect.promise(() => as.sign({ scope: "mcp:tools other" }))
        expect(yield* status(good)).toBe(200)
        // scp as an array (some servers' form) is read too.
        expect(yield* status(yield* Effect.promise(() => as.sign({ scp: ["mcp:tools"] })))).toBe(200)

        const refusals: ReadonlyArray<readonly [string, Record<string, unknown>, string]> = [
          ["expired", { scope: "mcp:tools", exp: Math.floor(Date.now() / 1000) - 60 }, "the token has expired"],
          [
            "another audience",
            { scope: "mcp:tools", aud: "https://other.example/mcp" },
            "the token's audience is not accepted"
          ],
          ["another issuer", { scope: "mcp:tools", iss: "https://evil.example" }, "the token's issuer is not accepted"],
          ["no expiry", { scope: "mcp:tools", exp: undefined }, "claim exp"]
        ]
        for (const [, claims, reason] of refusals) {
          const reply = yield* postTo(handle, initialize, withToken(yield* Effect.promise(() => as.sign(claims))))
          expect(statusOf(reply)).toBe(401)
          expect(challengeOf(reply)).toMatch(
            /^Bearer error="invalid_token", error_description="[^"]+", scope="mcp:tools", resource_metadata="/
          )
          expect(challengeOf(reply)).toContain(reason)
        }
        const stranger = yield* postTo(
          handle,
          initialize,
          withToken(yield* Effect.promise(() => as.sign({ scope: "mcp:tools" }, { key: "stranger" })))
        )
        expect(statusOf(stranger)).toBe(401)
        expect(challengeOf(stranger)).toContain("the signature does not verify")
        const garbage = yield* postTo(handle, initialize, withToken("not.a.jwt"))
        expect(statusOf(garbage)).toBe(401)
        expect(challengeOf(garbage)).toContain('error="invalid_token"')

        const narrow = yield* postTo(
          handle,
          initialize,
          withToken(yield* Effect.promise(() => as.sign({ scope: "other" })))
        )
        expect(statusOf(narrow)).toBe(403)
        expect(challengeOf(narrow)).toBe(
          `Bearer error="insufficient_scope", scope="mcp:tools", resource_metadata="${METADATA}"`
        )
      })
  )

  it.scoped("finds rotated keys: a token of a key id it has not seen fetches the JWKS again", () =>
    Effect.gen(function* () {
      const as = yield* AuthorizationServer.start(RESOURCE)
      const handle = yield* HttpCore.make({ oauth: yield* verifierOf(as) })
      const status = (token: string) => Effect.map(postTo(handle, initialize, withToken(token)), statusOf)
      expect(yield* status(yield* Effect.promise(() => as.sign({ scope: "mcp:tools" })))).toBe(200)
      expect(yield* status(yield* Effect.promise(() => as.sign({ scope: "mcp:tools" })))).toBe(200)
      expect(as.jwksFetches()).toBe(1)
      yield* Effect.promise(() => as.rotate())
      expect(yield* status(yield* Effect.promise(() => as.sign({ scope: "mcp:tools" })))).toBe(200)
      expect(as.jwksFetches()).toBe(2)
    })
  )

  it.scoped("a session is its subject's: a refreshed token keeps it, another subject's token is not served it", () =>
    Effect.gen(function* () {
      const as = yield* AuthorizationServer.start(RESOURCE)
      const handle = yield* HttpCore.make({ oauth: yield* verifierOf(as) })
      const first = yield* Effect.promise(() => as.sign({ scope: "mcp:tools", jti: "1" }))
      const opened = yield* postTo(handle, initialize, withToken(first))
      const session = opened.headers["mcp-session-id"] ?? ""
      expect(session).not.toBe("")
      const list = (token: string) =>
        postTo(
          handle,
          { jsonrpc: "2.0", id: 2, method: "tools/list" },
          {
            ...withToken(token),
            "mcp-session-id": session,
            "mcp-protocol-version": "2025-11-25"
          }
        )
      const refreshed = yield* Effect.promise(() => as.sign({ scope: "mcp:tools", jti: "2" }))
      expect(statusOf(yield* list(refreshed))).toBe(200)
      const grace = yield* Effect.promise(() => as.sign({ scope: "mcp:tools", sub: "grace" }))
      expect(statusOf(yield* list(grace))).toBe(404)
    })
  )

  it.scoped("introspects opaque tokens: active, for this audience and issuer, unexpired; 503 when it cannot ask", () =>
    Effect.gen(function* () {
      const as = yield* AuthorizationServer.start(RESOURCE)
      const oauth = yield* verifierOf(
        as,
        {
          introspection: {
            url: as.introspectionUrl,
            clientId: AuthorizationServer.CLIENT_ID,
            clientSecret: Redacted.make(AuthorizationServer.CLIENT_SECRET)
          }
        },
        false
      )
      const handle = yield* HttpCore.make({ oauth })
      const later = Math.floor(Date.now() / 1000) + 600
      const active = { active: true, sub: "ada", aud: RESOURCE, iss: as.issuer, scope: "mcp:tools", exp: later }
      as.opaque.set("good", active)
      as.opaque.set("inactive", { active: false })
      as.opaque.set("elsewhere", { ...active, aud: ["https://other.example"] })
      as.opaque.set("expired", { ...active, exp: Math.floor(Date.now() / 1000) - 1 })
      as.opaque.set("narrow", { ...active, scope: "read" })
      as.opaque.set("malformed", { active: "yes" })
      const reply = (token: string) => postTo(handle, initialize, withToken(token))
      const good = yield* reply("good")
      expect(good._tag === "Json" ? good.body : good).toMatchObject({ result: {} })
      for (const [token, reason] of [
        ["inactive", "the token is not active"],
        ["unknown", "the token is not active"],
        ["elsewhere", "the token's audience is not accepted"],
        ["expired", "the token has expired"]
      ] as const) {
        const refused = yield* reply(token)
        expect(statusOf(refused)).toBe(401)
        expect(challengeOf(refused)).toContain(reason)
      }
      expect(statusOf(yield* reply("narrow"))).toBe(403)
      // An answer that is not RFC 7662's, or none, says nothing of the token: 503, try again.
      expect(statusOf(yield* reply("malformed"))).toBe(503)
      // An active answer is kept: "good" is not asked again, even while the endpoint is down; a
      // token it has not vouched for cannot be verified then.
      const asked = as.introspections()
      expect(statusOf(yield* reply("good"))).toBe(200)
      expect(as.introspections()).toBe(asked)
      as.up.introspection = false
      expect(statusOf(yield* reply("good"))).toBe(200)
      as.opaque.set("fresh", active)
      const down = yield* reply("fresh")
      expect(statusOf(down)).toBe(503)
      expect(down.headers["retry-after"]).toBe("5")
      // Refusals are not kept: an inactive token is asked about each time.
      as.up.introspection = true
      const before = as.introspections()
      yield* reply("inactive")
      yield* reply("inactive")
      expect(as.introspections()).toBe(before + 2)
    })
  )

  it.scoped("with cacheFor 0 every request asks the introspection endpoint", () =>
    Effect.gen(function* () {
      const as = yield* AuthorizationServer.start(RESOURCE)
      const oauth = yield* verifierOf(
        as,
        {
          introspection: {
            url: as.introspectionUrl,
            clientId: AuthorizationServer.CLIENT_ID,
            clientSecret: Redacted.make(AuthorizationServer.CLIENT_SECRET),
            cacheFor: 0
          }
        },
        false
      )
      const handle = yield* HttpCore.make({ oauth })
      const later = Math.floor(Date.now() / 1000) + 600
      as.opaque.set("good", { active: true, sub: "ada", aud: RESOURCE, iss: as.issuer, scope: "mcp:tools", exp: later })
      for (let i = 0; i < 3; i++) expect(statusOf(yield* postTo(handle, initialize, withToken("good")))).toBe(200)
      expect(as.introspections()).toBe(3)
    })
  )

  it.scoped("a refusal, or any answer with cacheFor 0, is asked again within the same millisecond", () =>
    Effect.gen(function* () {
      const as = yield* AuthorizationServer.start(RESOURCE)
      const introspection = {
        url: as.introspectionUrl,
        clientId: AuthorizationServer.CLIENT_ID,
        clientSecret: Redacted.make(AuthorizationServer.CLIENT_SECRET)
      }
      const keeping = yield* HttpCore.make({ oauth: yield* verifierOf(as, { introspection }, false) })
      const never = yield* HttpCore.make({
        oauth: yield* verifierOf(as, { introspection: { ...introspection, cacheFor: 0 } }, false)
      })
      const later = Math.floor(Date.now() / 1000) + 600
      as.opaque.set("good", { active: true, sub: "ada", aud: RESOURCE, iss: as.issuer, scope: "mcp:tools", exp: later })
      as.opaque.set("inactive", { active: false })
      // Time stands still: every request comes in the same millisecond.
      const live = Clock.make()
      const now = live.unsafeCurrentTimeMillis()
      const frozen: Clock.Clock = Object.create(live, {
        unsafeCurrentTimeMillis: { value: () => now },
        currentTimeMillis: { value: Effect.succeed(now) }
      })
      const reply = (handle: HttpCore.Handler, token: string) =>
        Effect.map(Effect.withClock(postTo(handle, initialize, withToken(token)), frozen), statusOf)
      const before = as.introspections()
      expect([yield* reply(keeping, "inactive"), yield* reply(keeping, "inactive")]).toEqual([401, 401])
      expect(as.introspections()).toBe(before + 2)
      expect([yield* reply(never, "good"), yield* reply(never, "good")]).toEqual([200, 200])
      expect(as.introspections()).toBe(before + 4)
    })
  )

  it.effect("refuses options that cannot work", () =>
    Effect.gen(function* () {
      const made = (options: Authentication.OAuthOptions) =>
        Effect.map(
          Effect.flip(Authentication.oauth(options).pipe(Effect.provide(NodeHttpClient.layerUndici))),
          (e) => e.message
        )
      expect(yield* made({ resource: RESOURCE, issuer: "https://as.example" })).toBe(
        "OAuth resource server: give a JWKS URL or an introspection endpoint (or both)"
      )
      expect(yield* made({ resource: "mcp", issuer: "https://as.example", jwksUrl: "https://as.example/jwks" })).toBe(
        "OAuth resource server: the resource is not a URL: mcp"
      )
      expect(
        yield* made({ resource: `${RESOURCE}#x`, issuer: "https://as.example", jwksUrl: "https://as.example/jwks" })
      ).toContain("without a fragment")
      expect(
        yield* made({ resource: RESOURCE, issuer: "https://as.example", jwksUrl: "ftp://as.example/jwks" })
      ).toContain("the JWKS URL must be an http(s) URL")
    })
  )

  it.scoped("over Node's HTTP: the challenge header and the metadata it names, as a client discovers them", () =>
    Effect.gen(function* () {
      const port = yield* freePort
      const resource = `http://127.0.0.1:${port}/mcp`
      const as = yield* AuthorizationServer.start(resource)
      const oauth = yield* verifierOf(as, { resource })
      // Beyond loopback OAuth is enough (no shared token needed); here on loopback, for the test.
      yield* NodeStreamableHttpServer.listen({ port, oauth })
      const refused = yield* Effect.promise(() =>
        fetch(resource, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
          body: JSON.stringify(initialize)
        })
      )
      expect(refused.status).toBe(401)
      const challenge = refused.headers.get("www-authenticate") ?? ""
      const named = /resource_metadata="([^"]+)"/.exec(challenge)?.[1] ?? ""
      expect(named).toBe(`http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`)
      const metadata = yield* Effect.promise(() => fetch(named).then((response) => response.json()))
      expect(metadata).toMatchObject({ resource, authorization_servers: [as.issuer] })
      // Our own client's OAuth flow discovers where to authorize from the challenge alone.
      const http = yield* Layer.build(NodeHttpClient.layerUndici)
      const discovered = yield* Discovery.discover(
        {
          client: Context.get(http, HttpClient.HttpClient),
          server: "gateway",
          limits: { maxBytes: 1_000_000, timeout: Duration.seconds(10) }
        },
        resource,
        Challenge.bearer(challenge)
      )
      expect(discovered).toMatchObject({ issuer: as.issuer, resource, resourceScopes: ["mcp:tools"] })
      const token = yield* Effect.promise(() => as.sign({ scope: "mcp:tools" }))
      const accepted = yield* Effect.promise(() =>
        fetch(resource, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            authorization: `Bearer ${token}`
          },
          body: JSON.stringify(initialize)
        })
      )
      expect(accepted.status).toBe(200)
      yield* Effect.promise(() => accepted.text())
    })
  )
})
