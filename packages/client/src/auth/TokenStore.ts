/**
 * Where tokens and client registrations are kept, as a service over the platform
 * `KeyValueStore`, so a host plugs in any store (memory, a file, an OS keychain, a database)
 * as a `KeyValueStore` layer. Tokens are keyed by authorization server issuer and resource;
 * registrations by issuer. Nothing kept for one issuer is ever handed out for another.
 * Entries are JSON strings under `client/<issuer>` and `tokens/<issuer>/<resource>` (each part
 * URI-encoded), with `tokens` listing the saved keys, latest last. A store that fails is
 * logged (never with its values): tokens then last as long as the session that got them.
 *
 * @since 0.1.0
 */
import type * as FileSystem from "@effect/platform/FileSystem"
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import type * as Path from "@effect/platform/Path"
import * as Arr from "effect/Array"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as KeyValueFile from "./internal/keyValueFile.js"
import { resourceCovers } from "./Metadata.js"

/**
 * A client registered with (or configured for) an authorization server.
 *
 * @since 0.1.0
 * @category schemas
 */
export const StoredClient = Schema.Struct({
  client_id: Schema.String,
  client_secret: Schema.optional(Schema.String),
  token_endpoint_auth_method: Schema.optional(Schema.String),
  redirect_uris: Schema.optional(Schema.Array(Schema.String))
})

/**
 * The type of {@link StoredClient}.
 *
 * @since 0.1.0
 * @category models
 */
export type StoredClient = typeof StoredClient.Type

/**
 * Tokens for one resource from one issuer.
 *
 * @since 0.1.0
 * @category schemas
 */
export const StoredTokens = Schema.Struct({
  access_token: Schema.String,
  token_type: Schema.String,
  refresh_token: Schema.optional(Schema.String),
  /** Epoch milliseconds. */
  expires_at: Schema.optional(Schema.Number),
  scope: Schema.optional(Schema.String),
  /** The client the tokens were issued to (refreshes must use it). */
  client_id: Schema.String
})

/**
 * The type of {@link StoredTokens}.
 *
 * @since 0.1.0
 * @category models
 */
export type StoredTokens = typeof StoredTokens.Type

/**
 * Which tokens: an issuer and a resource.
 *
 * @since 0.1.0
 * @category models
 */
export interface TokenKey {
  readonly issuer: string
  readonly resource: string
}

/**
 * Saved tokens with their key.
 *
 * @since 0.1.0
 * @category models
 */
export interface StoredEntry extends TokenKey {
  readonly tokens: StoredTokens
}

/**
 * The store's operations.
 *
 * @since 0.1.0
 * @category models
 */
export interface TokenStoreService {
  readonly client: (issuer: string) => Effect.Effect<Option.Option<StoredClient>>
  readonly saveClient: (issuer: string, client: StoredClient) => Effect.Effect<void>
  readonly removeClient: (issuer: string) => Effect.Effect<void>
  readonly tokens: (key: TokenKey) => Effect.Effect<Option.Option<StoredTokens>>
  /** The most recently saved tokens whose resource covers this server URL, with their key (what to send before any challenge). */
  readonly latest: (serverUrl: string) => Effect.Effect<Option.Option<StoredEntry>>
  /** Every saved entry, oldest first. */
  readonly entries: Effect.Effect<ReadonlyArray<StoredEntry>>
  readonly saveTokens: (key: TokenKey, tokens: StoredTokens) => Effect.Effect<void>
  readonly removeTokens: (key: TokenKey) => Effect.Effect<void>
}

/**
 * The token and registration store.
 *
 * @since 0.1.0
 * @category services
 */
export class TokenStore extends Context.Tag("@effect-mcp/client/TokenStore")<TokenStore, TokenStoreService>() {}

/** The saved token keys, latest last. */
const Index = Schema.Array(Schema.Struct({ issuer: Schema.String, resource: Schema.String }))

const clientKey = (issuer: string) => `client/${encodeURIComponent(issuer)}`
const tokensKey = (key: TokenKey) => `tokens/${encodeURIComponent(key.issuer)}/${encodeURIComponent(key.resource)}`
const INDEX = "tokens"

const same = (key: TokenKey) => (entry: TokenKey) => entry.issuer === key.issuer && entry.resource === key.resource

/** A failure of the underlying store, said without the values (a decoding error would quote them). */
const describe = (error: { readonly _tag: string; readonly message: string }) =>
  error._tag === "ParseError" ? "an entry is not in the expected form" : error.message

/** The store's answer, or `fallback` (logged) when the store fails. */
const orLogged =
  <A>(what: string, fallback: A) =>
  <E extends { readonly _tag: string; readonly message: string }>(effect: Effect.Effect<A, E>): Effect.Effect<A> =>
    Effect.catchAll(effect, (error) =>
      Effect.as(Effect.logWarning(`OAuth token store: could not ${what}: ${describe(error)}`), fallback)
    )

/**
 * The token store over the context's `KeyValueStore`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<TokenStoreService, never, KeyValueStore.KeyValueStore> = Effect.gen(function* () {
  const store = yield* KeyValueStore.KeyValueStore
  const clients = store.forSchema(StoredClient)
  const tokens = store.forSchema(StoredTokens)
  const index = store.forSchema(Index)
  const lock = yield* Effect.makeSemaphore(1)
  const keys = Effect.map(
    index.get(INDEX),
    Option.getOrElse((): ReadonlyArray<TokenKey> => [])
  )
  const reindex = (f: (keys: ReadonlyArray<TokenKey>) => ReadonlyArray<TokenKey>) =>
    Effect.flatMap(keys, (current) => index.set(INDEX, f(current)))
  const tokensOf = (key: TokenKey) => orLogged("read tokens", Option.none<StoredTokens>())(tokens.get(tokensKey(key)))
  const savedKeys = orLogged("read the saved keys", [] as ReadonlyArray<TokenKey>)(keys)
  return {
    client: (issuer) => orLogged("read a client", Option.none<StoredClient>())(clients.get(clientKey(issuer))),
    saveClient: (issuer, client) => orLogged<void>("save a client", undefined)(clients.set(clientKey(issuer), client)),
    removeClient: (issuer) => orLogged<void>("remove a client", undefined)(clients.remove(clientKey(issuer))),
    tokens: tokensOf,
    latest: (serverUrl) =>
      Effect.gen(function* () {
        for (const key of [...(yield* savedKeys)]
          .reverse()
          .filter((entry) => resourceCovers(entry.resource, serverUrl))) {
          const found = yield* tokensOf(key)
          if (Option.isSome(found)) return Option.some({ ...key, tokens: found.value })
        }
        return Option.none()
      }),
    entries: Effect.flatMap(savedKeys, (saved) =>
      Effect.map(
        Effect.forEach(saved, (key) =>
          Effect.map(
            tokensOf(key),
            Option.map((found): StoredEntry => ({ ...key, tokens: found }))
          )
        ),
        Arr.getSomes
      )
    ),
    saveTokens: (key, saved) =>
      lock.withPermits(1)(
        orLogged<void>(
          "save tokens",
          undefined
        )(
          Effect.zipRight(
            tokens.set(tokensKey(key), saved),
            reindex((current) => [...current.filter((entry) => !same(key)(entry)), key])
          )
        )
      ),
    removeTokens: (key) =>
      lock.withPermits(1)(
        orLogged<void>(
          "remove tokens",
          undefined
        )(
          Effect.zipRight(
            tokens.remove(tokensKey(key)),
            reindex((current) => current.filter((entry) => !same(key)(entry)))
          )
        )
      )
  }
})

/**
 * The token store over the context's `KeyValueStore`: plug in any store as a `KeyValueStore` layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<TokenStore, never, KeyValueStore.KeyValueStore> = Layer.effect(TokenStore, make)

/**
 * A store in memory, for one process.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeMemory: Effect.Effect<TokenStoreService> = Effect.provide(make, KeyValueStore.layerMemory)

/**
 * {@link makeMemory} as a layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerMemory: Layer.Layer<TokenStore> = Layer.provide(layer, KeyValueStore.layerMemory)

/** The format of token files written before version 2: one document with every client and every token. */
const LegacyContents = Schema.parseJson(
  Schema.Struct({
    version: Schema.Literal(1),
    clients: Schema.Record({ key: Schema.String, value: StoredClient }),
    tokens: Schema.Array(Schema.Struct({ issuer: Schema.String, resource: Schema.String, tokens: StoredTokens }))
  })
)

/**
 * The entries of a token file in the format before version 2 (which the next save replaces).
 *
 * @since 0.1.0
 * @category decoding
 */
export const migrateLegacyFile = (text: string): Option.Option<Record<string, string>> =>
  Option.map(Schema.decodeUnknownOption(LegacyContents)(text), (legacy) => {
    const json = <A, I>(schema: Schema.Schema<A, I>, value: A) => JSON.stringify(Schema.encodeSync(schema)(value))
    return Object.fromEntries([
      ...Object.entries(legacy.clients).map(([issuer, client]) => [clientKey(issuer), json(StoredClient, client)]),
      ...legacy.tokens.map((entry) => [tokensKey(entry), json(StoredTokens, entry.tokens)]),
      [
        INDEX,
        json(
          Index,
          legacy.tokens.map(({ issuer, resource }) => ({ issuer, resource }))
        )
      ]
    ])
  })

/**
 * A `KeyValueStore` in one JSON file, written atomically with mode 0600 (its directory 0700);
 * token files of the format before version 2 are read and migrated.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerKeyValueStoreFile = (
  path: string
): Layer.Layer<KeyValueStore.KeyValueStore, never, FileSystem.FileSystem | Path.Path> =>
  Layer.effect(KeyValueStore.KeyValueStore, KeyValueFile.make(path, { migrate: migrateLegacyFile }))

/**
 * A store in a JSON file (see {@link layerKeyValueStoreFile}).
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeFile = (path: string): Effect.Effect<TokenStoreService, never, FileSystem.FileSystem | Path.Path> =>
  Effect.provide(make, layerKeyValueStoreFile(path))

/**
 * {@link makeFile} as a layer: the CLI's store.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerFile = (path: string): Layer.Layer<TokenStore, never, FileSystem.FileSystem | Path.Path> =>
  Layer.provide(layer, layerKeyValueStoreFile(path))
