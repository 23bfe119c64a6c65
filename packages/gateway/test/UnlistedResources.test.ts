/**
 * A URI a server serves but does not list (and no template of any server matches), through the
 * gateway: read from, and subscribed on, the server that has it, the servers that declare
 * resources asked in turn (the first whose answer is other than "not found"), in both eras; "not
 * found" only when none has it; and never on a server whose resources the caller may not see.
 * Behind the host: two SDK v1 fault servers (`fixtures/faultServer.mjs`), of which the second
 * (`hidden`) serves `fault://unlisted` unlisted and the first (`plain`) answers it as not found.
 */
import { expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import { AccessPolicy, Authentication } from "../src/index.js"
import * as HttpCore from "../src/internal/httpCore.js"
import type * as Reply from "../src/internal/reply.js"
import { postTo, statusOf } from "./support/core.js"
import { connect, faultServer, gatewayHost, textOf } from "./support/gateway.js"

const UNLISTED = "fault://unlisted"

/** The longest a test waits for what should come at once (a loaded machine). */
const WAIT = "30 seconds"

/** The resource not found, as each revision says it. */
const NOT_FOUND = { "2025-11-25": -32002, "2026-07-28": -32602 } as const

layer(
  gatewayHost({
    servers: [
      { name: "plain", target: faultServer },
      { name: "hidden", target: { ...faultServer, env: { FAULT_UNLISTED: UNLISTED } } }
    ]
  }),
  { excludeTestServices: true, timeout: "60 seconds" }
)("a URI a server serves but does not list", (it) => {
  for (const protocolVersion of ["2025-11-25", "2026-07-28"] as const) {
    it.scoped(`${protocolVersion}: it is read from the server that has it; one no server has is not found`, () =>
      Effect.gen(function* () {
        const { client } = yield* connect({ protocolVersion })
        expect((yield* client.resources).map((resource) => resource.uri)).not.toContain(UNLISTED)
        const read = yield* client.readResource(UNLISTED)
        expect(read.contents).toMatchObject([{ uri: UNLISTED, text: "unlisted" }])
        // A listed one is read as before.
        expect((yield* client.readResource("fault://doc")).contents).toMatchObject([{ text: "doc" }])
        const nowhere = yield* Effect.flip(client.readResource("fault://nowhere"))
        expect(nowhere).toMatchObject({
          _tag: "RpcError",
          code: NOT_FOUND[protocolVersion],
          errorMessage: "Resource not found: fault://nowhere"
        })
      })
    )

    // At 2026-07-28 the client opens its subscriptions/listen again with the resource in its filter.
    it.scoped(`${protocolVersion}: it is subscribed on the server that has it, and its updates passed on`, () =>
      Effect.gen(function* () {
        const { client } = yield* connect({ protocolVersion })
        /** What `server` says its session is subscribed to, once it says `expected` (asked again until then). */
        const subscribedOn = (server: string, expected: string) =>
          client.callTool(`${server}__subscribed`, {}).pipe(
            Effect.map(textOf),
            Effect.filterOrFail(
              (text) => text === expected,
              (text) => `${server} is subscribed to ${JSON.stringify(text)}, not ${JSON.stringify(expected)}`
            ),
            Effect.retry(Schedule.spaced("50 millis").pipe(Schedule.upTo(WAIT)))
          )
        const update = yield* client.resourceUpdates.pipe(
          Stream.filter((params) => params.uri === UNLISTED),
          Stream.runHead,
          Effect.timeout(WAIT),
          Effect.fork
        )
        yield* Effect.yieldNow()
        yield* client.subscribe(UNLISTED)
        // The server sends its subscribers an update at once.
        expect(Option.map(yield* Fiber.join(update), (params) => params.uri)).toStrictEqual(Option.some(UNLISTED))
        expect(yield* subscribedOn("hidden", UNLISTED)).toBe(UNLISTED)
        // The server asked first refused it (not found): it holds nothing.
        expect(yield* subscribedOn("plain", "")).toBe("")
        yield* client.unsubscribe(UNLISTED)
        expect(yield* subscribedOn("hidden", "")).toBe("")
        // A URI no server has cannot be subscribed to (at 2026-07-28 nothing is sent to refuse).
        if (protocolVersion === "2025-11-25") {
          const nowhere = yield* Effect.flip(client.subscribe("fault://nowhere"))
          expect(nowhere).toMatchObject({ _tag: "RpcError", code: -32002 })
        }
      })
    )
  }

  it.scoped("a caller who may not see it on its server cannot read or subscribe to it, in either era", () =>
    Effect.gen(function* () {
      const keys = [
        { name: "alice", key: "alice-key-0123456789" },
        // Alice may not see the URI on its server; Carol may not see its server at all.
        { name: "bob", key: "bob-key-abcdefghijkl" },
        { name: "carol", key: "carol-key-mnopqrstuv", allow: [{ server: "plain" }] }
      ]
      const apiKeys = yield* Authentication.apiKeys(keys.map((key) => JSON.stringify(key)).join("\n"), "keys.jsonl")
      const policy = yield* AccessPolicy.parse(
        JSON.stringify({ principals: { alice: { deny: [{ server: "hidden", resources: ["fault://unl*"] }] } } }),
        "policy.json",
        apiKeys
      )
      const handle = yield* HttpCore.make({ apiKeys, policy })
      const bodyOf = (reply: Reply.Reply) =>
        (reply._tag === "Json" ? reply.body : {}) as {
          readonly result?: { readonly contents?: ReadonlyArray<{ readonly text?: string }> }
          readonly error?: { readonly code: number; readonly message: string }
        }
      const auth = (key: string) => ({ authorization: `Bearer ${key}` })
      /** A 2025-11-25 session of the caller with `key`: a request of it. */
      const sessionOf = (key: string) =>
        Effect.gen(function* () {
          const opened = yield* postTo(
            handle,
            {
              jsonrpc: "2.0",
              id: 1,
              method: "initialize",
              params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } }
            },
            auth(key)
          )
          expect(statusOf(opened)).toBe(200)
          const headers = {
            ...auth(key),
            "mcp-session-id": opened.headers["mcp-session-id"] ?? "",
            "mcp-protocol-version": "2025-11-25"
          }
          yield* postTo(handle, { jsonrpc: "2.0", method: "notifications/initialized" }, headers)
          return (method: string, params: Record<string, unknown>) =>
            Effect.map(postTo(handle, { jsonrpc: "2.0", id: 2, method, params }, headers), bodyOf)
        })
      const stateless = (key: string, uri: string) =>
        Effect.map(
          postTo(
            handle,
            {
              jsonrpc: "2.0",
              id: 3,
              method: "resources/read",
              params: {
                uri,
                _meta: {
                  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}
                }
              }
            },
            { ...auth(key), "mcp-protocol-version": "2026-07-28", "mcp-method": "resources/read", "mcp-name": uri }
          ),
          bodyOf
        )
      const [alice, bob, carol] = keys.map((entry) => entry.key) as [string, string, string]

      const bobs = yield* sessionOf(bob)
      expect((yield* bobs("resources/read", { uri: UNLISTED })).result?.contents?.[0]?.text).toBe("unlisted")
      expect((yield* stateless(bob, UNLISTED)).result?.contents?.[0]?.text).toBe("unlisted")
      for (const key of [alice, carol]) {
        const own = yield* sessionOf(key)
        expect((yield* own("resources/read", { uri: UNLISTED })).error).toMatchObject({
          code: -32002,
          message: `Resource not found: ${UNLISTED}`
        })
        expect((yield* own("resources/subscribe", { uri: UNLISTED })).error).toMatchObject({ code: -32002 })
        expect((yield* stateless(key, UNLISTED)).error).toMatchObject({ code: -32602 })
      }
      // Neither's subscription reached the server.
      const subscribed = yield* bobs("tools/call", { name: "hidden__subscribed", arguments: {} })
      expect(subscribed).toMatchObject({ result: { content: [{ text: "" }] } })
    })
  )
})
