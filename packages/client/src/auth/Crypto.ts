/**
 * The cryptography of the flow on Web Crypto (in Node 20 and every browser): random state and
 * PKCE verifiers, the S256 challenge, signed JWT client assertions (RFC 7523, for
 * `private_key_jwt`) from a PKCS#8 PEM key, and DPoP proofs (RFC 9449) with a key pair made
 * for the session (its private half never leaves Web Crypto).
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { AssertionError } from "./AuthError.js"

const base64url = (bytes: Uint8Array): string => {
  let binary = ""
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
}

/**
 * Web Crypto's types, read off the global `crypto` (Node's or a browser's declarations alike), so
 * that no platform module is imported for them.
 */
type Subtle = typeof globalThis.crypto.subtle
type CryptoKey = Awaited<ReturnType<Subtle["importKey"]>>
type ImportAlgorithm = Parameters<Subtle["importKey"]>[2]
type SignAlgorithm = Parameters<Subtle["sign"]>[0]

const utf8 = (text: string) => new TextEncoder().encode(text)

/** `bytes` random bytes, base64url: 32 make a PKCE verifier of 43 characters. */
export const randomToken = (bytes = 32): string => base64url(globalThis.crypto.getRandomValues(new Uint8Array(bytes)))

/** The S256 code challenge of a verifier: BASE64URL(SHA256(verifier)). */
export const challengeS256 = (verifier: string): Effect.Effect<string> =>
  Effect.promise(() => globalThis.crypto.subtle.digest("SHA-256", utf8(verifier))).pipe(
    Effect.map((digest) => base64url(new Uint8Array(digest)))
  )

/** The JWS algorithms a client assertion can be signed with. */
export type SigningAlgorithm = "ES256" | "ES384" | "RS256" | "PS256"

/** The Web Crypto parameters of each algorithm. */
const importParams = (
  algorithm: SigningAlgorithm
): {
  readonly import: ImportAlgorithm
  readonly sign: SignAlgorithm
} => {
  switch (algorithm) {
    case "ES256":
      return { import: { name: "ECDSA", namedCurve: "P-256" }, sign: { name: "ECDSA", hash: "SHA-256" } }
    case "ES384":
      return { import: { name: "ECDSA", namedCurve: "P-384" }, sign: { name: "ECDSA", hash: "SHA-384" } }
    case "RS256":
      return { import: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, sign: { name: "RSASSA-PKCS1-v1_5" } }
    case "PS256":
      return { import: { name: "RSA-PSS", hash: "SHA-256" }, sign: { name: "RSA-PSS", saltLength: 32 } }
  }
}

const pemBody = (pem: string): Uint8Array => {
  const base64 = pem.replace(/-----(BEGIN|END) [A-Z ]+-----/g, "").replace(/\s+/g, "")
  const binary = atob(base64)
  const bytes = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
  return bytes
}

/** A signed JWT: `header.payload.signature`; fails with an `AssertionError` when the key cannot be used. */
export const signJwt = (
  claims: { readonly [name: string]: unknown },
  privateKeyPem: string,
  algorithm: SigningAlgorithm
): Effect.Effect<string, AssertionError> =>
  Effect.tryPromise({
    try: async () => {
      const params = importParams(algorithm)
      const key = await globalThis.crypto.subtle.importKey("pkcs8", pemBody(privateKeyPem), params.import, false, [
        "sign"
      ])
      const input = `${base64url(utf8(JSON.stringify({ alg: algorithm, typ: "JWT" })))}.${base64url(utf8(JSON.stringify(claims)))}`
      const signature = await globalThis.crypto.subtle.sign(params.sign, key, utf8(input))
      return `${input}.${base64url(new Uint8Array(signature))}`
    },
    catch: (error) =>
      new AssertionError({
        reason: `the private key could not sign a ${algorithm} assertion (${error instanceof Error ? error.name : "error"})`
      })
  })

/** A DPoP key pair: the private key (not extractable) and the public key as a JWK. */
export interface DpopKey {
  readonly privateKey: CryptoKey
  readonly publicJwk: { readonly kty: string; readonly crv: string; readonly x: string; readonly y: string }
}

/** A fresh ES256 key pair for DPoP. */
export const makeDpopKey: Effect.Effect<DpopKey> = Effect.promise(async () => {
  const pair = await globalThis.crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, [
    "sign",
    "verify"
  ])
  const jwk = await globalThis.crypto.subtle.exportKey("jwk", pair.publicKey)
  return {
    privateKey: pair.privateKey,
    publicJwk: { kty: jwk.kty ?? "EC", crv: jwk.crv ?? "P-256", x: jwk.x ?? "", y: jwk.y ?? "" }
  }
})

/** The URL a proof names (`htu`): without query and fragment. */
const htuOf = (url: string) => {
  const parsed = new URL(url)
  return `${parsed.origin}${parsed.pathname}`
}

/** A DPoP proof for one request; `accessToken` binds it to the token (`ath`), `nonce` is the server's. */
export const dpopProof = (
  key: DpopKey,
  request: { readonly method: string; readonly url: string; readonly nonce?: string; readonly accessToken?: string }
): Effect.Effect<string> =>
  Effect.flatMap(Clock.currentTimeMillis, (now) =>
    Effect.promise(async () => {
      const ath =
        request.accessToken === undefined
          ? undefined
          : base64url(new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", utf8(request.accessToken))))
      const header = { typ: "dpop+jwt", alg: "ES256", jwk: key.publicJwk }
      const claims = {
        jti: randomToken(16),
        htm: request.method.toUpperCase(),
        htu: htuOf(request.url),
        iat: Math.floor(now / 1000),
        ...(request.nonce === undefined ? {} : { nonce: request.nonce }),
        ...(ath === undefined ? {} : { ath })
      }
      const input = `${base64url(utf8(JSON.stringify(header)))}.${base64url(utf8(JSON.stringify(claims)))}`
      const signature = await globalThis.crypto.subtle.sign(
        { name: "ECDSA", hash: "SHA-256" },
        key.privateKey,
        utf8(input)
      )
      return `${input}.${base64url(new Uint8Array(signature))}`
    })
  )
