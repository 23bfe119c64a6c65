/**
 * `requestState` tokens the gateway hands a 2026-07-28 client between input rounds: authenticated
 * encryption (AES-256-GCM, Web Crypto) under a key shared by every instance, named by a key id so
 * that keys can rotate (the first key seals; the others still open what they sealed; a token of a
 * key no longer listed is refused). The payload is what the next round needs, so any instance can
 * finish any round: who it belongs to, until when, for which request, the answers so far, and a
 * 2026-07-28 server's own round (its name and its `requestState`, untouched) or the held call of a
 * stateful server that the retry continues (`heldCalls.ts`). A token is read back
 * through a Schema: decryption proves who made it, not what it holds.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"

type CryptoKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>

/** A key: its id and 32 bytes of secret. */
export interface SealingKey {
  readonly id: string
  readonly secret: Uint8Array
}

/**
 * A record carried as its entries, and rebuilt with `Object.fromEntries`: every key stays an own
 * key, `__proto__` included (a record decoded member by member would set the prototype instead).
 */
const entriesOf = <V, I>(value: Schema.Schema<V, I>) =>
  Schema.transform(
    Schema.Array(Schema.Tuple(Schema.String, value)),
    Schema.declare((input): input is Readonly<Record<string, V>> => typeof input === "object" && input !== null),
    {
      strict: true,
      decode: (entries) => Object.fromEntries(entries),
      encode: (record) => Object.entries(record)
    }
  )

/** What a token carries. */
export const Payload = Schema.Struct({
  /** A digest of the caller's principal (`principal.ts` `currentCaller`): another caller cannot use the token. */
  caller: Schema.String,
  /** Milliseconds since the epoch after which the token is refused. */
  expires: Schema.Int.pipe(Schema.positive()),
  method: Schema.String,
  /** The tool, prompt or URI the request names. */
  name: Schema.String,
  /** A digest of the request's arguments: the retry must be the same request. */
  arguments: Schema.String,
  /** The answers to the input requests so far, by the gateway's keys. */
  answers: entriesOf(Schema.Unknown),
  /** The last round's requests: the key the client saw, and the gateway's key for it. */
  asked: entriesOf(Schema.String),
  /**
   * The 2026-07-28 server whose input requests the last round relayed, and its own `requestState`
   * untouched: the retry continues that server's round instead of running the request again.
   */
  serverRound: Schema.optionalWith(
    Schema.Struct({ server: Schema.String, requestState: Schema.optionalWith(Schema.String, { exact: true }) }),
    { exact: true }
  ),
  /**
   * The stateful server's call the last round's requests wait in, and the instance that holds it
   * (`heldCalls.ts`): the retry continues that call there.
   */
  held: Schema.optionalWith(Schema.Struct({ instance: Schema.String, id: Schema.String, server: Schema.String }), {
    exact: true
  })
})

/** The type of {@link Payload}. */
export type Payload = typeof Payload.Type

/** Why a token is refused. */
export type Refusal = "malformed" | "unknown key" | "tampered" | "expired" | "not this request"

const decodePayload = Schema.decodeUnknownEither(Schema.parseJson(Payload))

const base64url = (bytes: Uint8Array): string =>
  btoa(String.fromCharCode(...bytes))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "")

const fromBase64url = (text: string): Uint8Array | undefined => {
  try {
    const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"))
    return Uint8Array.from(binary, (char) => char.charCodeAt(0))
  } catch {
    return undefined
  }
}

const encoder = new TextEncoder()

/** SHA-256 of a text, base64url: digests of credentials and arguments. */
export const digest = (text: string): Effect.Effect<string> =>
  Effect.promise(() => crypto.subtle.digest("SHA-256", encoder.encode(text))).pipe(
    Effect.map((hash) => base64url(new Uint8Array(hash)))
  )

/** A sealer over `keys` (the first seals). */
export interface Sealer {
  readonly seal: (payload: Payload) => Effect.Effect<string>
  readonly open: (token: string, now: number) => Effect.Effect<Payload, Refusal>
}

/** The sealer of these keys. */
export const make = (keys: ReadonlyArray<SealingKey>): Effect.Effect<Sealer> =>
  Effect.gen(function* () {
    const importKey = (key: SealingKey) =>
      Effect.promise(() => crypto.subtle.importKey("raw", key.secret, "AES-GCM", false, ["encrypt", "decrypt"]))
    const current = keys[0]
    if (current === undefined) return yield* Effect.dieMessage("a sealer needs at least one key")
    const sealing = yield* importKey(current)
    const imported = new Map<string, CryptoKey>([[current.id, sealing]])
    for (const key of keys.slice(1)) imported.set(key.id, yield* importKey(key))
    return {
      seal: (payload) =>
        Effect.promise(async () => {
          const iv = crypto.getRandomValues(new Uint8Array(12))
          const plain = encoder.encode(JSON.stringify(Schema.encodeSync(Payload)(payload)))
          const sealed = await crypto.subtle.encrypt(
            { name: "AES-GCM", iv, additionalData: encoder.encode(current.id) },
            sealing,
            plain
          )
          return `v1.${current.id}.${base64url(iv)}.${base64url(new Uint8Array(sealed))}`
        }),
      open: (token, now) =>
        Effect.gen(function* () {
          const [version, id, iv, body, ...rest] = token.split(".")
          if (version !== "v1" || id === undefined || iv === undefined || body === undefined || rest.length > 0) {
            return yield* Effect.fail<Refusal>("malformed")
          }
          const key = imported.get(id)
          if (key === undefined) return yield* Effect.fail<Refusal>("unknown key")
          const ivBytes = fromBase64url(iv)
          const bodyBytes = fromBase64url(body)
          if (ivBytes === undefined || bodyBytes === undefined) return yield* Effect.fail<Refusal>("malformed")
          const plain = yield* Effect.tryPromise({
            try: () =>
              crypto.subtle.decrypt(
                { name: "AES-GCM", iv: ivBytes, additionalData: encoder.encode(id) },
                key,
                bodyBytes
              ),
            catch: (): Refusal => "tampered"
          })
          const payload = decodePayload(new TextDecoder().decode(plain))
          if (Either.isLeft(payload)) return yield* Effect.fail<Refusal>("tampered")
          if (payload.right.expires < now) return yield* Effect.fail<Refusal>("expired")
          return payload.right
        })
    }
  })

/**
 * Keys from their text form, `id:secret[,id:secret…]` (a secret of any length is hashed to 32
 * bytes); `undefined` for none.
 */
export const keysFrom = (text: string): Effect.Effect<ReadonlyArray<SealingKey>> =>
  Effect.forEach(
    text
      .split(",")
      .map((entry) => entry.trim())
      .filter((entry) => entry !== ""),
    (entry) => {
      const at = entry.indexOf(":")
      const id = at <= 0 ? "k1" : entry.slice(0, at)
      const secret = at <= 0 ? entry : entry.slice(at + 1)
      return Effect.map(
        Effect.promise(() => crypto.subtle.digest("SHA-256", encoder.encode(secret))),
        (hash) => ({ id, secret: new Uint8Array(hash) })
      )
    }
  )

/** A key of this process only (a gateway that runs alone): random, id `local`. */
export const localKey: Effect.Effect<SealingKey> = Effect.sync(() => ({
  id: "local",
  secret: crypto.getRandomValues(new Uint8Array(32))
}))
