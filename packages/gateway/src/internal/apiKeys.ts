/**
 * API keys per caller, from a file: a JSON array of entries, or JSON lines (one entry a line; blank
 * lines and lines starting with `#` skipped). An entry names its caller and gives its key, or the
 * key's SHA-256 (hex) so the file holds no secret, and may carry the caller's `allow` and `deny`
 * rules (`policy.ts`; a policy file's `allow` or `deny` for that name wins over the key's). A presented key is hashed and
 * compared with every entry's hash in a time that depends on neither where they differ nor which
 * entry matches.
 */
import * as Effect from "effect/Effect"
import * as ParseResult from "effect/ParseResult"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Policy from "./policy.js"
import type { Principal } from "./principal.js"

/** The fewest characters a key in the clear may have. */
export const MIN_KEY_LENGTH = 16

/** One caller's entry. */
export const Entry = Schema.Struct({
  name: Schema.NonEmptyTrimmedString,
  key: Schema.optional(
    Schema.Redacted(
      Schema.String.pipe(
        Schema.minLength(MIN_KEY_LENGTH, { message: () => `a key has at least ${MIN_KEY_LENGTH} characters` })
      )
    )
  ),
  sha256: Schema.optional(
    Schema.String.pipe(Schema.pattern(/^[0-9a-fA-F]{64}$/, { message: () => "sha256 is 64 hexadecimal digits" }))
  ),
  allow: Schema.optional(Schema.Array(Policy.Rule)),
  deny: Schema.optional(Schema.Array(Policy.Rule))
})

/** The type of {@link Entry}. */
export type Entry = typeof Entry.Type

/** A caller's key as kept: its name, its hash, its rules. */
export interface ApiKey {
  readonly name: string
  readonly hash: Uint8Array
  readonly rules: Policy.Rules | undefined
}

const decodeEntry = Schema.decodeUnknown(Entry, { onExcessProperty: "error", errors: "all" })
const encoder = new TextEncoder()

/** SHA-256 of a text. */
const sha256 = (text: string): Effect.Effect<Uint8Array> =>
  Effect.map(
    Effect.promise(() => crypto.subtle.digest("SHA-256", encoder.encode(text))),
    (hash) => new Uint8Array(hash)
  )

const fromHex = (hex: string): Uint8Array =>
  Uint8Array.from(hex.match(/../g) ?? [], (byte) => Number.parseInt(byte, 16))

/** The file's entries as JSON values, each with where it is (for errors). */
const entriesOf = (text: string): ReadonlyArray<readonly [string, string]> | string => {
  const trimmed = text.trim()
  if (trimmed.startsWith("[")) {
    try {
      const parsed: unknown = JSON.parse(trimmed)
      return Array.isArray(parsed)
        ? parsed.map((entry, index) => [`entry ${index + 1}`, JSON.stringify(entry)] as const)
        : "not an array"
    } catch (cause) {
      return `not JSON: ${cause instanceof Error ? cause.message : String(cause)}`
    }
  }
  return text
    .split("\n")
    .map((line, index) => [`line ${index + 1}`, line.trim()] as const)
    .filter(([, line]) => line !== "" && !line.startsWith("#"))
}

/** Decodes one entry's JSON text. */
const entry = (source: string, where: string, json: string): Effect.Effect<Entry, Policy.AccessFileError> =>
  Effect.try({
    try: (): unknown => JSON.parse(json),
    catch: (cause) =>
      new Policy.AccessFileError({
        source,
        reason: `${where}: not JSON (${cause instanceof Error ? cause.message : cause})`
      })
  }).pipe(
    Effect.flatMap((value) =>
      Effect.mapError(
        decodeEntry(value),
        (error) =>
          new Policy.AccessFileError({
            source,
            reason: `${where}: ${ParseResult.TreeFormatter.formatErrorSync(error)}`
          })
      )
    ),
    Effect.filterOrFail(
      (decoded) => (decoded.key === undefined) !== (decoded.sha256 === undefined),
      () => new Policy.AccessFileError({ source, reason: `${where}: give the key or its sha256, one of them` })
    )
  )

/** A key file's text, decoded; `source` names it in errors. A file with no entry is refused. */
export const parse = (text: string, source: string): Effect.Effect<ReadonlyArray<ApiKey>, Policy.AccessFileError> =>
  Effect.gen(function* () {
    const entries = entriesOf(text)
    if (typeof entries === "string") return yield* new Policy.AccessFileError({ source, reason: entries })
    if (entries.length === 0) return yield* new Policy.AccessFileError({ source, reason: "no key in the file" })
    const keys: Array<ApiKey> = []
    const hashes = new Set<string>()
    for (const [where, json] of entries) {
      const decoded = yield* entry(source, where, json)
      if (keys.some((key) => key.name === decoded.name)) {
        return yield* new Policy.AccessFileError({
          source,
          reason: `${where}: the name ${decoded.name} is given twice`
        })
      }
      const hash =
        decoded.key !== undefined
          ? yield* sha256(Redacted.value(decoded.key))
          : fromHex((decoded.sha256 ?? "").toLowerCase())
      const hex = Array.from(hash, (byte) => byte.toString(16).padStart(2, "0")).join("")
      if (hashes.has(hex)) {
        return yield* new Policy.AccessFileError({ source, reason: `${where}: ${decoded.name}'s key is another's too` })
      }
      hashes.add(hex)
      const rules =
        decoded.allow === undefined && decoded.deny === undefined
          ? undefined
          : {
              ...(decoded.allow === undefined ? {} : { allow: decoded.allow }),
              ...(decoded.deny === undefined ? {} : { deny: decoded.deny })
            }
      keys.push({ name: decoded.name, hash, rules })
    }
    return keys
  })

/** Whether two hashes are equal, in a time that does not depend on where they differ. */
const sameHash = (a: Uint8Array, b: Uint8Array): boolean => {
  let difference = a.length ^ b.length
  for (let index = 0; index < b.length; index++) difference |= (a[index] ?? 0) ^ (b[index] ?? 0)
  return difference === 0
}

/** The principal whose key was presented (every entry compared, whichever matches), if any. */
export const identify = (keys: ReadonlyArray<ApiKey>, presented: string): Effect.Effect<Principal | undefined> =>
  Effect.map(sha256(presented), (hash) => {
    let found: ApiKey | undefined
    for (const key of keys) if (sameHash(hash, key.hash) && found === undefined) found = key
    return found === undefined ? undefined : { id: found.name, kind: "apiKey", scopes: [] }
  })

/** The rules the keys carry, by name (for {@link Policy.make}). */
export const rulesOf = (keys: ReadonlyArray<ApiKey>): Readonly<Record<string, Policy.Rules>> =>
  Object.fromEntries(keys.flatMap((key) => (key.rules === undefined ? [] : [[key.name, key.rules]])))
