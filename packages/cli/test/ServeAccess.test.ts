/**
 * `effect-mcp serve --port` on the built binary with its access options: API keys from a file and
 * a policy file (two callers, each its own view and its own sessions, a quota that refuses), OAuth
 * as a resource server (`--oauth-issuer`, `--oauth-jwks`, `--oauth-resource`, `--oauth-scope`)
 * against a loopback authorization server issuing real JWTs, and options or files that cannot work
 * refused before any server starts, saying why.
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { afterAll, afterEach, describe, expect, it } from "vitest"
import * as AuthorizationServer from "../../gateway/test/support/authorizationServer.js"
import { eventually, everything, run, type Started, start } from "./support/cli.js"

const cwd = mkdtempSync(join(tmpdir(), "effect-mcp-serve-access-"))
const file = (name: string, text: string) => {
  writeFileSync(join(cwd, name), text)
  return join(cwd, name)
}
const config = file(
  ".mcp.json",
  JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everything, "stdio"] } } })
)
const ALICE = "alice-key-0123456789"
const BOB = "bob-key-abcdefghijkl"
const keys = file(
  "keys.jsonl",
  [
    JSON.stringify({ name: "alice", key: ALICE }),
    JSON.stringify({ name: "bob", key: BOB, allow: [{ server: "everything", tools: ["get-sum"] }] })
  ].join("\n")
)
const policy = file(
  "policy.json",
  JSON.stringify({
    principals: {
      alice: { deny: [{ server: "everything", tools: ["echo"] }] },
      bob: { tools: [{ server: "everything", tool: "get-sum", limit: 1, per: "1 hour", kind: "quota" }] }
    }
  })
)

const scope = Effect.runSync(Scope.make())
let gateway: Started | undefined

afterEach(() => {
  gateway?.child.kill("SIGKILL")
  gateway = undefined
})
afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))

const serve = async (args: ReadonlyArray<string>) => {
  const started = start(["serve", "--config", config, ...args], { cwd, timeoutMs: 120_000 })
  started.finished.catch(() => undefined)
  gateway = started
  await eventually(() => /listening (http:\/\/\S+)/.test(started.stdout()), "the gateway to listen")
  return /listening (http:\/\/\S+)/.exec(started.stdout())?.[1] ?? ""
}

interface Message {
  readonly result?: {
    readonly tools?: ReadonlyArray<{ readonly name: string }>
    readonly content?: ReadonlyArray<{ readonly text?: string }>
  }
  readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown }
}

/** A JSON-RPC POST: its status, its headers and its message (from JSON or the event stream's last event). */
const rpc = async (url: string, body: unknown, headers: Record<string, string> = {}) => {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(body)
  })
  const text = await response.text()
  const data = text.startsWith("{")
    ? text
    : (text
        .split("\n")
        .filter((line) => line.startsWith("data: {"))
        .at(-1)
        ?.slice(6) ?? "{}")
  return { status: response.status, headers: response.headers, message: JSON.parse(data) as Message }
}

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "test", version: "1" } }
}

/** A session of the caller with `token`, and its requests. */
const sessionOf = async (url: string, token: string) => {
  const opened = await rpc(url, initialize, { authorization: `Bearer ${token}` })
  expect(opened.status).toBe(200)
  const id = opened.headers.get("mcp-session-id") ?? ""
  const headers = (as: string) => ({
    authorization: `Bearer ${as}`,
    "mcp-session-id": id,
    "mcp-protocol-version": "2025-11-25"
  })
  await rpc(url, { jsonrpc: "2.0", method: "notifications/initialized" }, headers(token))
  return {
    id,
    request: (method: string, params: Record<string, unknown> = {}, as = token) =>
      rpc(url, { jsonrpc: "2.0", id: 2, method, params }, headers(as))
  }
}

const toolNames = (message: Message) => (message.result?.tools ?? []).map((tool) => tool.name)

/** A port free now on loopback. */
const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer()
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      probe.close(() => resolve(port))
    })
  })

describe("effect-mcp serve --api-keys --policy", () => {
  it("tells two callers apart: each its own tools and sessions, its own quota", async () => {
    const url = await serve(["--port", "0", "--api-keys", keys, "--policy", policy])
    expect((await rpc(url, initialize)).status).toBe(401)
    expect((await rpc(url, initialize, { authorization: "Bearer not-a-key-of-anyone" })).status).toBe(401)
    const alice = await sessionOf(url, ALICE)
    const bob = await sessionOf(url, BOB)
    const alicesTools = toolNames((await alice.request("tools/list")).message)
    expect(alicesTools).toContain("everything__get-sum")
    expect(alicesTools).not.toContain("everything__echo")
    expect(toolNames((await bob.request("tools/list")).message)).toEqual(["everything__get-sum"])
    const hidden = await bob.request("tools/call", { name: "everything__echo", arguments: { message: "hi" } })
    expect(hidden.message.error).toMatchObject({ code: -32602, message: "Unknown tool: everything__echo" })
    // Bob cannot use Alice's session.
    expect((await alice.request("tools/list", {}, BOB)).status).toBe(404)
    const sum = { name: "everything__get-sum", arguments: { a: 2, b: 3 } }
    expect((await bob.request("tools/call", sum)).message.result?.content?.[0]?.text).toContain("5")
    const refused = await bob.request("tools/call", sum)
    expect(refused.message.error).toMatchObject({ code: -32029, data: { retryAfter: 3600 } })
    // Alice has no quota.
    expect((await alice.request("tools/call", sum)).message.error).toBeUndefined()
    expect((await alice.request("tools/call", sum)).message.error).toBeUndefined()
  })
})

describe("effect-mcp serve --oauth-issuer", () => {
  it("is a resource server: its metadata, the challenge naming it, the issuer's token accepted, others refused", async () => {
    const port = await freePort()
    const resource = `http://127.0.0.1:${port}/mcp`
    const as = await Effect.runPromise(Scope.extend(AuthorizationServer.start(resource), scope))
    const url = await serve([
      "--port",
      String(port),
      "--oauth-issuer",
      as.issuer,
      "--oauth-jwks",
      as.jwksUrl,
      "--oauth-resource",
      resource,
      "--oauth-scope",
      "mcp:tools"
    ])
    expect(url).toBe(resource)
    const metadata = await fetch(`http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`)
    expect(await metadata.json()).toEqual({
      resource,
      authorization_servers: [as.issuer],
      scopes_supported: ["mcp:tools"],
      bearer_methods_supported: ["header"]
    })
    const none = await rpc(url, initialize)
    expect(none.status).toBe(401)
    expect(none.headers.get("www-authenticate")).toBe(
      `Bearer scope="mcp:tools", resource_metadata="http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp"`
    )
    const token = await as.sign({ scope: "mcp:tools" })
    const session = await sessionOf(url, token)
    expect(toolNames((await session.request("tools/list")).message)).toContain("everything__get-sum")
    const expired = await rpc(url, initialize, {
      authorization: `Bearer ${await as.sign({ scope: "mcp:tools", exp: Math.floor(Date.now() / 1000) - 5 })}`
    })
    expect(expired.status).toBe(401)
    expect(expired.headers.get("www-authenticate")).toContain('error="invalid_token"')
    const narrow = await rpc(url, initialize, { authorization: `Bearer ${await as.sign({ scope: "read" })}` })
    expect(narrow.status).toBe(403)
    expect(narrow.headers.get("www-authenticate")).toContain('error="insufficient_scope"')
  })
})

describe("effect-mcp serve's access options that cannot work", () => {
  const refused = async (args: ReadonlyArray<string>, env: Record<string, string> = {}) => {
    const finished = await run(["serve", "--config", config, ...args], { cwd, env, timeoutMs: 60_000 })
    expect(finished.code).not.toBe(0)
    return finished.stderr
  }

  it("are refused before any server starts, saying why", async () => {
    const bad = file("bad-policy.json", JSON.stringify({ principals: { a: { alow: [] } } }))
    expect(await refused(["--port", "0", "--policy", bad])).toContain(`${bad}:`)
    expect(await refused(["--port", "0", "--policy", bad])).toContain('"alow"')
    const short = file("short.jsonl", JSON.stringify({ name: "a", key: "short" }))
    expect(await refused(["--port", "0", "--api-keys", short])).toContain("a key has at least 16 characters")
    expect(await refused(["--api-keys", keys])).toContain("--api-keys needs --port")
    expect(await refused(["--port", "0", "--oauth-jwks", "http://127.0.0.1:1/jwks"])).toContain(
      "--oauth-jwks needs --oauth-issuer"
    )
    expect(await refused(["--port", "0", "--oauth-issuer", "http://127.0.0.1:1"])).toContain(
      "--oauth-issuer needs --oauth-resource"
    )
    expect(
      await refused(["--port", "0", "--oauth-issuer", "http://127.0.0.1:1", "--oauth-resource", "http://127.0.0.1/mcp"])
    ).toContain("give a JWKS URL or an introspection endpoint")
    expect(
      await refused([
        "--port",
        "0",
        "--oauth-issuer",
        "http://127.0.0.1:1",
        "--oauth-resource",
        "http://127.0.0.1/mcp",
        "--oauth-introspection",
        "http://127.0.0.1:1/introspect"
      ])
    ).toContain("needs EFFECT_MCP_OAUTH_CLIENT_ID and EFFECT_MCP_OAUTH_CLIENT_SECRET")
  })
})
