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

/** One SSE event's fields as sent. */
interface SseEvent {
  readonly id: string | undefined
  readonly retry: string | undefined
  readonly data: string
}

/** The events of an SSE body as they arrive; leaving the loop early drops the connection. */
async function* sseEvents(response: Response): AsyncGenerator<SseEvent> {
  const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader()
  if (reader === undefined) return
  let buffer = ""
  try {
    while (true) {
      const { value, done } = await reader.read()
      if (done) return
      buffer += value
      for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
        const fields = new Map<string, string>()
        for (const line of buffer.slice(0, end).split("\n")) {
          const colon = line.indexOf(":")
          if (colon > 0) fields.set(line.slice(0, colon), line.slice(colon + 1).trimStart())
        }
        buffer = buffer.slice(end + 2)
        yield { id: fields.get("id"), retry: fields.get("retry"), data: fields.get("data") ?? "" }
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined)
  }
}

describe("effect-mcp serve --port resumes an event stream with Last-Event-ID", () => {
  /** A raw session at 2025-11-25: its headers for later requests. */
  const session = async () => {
    const opened = await post(
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } }
      },
      authorized
    )
    await opened.text()
    const headers = {
      ...authorized,
      "mcp-session-id": opened.headers.get("mcp-session-id") ?? "",
      "mcp-protocol-version": "2025-11-25"
    }
    expect((await post({ jsonrpc: "2.0", method: "notifications/initialized" }, headers)).status).toBe(202)
    return headers
  }
  const resume = (headers: Record<string, string>, lastEventId: string) =>
    fetch(url, { headers: { ...headers, accept: "text/event-stream", "last-event-id": lastEventId } })

  it("a call with progress gets an event stream: the progress, then the result", async () => {
    const headers = await session()
    const streamed = await post(
      {
        jsonrpc: "2.0",
        id: 4,
        method: "tools/call",
        params: {
          name: "everything__trigger-long-running-operation",
          arguments: { duration: 0.2, steps: 2 },
          _meta: { progressToken: "q" }
        }
      },
      headers
    )
    expect(streamed.headers.get("content-type")).toMatch(/^text\/event-stream/)
    const events: Array<SseEvent> = []
    for await (const event of sseEvents(streamed)) events.push(event)
    const messages = events.flatMap((event) => (event.data === "" ? [] : [JSON.parse(event.data)]))
    expect(messages.map((message) => message.method ?? message.id)).toEqual([
      "notifications/progress",
      "notifications/progress",
      4
    ])
  })

  it("a client that drops a call's stream mid-call gets the missed progress and the result once", async () => {
    const headers = await session()
    const dropped = new AbortController()
    const call = await fetch(url, {
      method: "POST",
      signal: dropped.signal,
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: {
          name: "everything__trigger-long-running-operation",
          arguments: { duration: 1, steps: 5 },
          _meta: { progressToken: "p" }
        }
      })
    })
    const before: Array<SseEvent> = []
    for await (const event of sseEvents(call)) {
      before.push(event)
      if (event.data !== "") break
    }
    dropped.abort()
    expect(before[0]).toEqual({ id: expect.any(String), retry: "1000", data: "" })
    const lastEventId = before.at(-1)?.id ?? ""
    const resumed = await resume(headers, lastEventId)
    expect(resumed.status).toBe(200)
    const after: Array<SseEvent> = []
    for await (const event of sseEvents(resumed)) after.push(event)

    const messages = [...before, ...after].flatMap((event) => (event.data === "" ? [] : [JSON.parse(event.data)]))
    expect(
      messages.filter((message) => message.method === "notifications/progress").map((m) => m.params.progress)
    ).toEqual([1, 2, 3, 4, 5])
    const results = messages.filter((message) => message.id === 2)
    expect(results).toHaveLength(1)
    expect(JSON.stringify(results[0].result)).toContain("Long running operation completed")
    const ids = [...before, ...after].map((event) => event.id)
    expect(new Set(ids).size).toBe(ids.length)

    // The stream has ended and nothing came after its last event: the SSE standard's "stop" (204).
    expect((await resume(headers, after.at(-1)?.id ?? "")).status).toBe(204)
  })

  it("a Last-Event-ID that the session never gave is refused (400), as is a resume without a session (400)", async () => {
    const headers = await session()
    const unknown = await resume(headers, "99.12345")
    expect(unknown.status).toBe(400)
    expect(await unknown.json()).toMatchObject({ error: { message: expect.stringContaining("99.12345") } })
    expect((await resume(authorized, "1.1")).status).toBe(400)
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
