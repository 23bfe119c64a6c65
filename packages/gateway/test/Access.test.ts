/**
 * Who is calling and what each caller may do, through the gateway's HTTP core against the reference
 * server: API keys from a key file, each its own principal (beside the shared token); a session, its
 * streams and a sealed `requestState` bound to the principal that made them; per-principal
 * visibility of tools, resources and prompts, in lists and in calls, in both eras; a quota on a
 * tool and a limit on requests that refuse (JSON-RPC error, 429 with Retry-After) and recover once
 * their window has passed (`TestClock`).
 */
import { expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/TestClock"
import { AccessPolicy, Authentication } from "../src/index.js"
import * as HttpCore from "../src/internal/httpCore.js"
import type * as Reply from "../src/internal/reply.js"
import { postTo, statusOf } from "./support/core.js"
import { everything, gatewayHost, roundServer } from "./support/gateway.js"

const ALICE = "alice-key-0123456789"
const BOB = "bob-key-abcdefghijkl"

/** The key file: Alice's key in the clear, Bob's by its SHA-256 (JSON lines, a comment). */
const keyFile = Effect.gen(function* () {
  const hash = new Uint8Array(
    yield* Effect.promise(() => crypto.subtle.digest("SHA-256", new TextEncoder().encode(BOB)))
  )
  const hex = Array.from(hash, (byte) => byte.toString(16).padStart(2, "0")).join("")
  return [
    "# callers of the gateway",
    JSON.stringify({ name: "alice", key: ALICE }),
    "",
    JSON.stringify({ name: "bob", sha256: hex, allow: [{ server: "everything", tools: ["get-sum"] }] })
  ].join("\n")
})

const bearer = (key: string) => ({ authorization: `Bearer ${key}` })

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "test", version: "1" } }
}

interface Body {
  readonly result?: {
    readonly tools?: ReadonlyArray<{ readonly name: string }>
    readonly prompts?: ReadonlyArray<{ readonly name: string }>
    readonly resources?: ReadonlyArray<{ readonly uri: string }>
    readonly content?: ReadonlyArray<{ readonly text?: string }>
    readonly resultType?: string
    readonly requestState?: string
  }
  readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown }
}

const bodyOf = (reply: Reply.Reply): Body => (reply._tag === "Json" ? (reply.body as Body) : {})

/** A new session of the caller with `key`: its id. */
const open = (handle: HttpCore.Handler, key: string) =>
  Effect.gen(function* () {
    const opened = yield* postTo(handle, initialize, bearer(key))
    expect(statusOf(opened)).toBe(200)
    const id = opened.headers["mcp-session-id"] ?? ""
    expect(id).not.toBe("")
    yield* postTo(
      handle,
      { jsonrpc: "2.0", method: "notifications/initialized" },
      {
        ...bearer(key),
        "mcp-session-id": id,
        "mcp-protocol-version": "2025-11-25"
      }
    )
    return id
  })

/** A request of a session, by the caller with `key`. */
const inSession = (
  handle: HttpCore.Handler,
  key: string,
  session: string,
  method: string,
  params: Record<string, unknown> = {}
) =>
  postTo(
    handle,
    { jsonrpc: "2.0", id: 2, method, params },
    { ...bearer(key), "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" }
  )

/** A 2026-07-28 request standing alone, by the caller with `key`. */
const stateless = (handle: HttpCore.Handler, key: string, method: string, params: Record<string, unknown> = {}) =>
  postTo(
    handle,
    {
      jsonrpc: "2.0",
      id: 3,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": { elicitation: {} }
        }
      }
    },
    {
      ...bearer(key),
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
      ...(typeof params.name === "string"
        ? { "mcp-name": params.name }
        : typeof params.uri === "string"
          ? { "mcp-name": params.uri }
          : {})
    }
  )

const toolNames = (reply: Reply.Reply) => (bodyOf(reply).result?.tools ?? []).map((tool) => tool.name)

layer(
  gatewayHost({
    servers: [
      { name: "everything", target: everything },
      { name: "rounds", target: roundServer }
    ]
  }),
  { timeout: "60 seconds" }
)("who is calling, and what each caller may do", (it) => {
  it.scoped("API keys and the shared token are principals; none, or a wrong one, is 401", () =>
    Effect.gen(function* () {
      const apiKeys = yield* Authentication.apiKeys(yield* keyFile, "keys.jsonl")
      const handle = yield* HttpCore.make({ apiKeys, token: "the-shared-token" })
      const none = yield* postTo(handle, initialize)
      expect(statusOf(none)).toBe(401)
      expect(none.headers["www-authenticate"]).toBe("Bearer")
      const wrong = yield* postTo(handle, initialize, bearer("not-a-key-of-anyone"))
      expect(statusOf(wrong)).toBe(401)
      expect(wrong.headers["www-authenticate"]).toBe(`Bearer error="invalid_token"`)
      // A prefix of a key is not the key.
      expect(statusOf(yield* postTo(handle, initialize, bearer(ALICE.slice(0, -1))))).toBe(401)
      for (const key of [ALICE, BOB, "the-shared-token"]) yield* open(handle, key)
    })
  )

  it.scoped("a session is its principal's: another's id is 404 for every method, its streams included", () =>
    Effect.gen(function* () {
      const apiKeys = yield* Authentication.apiKeys(yield* keyFile, "keys.jsonl")
      const handle = yield* HttpCore.make({ apiKeys })
      const alices = yield* open(handle, ALICE)
      const byBob = yield* inSession(handle, BOB, alices, "tools/list")
      expect(statusOf(byBob)).toBe(404)
      expect(bodyOf(byBob).error?.message).toBe("Session not found")
      const headers = { ...bearer(BOB), "mcp-session-id": alices, "mcp-protocol-version": "2025-11-25" }
      const listen = yield* handle({ method: "GET", url: "/mcp", headers, json: Effect.succeed(undefined) })
      expect(statusOf(listen)).toBe(404)
      const resume = yield* handle({
        method: "GET",
        url: "/mcp",
        headers: { ...headers, "last-event-id": "0.0" },
        json: Effect.succeed(undefined)
      })
      expect(statusOf(resume)).toBe(404)
      const remove = yield* handle({ method: "DELETE", url: "/mcp", headers, json: Effect.succeed(undefined) })
      expect(statusOf(remove)).toBe(404)
      // Still Alice's, and alive.
      const own = yield* inSession(handle, ALICE, alices, "tools/call", {
        name: "everything__get-sum",
        arguments: { a: 2, b: 3 }
      })
      expect(bodyOf(own).result?.content?.[0]?.text).toContain("5")
    })
  )

  it.scoped("each caller sees and calls only what its rules allow, in sessions and at 2026-07-28", () =>
    Effect.gen(function* () {
      const apiKeys = yield* Authentication.apiKeys(yield* keyFile, "keys.jsonl")
      // Alice's rules are the policy's; Bob's, which the policy does not name, his key's.
      const policy = yield* AccessPolicy.parse(
        JSON.stringify({
          principals: {
            alice: { deny: [{ server: "everything", tools: ["echo"], prompts: ["args-*"] }, { server: "rounds" }] }
          }
        }),
        "policy.json",
        apiKeys
      )
      const handle = yield* HttpCore.make({ apiKeys, policy })
      const alice = yield* open(handle, ALICE)
      const bob = yield* open(handle, BOB)

      const alicesTools = toolNames(yield* inSession(handle, ALICE, alice, "tools/list"))
      expect(alicesTools).toContain("everything__get-sum")
      expect(alicesTools).not.toContain("everything__echo")
      expect(alicesTools.some((name) => name.startsWith("rounds__"))).toBe(false)
      expect(toolNames(yield* inSession(handle, BOB, bob, "tools/list"))).toEqual(["everything__get-sum"])

      const hidden = yield* inSession(handle, ALICE, alice, "tools/call", {
        name: "everything__echo",
        arguments: { message: "hi" }
      })
      expect(bodyOf(hidden).error).toMatchObject({ code: -32602, message: "Unknown tool: everything__echo" })
      const bobsEcho = yield* inSession(handle, BOB, bob, "tools/call", {
        name: "everything__echo",
        arguments: { message: "hi" }
      })
      expect(bodyOf(bobsEcho).error).toMatchObject({ code: -32602, message: "Unknown tool: everything__echo" })

      // Prompts and resources: Alice's lists keep what her rules do not deny; Bob's allow names tools only.
      const alicesPrompts = (bodyOf(yield* inSession(handle, ALICE, alice, "prompts/list")).result?.prompts ?? []).map(
        (prompt) => prompt.name
      )
      expect(alicesPrompts).toContain("everything__simple-prompt")
      expect(alicesPrompts).not.toContain("everything__args-prompt")
      const deniedPrompt = yield* inSession(handle, ALICE, alice, "prompts/get", {
        name: "everything__args-prompt",
        arguments: { city: "Paris" }
      })
      expect(bodyOf(deniedPrompt).error).toMatchObject({
        code: -32602,
        message: "Unknown prompt: everything__args-prompt"
      })
      expect(bodyOf(yield* inSession(handle, BOB, bob, "prompts/list")).result?.prompts).toEqual([])
      const alicesResources = bodyOf(yield* inSession(handle, ALICE, alice, "resources/list")).result?.resources ?? []
      expect(alicesResources.length).toBeGreaterThan(0)
      expect(bodyOf(yield* inSession(handle, BOB, bob, "resources/list")).result?.resources).toEqual([])
      const uri = alicesResources[0]?.uri ?? ""
      const bobsRead = yield* inSession(handle, BOB, bob, "resources/read", { uri })
      expect(bodyOf(bobsRead).error).toMatchObject({ code: -32002, message: `Resource not found: ${uri}` })
      const alicesRead = yield* inSession(handle, ALICE, alice, "resources/read", { uri })
      expect(bodyOf(alicesRead).error).toBeUndefined()

      // 2026-07-28: every request on its own, with the same view.
      expect(toolNames(yield* stateless(handle, BOB, "tools/list"))).toEqual(["everything__get-sum"])
      const statelessEcho = yield* stateless(handle, BOB, "tools/call", {
        name: "everything__echo",
        arguments: { message: "hi" }
      })
      expect(bodyOf(statelessEcho).error).toMatchObject({ code: -32602, message: "Unknown tool: everything__echo" })
      const statelessSum = yield* stateless(handle, BOB, "tools/call", {
        name: "everything__get-sum",
        arguments: { a: 1, b: 1 }
      })
      expect(bodyOf(statelessSum).result?.content?.[0]?.text).toContain("2")
    })
  )

  // A URI no list the caller sees has is asked of the servers that may serve it unlisted: not of
  // one whose template matches it, when the caller may not see that template.
  it.scoped("a URI of a template the caller may not see stays unknown to it, in sessions and at 2026-07-28", () =>
    Effect.gen(function* () {
      const apiKeys = yield* Authentication.apiKeys(yield* keyFile, "keys.jsonl")
      // The rule names the template, not the URIs it makes.
      const policy = yield* AccessPolicy.parse(
        JSON.stringify({ principals: { alice: { deny: [{ server: "everything", resources: ["*/{resourceId}"] }] } } }),
        "policy.json",
        apiKeys
      )
      const handle = yield* HttpCore.make({ apiKeys, policy })
      const uri = "demo://resource/dynamic/text/1"
      const alice = yield* open(handle, ALICE)
      const templates = bodyOf(yield* inSession(handle, ALICE, alice, "resources/templates/list")).result as {
        readonly resourceTemplates?: ReadonlyArray<{ readonly uriTemplate: string }>
      }
      expect(templates.resourceTemplates?.map((template) => template.uriTemplate)).not.toContain(
        "demo://resource/dynamic/text/{resourceId}"
      )
      const read = yield* inSession(handle, ALICE, alice, "resources/read", { uri })
      expect(bodyOf(read).error).toMatchObject({ code: -32002, message: `Resource not found: ${uri}` })
      expect(bodyOf(yield* stateless(handle, ALICE, "resources/read", { uri })).error).toMatchObject({ code: -32602 })
      // A caller the rule does not name reads it.
      const token = yield* HttpCore.make({ token: "the-shared-token" })
      const other = yield* open(token, "the-shared-token")
      expect(
        bodyOf(yield* inSession(token, "the-shared-token", other, "resources/read", { uri })).error
      ).toBeUndefined()
    })
  )

  it.scoped("a sealed requestState is its principal's: another caller's retry with it is refused", () =>
    Effect.gen(function* () {
      const apiKeys = yield* Authentication.apiKeys(yield* keyFile, "keys.jsonl")
      const handle = yield* HttpCore.make({ apiKeys })
      const first = bodyOf(yield* stateless(handle, ALICE, "tools/call", { name: "rounds__book", arguments: {} }))
      expect(first.result?.resultType).toBe("input_required")
      const retry = {
        name: "rounds__book",
        arguments: {},
        inputResponses: { who: { action: "accept", content: { name: "Ada" } } },
        requestState: first.result?.requestState
      }
      const byBob = bodyOf(yield* stateless(handle, BOB, "tools/call", retry))
      expect(byBob.error).toMatchObject({ code: -32602, message: "Invalid requestState (not this request)" })
      const byAlice = bodyOf(yield* stateless(handle, ALICE, "tools/call", retry))
      expect(byAlice.result).toMatchObject({ resultType: "complete", content: [{ text: "booked for Ada" }] })
    })
  )

  it.scoped("a quota on a tool refuses with a JSON-RPC error saying when, and serves again after its window", () =>
    Effect.gen(function* () {
      const apiKeys = yield* Authentication.apiKeys(yield* keyFile, "keys.jsonl")
      const policy = yield* AccessPolicy.parse(
        JSON.stringify({
          default: { tools: [{ server: "everything", tool: "get-sum", limit: 2, per: "1 minute", kind: "quota" }] }
        }),
        "policy.json"
      )
      const handle = yield* HttpCore.make({ apiKeys, policy })
      const alice = yield* open(handle, ALICE)
      const bob = yield* open(handle, BOB)
      const sum = (key: string, session: string) =>
        Effect.map(
          inSession(handle, key, session, "tools/call", { name: "everything__get-sum", arguments: { a: 1, b: 2 } }),
          bodyOf
        )
      expect((yield* sum(ALICE, alice)).result?.content?.[0]?.text).toContain("3")
      yield* TestClock.adjust("20 seconds")
      expect((yield* sum(ALICE, alice)).error).toBeUndefined()
      const refused = yield* sum(ALICE, alice)
      expect(refused.error).toMatchObject({
        code: AccessPolicy.RATE_LIMITED,
        data: { retryAfter: 40, retryAfterMs: 40_000 }
      })
      expect(refused.error?.message).toContain("retry in 40 s")
      // Another tool, and another principal's calls of this one, are not counted here.
      const echo = yield* inSession(handle, ALICE, alice, "tools/call", {
        name: "everything__echo",
        arguments: { message: "still" }
      })
      expect(bodyOf(echo).error).toBeUndefined()
      expect((yield* sum(BOB, bob)).error).toBeUndefined()
      yield* TestClock.adjust("40 seconds")
      expect((yield* sum(ALICE, alice)).result?.content?.[0]?.text).toContain("3")
    })
  )

  it.scoped("a principal over its request rate is answered 429 with Retry-After, and served once it refills", () =>
    Effect.gen(function* () {
      const apiKeys = yield* Authentication.apiKeys(yield* keyFile, "keys.jsonl")
      const policy = yield* AccessPolicy.parse(
        JSON.stringify({ principals: { bob: { requests: { limit: 2, per: "10 seconds" } } } }),
        "policy.json",
        apiKeys
      )
      const handle = yield* HttpCore.make({ apiKeys, policy })
      // Opening takes both of Bob's requests (initialize, initialized).
      const bob = yield* open(handle, BOB)
      const limited = yield* inSession(handle, BOB, bob, "tools/list")
      expect(statusOf(limited)).toBe(429)
      expect(limited.headers["retry-after"]).toBe("5")
      expect(bodyOf(limited).error).toMatchObject({ code: AccessPolicy.RATE_LIMITED, data: { retryAfter: 5 } })
      // Alice has no limit.
      const alice = yield* open(handle, ALICE)
      expect(statusOf(yield* inSession(handle, ALICE, alice, "tools/list"))).toBe(200)
      yield* TestClock.adjust("5 seconds")
      const served = yield* inSession(handle, BOB, bob, "tools/list")
      expect(statusOf(served)).toBe(200)
      // Bob's key allows get-sum alone (the policy names his limits, not his visibility: his key's rules stand).
      expect(toolNames(served)).toEqual(["everything__get-sum"])
    })
  )
})
