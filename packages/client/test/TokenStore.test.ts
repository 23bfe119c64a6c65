/**
 * The token store over the platform `KeyValueStore`: the memory layer, the file layer (0600,
 * atomic replacement, read back by a new process, the format before version 2 migrated), a
 * `KeyValueStore` of the user's own plugged in, and a store that fails (logged, never with
 * its values; the session keeps its tokens).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as PlatformError from "@effect/platform/Error"
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, expect, it } from "@effect/vitest"
import { Authorizer, HttpTransport, McpClient, TokenStore } from "@effect-mcp/client"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import { authorizationServer, resourceServer, TokenRegistry } from "./support/authServers.js"
import { keepAliveHttpClient } from "./support/httpClient.js"

const tokens = (access: string) => ({ access_token: access, token_type: "Bearer", client_id: "c", refresh_token: "r" })
const key = (issuer: string, resource = "https://rs.example/mcp") => ({ issuer, resource })

/** What every store must do, whatever keeps it. */
const contract = Effect.gen(function* () {
  const store = yield* TokenStore.TokenStore
  yield* store.saveTokens(key("https://as1"), tokens("one"))
  yield* store.saveTokens(key("https://as2"), tokens("two"))
  yield* store.saveClient("https://as1", { client_id: "c", redirect_uris: ["http://127.0.0.1/cb"] })
  expect(Option.getOrUndefined(yield* store.tokens(key("https://as1")))?.access_token).toBe("one")
  expect(yield* store.client("https://as2")).toStrictEqual(Option.none())
  // The latest save that covers the server wins; an issuer's tokens are never another's.
  const latest = Option.getOrUndefined(yield* store.latest("https://rs.example/mcp"))
  expect([latest?.issuer, latest?.tokens.access_token]).toStrictEqual(["https://as2", "two"])
  expect(yield* store.latest("https://other.example/mcp")).toStrictEqual(Option.none())
  yield* store.removeTokens(key("https://as2"))
  expect(Option.getOrUndefined(yield* store.latest("https://rs.example/mcp"))?.issuer).toBe("https://as1")
  yield* store.removeClient("https://as1")
  expect(yield* store.client("https://as1")).toStrictEqual(Option.none())
})

const temporaryFile = () => join(mkdtempSync(join(tmpdir(), "effect-mcp-store-")), "nested", "oauth.json")
const fileStore = (file: string) => TokenStore.layerFile(file).pipe(Layer.provide(NodeContext.layer))

describe("TokenStore", () => {
  it.effect("in memory", () => contract.pipe(Effect.provide(TokenStore.layerMemory)))

  it.effect("over a KeyValueStore: readable entries, each part of a key URI-encoded", () =>
    Effect.gen(function* () {
      yield* contract
      const store = yield* KeyValueStore.KeyValueStore
      const saved = yield* store.get(
        `tokens/${encodeURIComponent("https://as1")}/${encodeURIComponent("https://rs.example/mcp")}`
      )
      expect(JSON.parse(Option.getOrElse(saved, () => "{}"))).toMatchObject({ access_token: "one" })
    }).pipe(Effect.provide(TokenStore.layer.pipe(Layer.provideMerge(KeyValueStore.layerMemory))))
  )

  it.effect("in a file: 0600, replaced atomically, read back by a new store", () =>
    Effect.gen(function* () {
      const file = temporaryFile()
      yield* contract.pipe(Effect.provide(fileStore(file)))
      expect(statSync(file).mode & 0o777).toBe(0o600)
      expect(statSync(join(file, "..")).mode & 0o777).toBe(0o700)
      expect(readdirSync(join(file, ".."))).toStrictEqual(["oauth.json"])
      const again = yield* Effect.flatMap(TokenStore.TokenStore, (store) =>
        store.latest("https://rs.example/mcp")
      ).pipe(Effect.provide(fileStore(file)))
      expect(Option.getOrUndefined(again)?.tokens.access_token).toBe("one")
    })
  )

  it.effect("in a file: one of the format before version 2 is read, then rewritten in the new one", () =>
    Effect.gen(function* () {
      const file = temporaryFile()
      mkdirSync(join(file, ".."), { recursive: true })
      const legacy = {
        version: 1,
        clients: { "https://as1": { client_id: "old-client" } },
        tokens: [{ issuer: "https://as1", resource: "https://rs.example/mcp", tokens: tokens("old") }]
      }
      writeFileSync(file, JSON.stringify(legacy), { mode: 0o600 })
      yield* Effect.gen(function* () {
        const store = yield* TokenStore.TokenStore
        expect(Option.getOrUndefined(yield* store.latest("https://rs.example/mcp"))?.tokens.access_token).toBe("old")
        expect(Option.getOrUndefined(yield* store.client("https://as1"))?.client_id).toBe("old-client")
        yield* store.saveClient("https://as2", { client_id: "new-client" })
      }).pipe(Effect.provide(fileStore(file)))
      const written = JSON.parse(readFileSync(file, "utf8")) as { version: number; entries: Record<string, string> }
      expect(written.version).toBe(2)
      expect(Object.keys(written.entries).sort()).toStrictEqual([
        `client/${encodeURIComponent("https://as1")}`,
        `client/${encodeURIComponent("https://as2")}`,
        "tokens",
        `tokens/${encodeURIComponent("https://as1")}/${encodeURIComponent("https://rs.example/mcp")}`
      ])
    })
  )

  it.effect("in a file: one that is not JSON counts as empty", () =>
    Effect.gen(function* () {
      const file = temporaryFile()
      mkdirSync(join(file, ".."), { recursive: true })
      writeFileSync(file, "not json")
      yield* Effect.flatMap(TokenStore.TokenStore, (store) => store.latest("https://rs.example/mcp")).pipe(
        Effect.map((found) => assert.isTrue(Option.isNone(found))),
        Effect.provide(fileStore(file))
      )
      expect(existsSync(file)).toBe(true)
    })
  )
})

/** A user's own store (a keychain, a database): here a map that records what it is asked. */
const recordingStore = (map: Map<string, string>, failing = false) =>
  Layer.succeed(
    KeyValueStore.KeyValueStore,
    KeyValueStore.makeStringOnly({
      get: (key) =>
        failing
          ? Effect.fail(new PlatformError.SystemError({ reason: "Unknown", module: "KeyValueStore", method: "get" }))
          : Effect.sync(() => Option.fromNullable(map.get(key))),
      set: (key, value) =>
        failing
          ? Effect.fail(new PlatformError.SystemError({ reason: "Unknown", module: "KeyValueStore", method: "set" }))
          : Effect.sync(() => void map.set(key, value)),
      remove: (key) => Effect.sync(() => void map.delete(key)),
      clear: Effect.sync(() => map.clear()),
      size: Effect.sync(() => map.size)
    })
  )

/** A client of a protected server whose tokens go to `store`. */
const connectWith = (url: string, store: Layer.Layer<TokenStore.TokenStore>) =>
  Effect.map(
    Layer.build(
      McpClient.layer({ name: "protected" }).pipe(
        Layer.provide(HttpTransport.layer({ url, name: "protected", transport: "http", listen: false })),
        Layer.provide(Layer.merge(Authorizer.followRedirect(), store)),
        Layer.provide(keepAliveHttpClient)
      )
    ),
    (context) => Context.get(context, McpClient.McpClient)
  )

const protectedWorld = Effect.gen(function* () {
  const registry = new TokenRegistry()
  const authorization = yield* authorizationServer(registry)
  const resource = yield* resourceServer(registry, { authorizationServer: () => authorization.origin })
  return { authorization, url: `${resource.origin}/mcp` }
})

describe("TokenStore: a KeyValueStore of one's own", () => {
  it.scopedLive("keeps the flow's tokens and registration, and serves them to the next session", () =>
    Effect.gen(function* () {
      const { authorization, url } = yield* protectedWorld
      const map = new Map<string, string>()
      const store = TokenStore.layer.pipe(Layer.provide(recordingStore(map)))
      yield* Effect.scoped(Effect.flatMap(connectWith(url, store), (client) => client.tools))
      const keys = [...map.keys()].sort()
      expect(keys).toStrictEqual([
        `client/${encodeURIComponent(authorization.origin)}`,
        "tokens",
        `tokens/${encodeURIComponent(authorization.origin)}/${encodeURIComponent(url)}`
      ])
      const before = authorization.seen.length
      yield* Effect.scoped(Effect.flatMap(connectWith(url, store), (client) => client.tools))
      expect(authorization.seen.length).toBe(before)
    })
  )

  it.scopedLive("one that fails: logged without its values, and the session keeps its tokens", () =>
    Effect.gen(function* () {
      const { authorization, url } = yield* protectedWorld
      const logs: Array<string> = []
      const logger = Logger.make(({ message }) => logs.push(JSON.stringify(message)))
      const store = TokenStore.layer.pipe(Layer.provide(recordingStore(new Map(), true)))
      yield* Effect.scoped(
        Effect.gen(function* () {
          const client = yield* connectWith(url, store)
          yield* client.tools
          yield* client.callTool("secret")
        })
      ).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, logger)))
      expect(authorization.seen.filter((entry) => entry.path === "/authorize")).toHaveLength(1)
      expect(logs.some((line) => line.includes("OAuth token store: could not save tokens"))).toBe(true)
      expect(logs.join("\n")).not.toMatch(/at-\d/)
    })
  )
})
