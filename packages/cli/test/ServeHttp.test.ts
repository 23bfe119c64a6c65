/**
 * `effect-mcp serve --port` on the built binary: the gateway over Streamable HTTP on 127.0.0.1,
 * used by the official SDK v1 client (sessions, event streams, a server's request asked of the
 * client whose call caused it), and refusing what it must (no session, an unknown one, a foreign
 * origin, a missing bearer token, an address beyond loopback without one).
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { CreateMessageRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventually, everything, run, type Started, start } from "./support/cli.js"

const cwd = mkdtempSync(join(tmpdir(), "effect-mcp-serve-http-"))
const config = join(cwd, ".mcp.json")
writeFileSync(
  config,
  JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everything, "stdio"] } } })
)
const TOKEN = "gateway-test-token"

let gateway: Started
let url: URL

const listening = (started: Started) => /listening (http:\/\/\S+)/.exec(started.stdout())?.[1]

beforeAll(async () => {
  gateway = start(["serve", "--config", config, "--port", "0"], {
    cwd,
    env: { EFFECT_MCP_GATEWAY_TOKEN: TOKEN },
    timeoutMs: 600_000
  })
  gateway.finished.catch(() => undefined)
  await eventually(() => listening(gateway) !== undefined, "the gateway to listen")
  url = new URL(listening(gateway) ?? "")
}, 60_000)

afterAll(() => {
  gateway?.child.kill("SIGKILL")
})

const authorized = { authorization: `Bearer ${TOKEN}` }

const connect = async (name: string, onSampling?: () => void) => {
  const client = new Client(
    { name, version: "1.0.0" },
    { capabilities: onSampling === undefined ? {} : { sampling: {} } }
  )
  if (onSampling !== undefined) {
    client.setRequestHandler(CreateMessageRequestSchema, async () => {
      onSampling()
      return { model: "m", role: "assistant", content: { type: "text", text: `sampled by ${name}` } }
    })
  }
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: authorized } }))
  return client
}

const post = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(body)
  })

describe("effect-mcp serve --port, used by the official SDK v1 client", () => {
  it("serves the host's tools under host-wide names, with progress, over a session", async () => {
    const client = await connect("http-one")
    try {
      const { tools } = await client.listTools()
      expect(tools.map((tool) => tool.name)).toContain("everything__get-sum")
      const sum = await client.callTool({ name: "everything__get-sum", arguments: { a: 4, b: 5 } })
      expect(JSON.stringify(sum.content)).toContain("9")
      const progress: Array<number> = []
      await client.callTool(
        { name: "everything__trigger-long-running-operation", arguments: { duration: 0.2, steps: 2 } },
        undefined,
        { onprogress: (event) => void progress.push(event.progress) }
      )
      expect(progress).toEqual([1, 2])
    } finally {
      await client.close()
    }
  })

  it("a server's sampling request is asked of the client whose call caused it, not of another", async () => {
    const asked: Array<string> = []
    const one = await connect("caller", () => asked.push("caller"))
    const other = await connect("bystander", () => asked.push("bystander"))
    try {
      const result = await one.callTool({
        name: "everything__trigger-sampling-request",
        arguments: { prompt: "hi", maxTokens: 5 }
      })
      expect(JSON.stringify(result.content)).toContain("sampled by caller")
      expect(asked).toEqual(["caller"])
    } finally {
      await other.close()
      await one.close()
    }
  })
})

describe("effect-mcp serve --port refuses", () => {
  const initialize = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } }
  }

  it("a request without the bearer token (401), or from a foreign origin (403)", async () => {
    expect((await post(initialize)).status).toBe(401)
    expect((await post(initialize, { ...authorized, origin: "https://evil.example" })).status).toBe(403)
  })

  it("a request without its session (400), with an unknown one (404); DELETE ends a session", async () => {
    expect((await post({ jsonrpc: "2.0", id: 2, method: "tools/list" }, authorized)).status).toBe(400)
    const unknown = await post(
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      { ...authorized, "mcp-session-id": "nope" }
    )
    expect(unknown.status).toBe(404)
    const opened = await post(initialize, authorized)
    const session = opened.headers.get("mcp-session-id") ?? ""
    expect(await opened.text()).toContain('"protocolVersion":"2025-11-25"')
    const ended = await fetch(url, { method: "DELETE", headers: { ...authorized, "mcp-session-id": session } })
    expect(ended.status).toBe(200)
    const after = await post({ jsonrpc: "2.0", id: 3, method: "ping" }, { ...authorized, "mcp-session-id": session })
    expect(after.status).toBe(404)
  })

  it("a body that is not JSON (400, parse error)", async () => {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...authorized },
      body: "{not json"
    })
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ error: { code: -32700 } })
  })

  it("to listen beyond loopback without a token (exit 2, saying why)", async () => {
    const result = await run(["serve", "--config", config, "--port", "0", "--host", "0.0.0.0"], {
      cwd,
      env: { EFFECT_MCP_GATEWAY_TOKEN: undefined }
    })
    expect(result.code).toBe(2)
    expect(result.stderr).toContain("EFFECT_MCP_GATEWAY_TOKEN")
  })
})

describe("effect-mcp serve --port, at 2026-07-28 (stateless)", () => {
  const envelope = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": { name: "stateless", version: "1" }
  }
  const stateless = (method: string, params: Record<string, unknown>, headers: Record<string, string> = {}) =>
    post(
      { jsonrpc: "2.0", id: 31, method, params: { ...params, _meta: envelope } },
      { ...authorized, "mcp-protocol-version": "2026-07-28", "mcp-method": method, ...headers }
    )

  it("server/discover and a call, each a POST standing alone: no session, resultType and serverInfo in every result", async () => {
    const discovered = await stateless("server/discover", {})
    expect(discovered.headers.get("mcp-session-id")).toBeNull()
    expect(await discovered.json()).toMatchObject({
      id: 31,
      result: { resultType: "complete", supportedVersions: expect.arrayContaining(["2026-07-28", "2025-11-25"]) }
    })
    const called = await stateless(
      "tools/call",
      { name: "everything__get-sum", arguments: { a: 1, b: 2 } },
      { "mcp-name": "everything__get-sum" }
    )
    const body = (await called.json()) as { result: { content: unknown } }
    expect(body.result).toMatchObject({
      resultType: "complete",
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "effect-mcp-gateway" } }
    })
    expect(JSON.stringify(body.result.content)).toContain("3")
    const listed = (await (await stateless("tools/list", {})).json()) as { result: unknown }
    expect(listed.result).toMatchObject({ ttlMs: 0, cacheScope: "private" })
  })

  it("refuses what the revision forbids: a header that disagrees (-32020), a removed method (404), an unknown revision (-32022)", async () => {
    const mismatch = await stateless("tools/call", { name: "everything__echo", arguments: {} }, { "mcp-name": "other" })
    expect(mismatch.status).toBe(400)
    expect(await mismatch.json()).toMatchObject({ id: 31, error: { code: -32020 } })
    const removed = await stateless("ping", {})
    expect(removed.status).toBe(404)
    expect(await removed.json()).toMatchObject({ error: { code: -32601 } })
    const unknown = await post(
      {
        jsonrpc: "2.0",
        id: 32,
        method: "tools/list",
        params: { _meta: { ...envelope, "io.modelcontextprotocol/protocolVersion": "2099-01-01" } }
      },
      { ...authorized, "mcp-protocol-version": "2099-01-01", "mcp-method": "tools/list" }
    )
    expect(unknown.status).toBe(400)
    expect(await unknown.json()).toMatchObject({ id: 32, error: { code: -32022, data: { requested: "2099-01-01" } } })
  })
})

describe("effect-mcp serve --port, stopped", () => {
  it("ends on SIGTERM with its sessions open (a session's fiber must not inherit the server's uninterruptible handler)", async () => {
    const client = await connect("left-open")
    await client.listTools()
    let ended = false
    gateway.finished.then(() => {
      ended = true
    })
    gateway.child.kill("SIGTERM")
    await eventually(() => ended, "the gateway to end after SIGTERM")
    await client.close()
  })
})
