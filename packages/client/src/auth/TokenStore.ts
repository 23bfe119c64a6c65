/**
 * Where tokens and client registrations are kept, as a service a host plugs in. Tokens are
 * keyed by authorization server issuer and resource; registrations by issuer. Nothing kept
 * for one issuer is ever handed out for another. Two implementations: in memory (the
 * default), and a JSON file written with mode 0600 (replaced atomically, through
 * `FileSystem`), for a CLI that should not ask again on every run.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { randomToken } from "./Crypto.js"
import { resourceCovers } from "./Metadata.js"

/** A client registered with (or configured for) an authorization server. */
export const StoredClient = Schema.Struct({
  client_id: Schema.String,
  client_secret: Schema.optional(Schema.String),
  token_endpoint_auth_method: Schema.optional(Schema.String),
  redirect_uris: Schema.optional(Schema.Array(Schema.String))
})

/** The type of {@link StoredClient}. */
export type StoredClient = typeof StoredClient.Type

/** Tokens for one resource from one issuer. */
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

/** The type of {@link StoredTokens}. */
export type StoredTokens = typeof StoredTokens.Type

/** Which tokens: an issuer and a resource. */
export interface TokenKey {
  readonly issuer: string
  readonly resource: string
}

/** The store's operations. */
export interface TokenStoreService {
  readonly client: (issuer: string) => Effect.Effect<Option.Option<StoredClient>>
  readonly saveClient: (issuer: string, client: StoredClient) => Effect.Effect<void>
  readonly removeClient: (issuer: string) => Effect.Effect<void>
  readonly tokens: (key: TokenKey) => Effect.Effect<Option.Option<StoredTokens>>
  /** The most recently saved tokens whose resource covers this server URL, with their key (what to send before any challenge). */
  readonly latest: (
    serverUrl: string
  ) => Effect.Effect<
    Option.Option<{ readonly issuer: string; readonly resource: string; readonly tokens: StoredTokens }>
  >
  readonly saveTokens: (key: TokenKey, tokens: StoredTokens) => Effect.Effect<void>
  readonly removeTokens: (key: TokenKey) => Effect.Effect<void>
}

/** The token and registration store. */
export class TokenStore extends Context.Tag("@effect-mcp/client/TokenStore")<TokenStore, TokenStoreService>() {}

/** Everything a store holds, as it is written to a file. */
const Contents = Schema.Struct({
  version: Schema.Literal(1),
  clients: Schema.Record({ key: Schema.String, value: StoredClient }),
  tokens: Schema.Array(Schema.Struct({ issuer: Schema.String, resource: Schema.String, tokens: StoredTokens }))
})
type Contents = typeof Contents.Type

const empty: Contents = { version: 1, clients: {}, tokens: [] }

/** A store over `read` and `write` of its whole contents. */
const over = (read: Effect.Effect<Contents>, write: (contents: Contents) => Effect.Effect<void>) =>
  Effect.map(Effect.makeSemaphore(1), (lock): TokenStoreService => {
    const update = (f: (contents: Contents) => Contents) =>
      lock.withPermits(1)(Effect.flatMap(read, (c) => write(f(c))))
    const same = (key: TokenKey) => (entry: { readonly issuer: string; readonly resource: string }) =>
      entry.issuer === key.issuer && entry.resource === key.resource
    return {
      client: (issuer) => Effect.map(read, (c) => Option.fromNullable(c.clients[issuer])),
      saveClient: (issuer, client) => update((c) => ({ ...c, clients: { ...c.clients, [issuer]: client } })),
      removeClient: (issuer) =>
        update((c) => ({
          ...c,
          clients: Object.fromEntries(Object.entries(c.clients).filter(([key]) => key !== issuer))
        })),
      tokens: (key) =>
        Effect.map(read, (c) => Option.map(Option.fromNullable(c.tokens.find(same(key))), (e) => e.tokens)),
      latest: (serverUrl) =>
        Effect.map(read, (c) =>
          Option.fromNullable([...c.tokens].reverse().find((entry) => resourceCovers(entry.resource, serverUrl)))
        ),
      saveTokens: (key, tokens) =>
        update((c) => ({ ...c, tokens: [...c.tokens.filter((e) => !same(key)(e)), { ...key, tokens }] })),
      removeTokens: (key) => update((c) => ({ ...c, tokens: c.tokens.filter((e) => !same(key)(e)) }))
    }
  })

/** A store in memory, for one process. */
export const makeMemory: Effect.Effect<TokenStoreService> = Effect.suspend(() => {
  let contents = empty
  return over(
    Effect.sync(() => contents),
    (next) =>
      Effect.sync(() => {
        contents = next
      })
  )
})

/** {@link makeMemory} as a layer. */
export const layerMemory: Layer.Layer<TokenStore> = Layer.effect(TokenStore, makeMemory)

const decode = Schema.decodeUnknown(Schema.parseJson(Contents))
const encode = Schema.encode(Schema.parseJson(Contents))

/**
 * A store in a JSON file (created with mode 0600; its directory with 0700). A file that cannot
 * be read or decoded counts as empty (and is replaced on the next save); a failed write is
 * logged, and the tokens stay usable for this process.
 */
export const makeFile = (path: string): Effect.Effect<TokenStoreService, never, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const directory = path.replace(/[\\/][^\\/]*$/, "")
    let cached: Contents | undefined
    const read = Effect.suspend(() =>
      cached !== undefined
        ? Effect.succeed(cached)
        : fs.readFileString(path).pipe(
            Effect.flatMap(decode),
            Effect.orElseSucceed(() => empty),
            Effect.tap((contents) =>
              Effect.sync(() => {
                cached = contents
              })
            )
          )
    )
    const write = (contents: Contents) =>
      Effect.gen(function* () {
        cached = contents
        const text = yield* encode(contents)
        if (directory !== "" && directory !== path) yield* fs.makeDirectory(directory, { recursive: true, mode: 0o700 })
        const temporary = `${path}.${randomToken(6)}.tmp`
        yield* fs.writeFileString(temporary, text, { mode: 0o600 })
        yield* fs.chmod(temporary, 0o600)
        yield* fs.rename(temporary, path)
      }).pipe(Effect.catchAll((error) => Effect.logWarning(`could not save OAuth tokens to ${path}: ${error.message}`)))
    return yield* over(read, write)
  })

/** {@link makeFile} as a layer. */
export const layerFile = (path: string): Layer.Layer<TokenStore, never, FileSystem.FileSystem> =>
  Layer.effect(TokenStore, makeFile(path))
