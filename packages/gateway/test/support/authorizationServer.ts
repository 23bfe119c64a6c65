/**
 * A loopback OAuth authorization server for the gateway's resource-server tests: real keys (jose
 * `generateKeyPair`), its JWKS served over HTTP (the keys can rotate), JWTs signed with `SignJWT`,
 * an introspection endpoint (RFC 7662, HTTP Basic client authentication) for opaque tokens, and its
 * metadata (RFC 8414) for clients' discovery.
 */
import { createServer } from "node:http"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { exportJWK, generateKeyPair, SignJWT } from "jose"

type Key = Awaited<ReturnType<typeof generateKeyPair>>

/** What an opaque token introspects as. */
export type Introspected = Readonly<Record<string, unknown>>

/** The fixture server. */
export interface AuthorizationServer {
  readonly issuer: string
  readonly jwksUrl: string
  readonly introspectionUrl: string
  /** A JWT signed with the current key; `claims` over the defaults (sub, aud, iss, exp in an hour). */
  readonly sign: (
    claims: Record<string, unknown>,
    options?: { readonly key?: "current" | "stranger" }
  ) => Promise<string>
  /** Serves a new key in the JWKS (the old one gone), signing with it from now on. */
  readonly rotate: () => Promise<void>
  /** The opaque tokens and what each introspects as. */
  readonly opaque: Map<string, Introspected>
  /** How many times the JWKS was fetched. */
  readonly jwksFetches: () => number
  /** How many introspection requests were made. */
  readonly introspections: () => number
  /** Whether the introspection endpoint answers (500 when not). */
  readonly up: { introspection: boolean }
}

export const CLIENT_ID = "gateway"
export const CLIENT_SECRET = "gateway-secret"

/** Starts the server on loopback for as long as the scope is open; tokens are for `audience`. */
export const start = (audience: string): Effect.Effect<AuthorizationServer, never, Scope.Scope> =>
  Effect.gen(function* () {
    let key: Key & { readonly kid: string } = { ...(yield* Effect.promise(() => generateKeyPair("ES256"))), kid: "k1" }
    const stranger = yield* Effect.promise(() => generateKeyPair("ES256"))
    let fetches = 0
    let introspections = 0
    const opaque = new Map<string, Introspected>()
    const up = { introspection: true }
    const server = createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", async () => {
        if (request.url === "/.well-known/oauth-authorization-server") {
          const issuer = `http://127.0.0.1:${port}`
          response.writeHead(200, { "content-type": "application/json" })
          return response.end(
            JSON.stringify({
              issuer,
              authorization_endpoint: `${issuer}/authorize`,
              token_endpoint: `${issuer}/token`,
              jwks_uri: `${issuer}/jwks`,
              introspection_endpoint: `${issuer}/introspect`,
              code_challenge_methods_supported: ["S256"]
            })
          )
        }
        if (request.url === "/jwks") {
          fetches++
          const jwk = await exportJWK(key.publicKey)
          response.writeHead(200, { "content-type": "application/json" })
          return response.end(JSON.stringify({ keys: [{ ...jwk, kid: key.kid, alg: "ES256", use: "sig" }] }))
        }
        if (request.url === "/introspect" && request.method === "POST") {
          const basic = `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString("base64")}`
          introspections++
          if (!up.introspection) return response.writeHead(500).end()
          if (request.headers.authorization !== basic) return response.writeHead(401).end()
          const token = new URLSearchParams(Buffer.concat(chunks).toString()).get("token") ?? ""
          response.writeHead(200, { "content-type": "application/json" })
          return response.end(JSON.stringify(opaque.get(token) ?? { active: false }))
        }
        response.writeHead(404).end()
      })
    })
    let port = 0
    port = yield* Effect.acquireRelease(
      Effect.async<number>((resume) => {
        server.listen(0, "127.0.0.1", () => {
          const address = server.address()
          resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : 0))
        })
      }),
      () => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
    )
    const issuer = `http://127.0.0.1:${port}`
    return {
      issuer,
      jwksUrl: `${issuer}/jwks`,
      introspectionUrl: `${issuer}/introspect`,
      opaque,
      up,
      jwksFetches: () => fetches,
      introspections: () => introspections,
      sign: (claims, options) => {
        const signing = options?.key === "stranger" ? stranger.privateKey : key.privateKey
        const now = Math.floor(Date.now() / 1000)
        return new SignJWT({ sub: "ada", aud: audience, iss: issuer, iat: now, exp: now + 3600, ...claims })
          .setProtectedHeader({ alg: "ES256", kid: options?.key === "stranger" ? "k1" : key.kid })
          .sign(signing)
      },
      rotate: async () => {
        key = { ...(await generateKeyPair("ES256")), kid: `k${Number(key.kid.slice(1)) + 1}` }
      }
    }
  })
