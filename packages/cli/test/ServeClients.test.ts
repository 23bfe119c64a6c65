/**
 * `effect-mcp serve` on the built binary, used by real clients of each revision: the official SDK v2
 * client over stdio (2025-11-25, the reference server behind: calls, progress, the server's sampling
 * and elicitation answered by the client's handlers) and over Streamable HTTP at 2026-07-28 (input
 * rounds answered by its handlers and retried with `requestState`; a 2026-07-28 server's list changes
 * on the client's `subscriptions/listen`; a stateful server's tool asking mid-call is held across the
 * round and runs once), and a raw
 * 2025-03-26 client over stdio whose every answer validates against that revision's schema.json.
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Client, type FetchLike, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { describeErrors, oracle } from "../../protocol/test/support/spec.js"
import { bin, eventually, everything, type Started, start } from "./support/cli.js"
import { stop } from "./support/processes.js"
import { lastCall, recordWire } from "./support/wire.js"

const cwd = mkdtempSync(join(tmpdir(), "effect-mcp-serve-clients-"))
const reference = { command: process.execPath, args: [everything, "stdio"] }
const stdioConfig = join(cwd, "stdio.json")
writeFileSync(stdioConfig, JSON.stringify({ mcpServers: { everything: reference } }))
const tsx = fileURLToPath(new URL("../../../node_modules/.bin/tsx", import.meta.url))
const conformance = fileURLToPath(new URL("../../gateway/test/fixtures/conformanceServer.ts", import.meta.url))
const replay = fileURLToPath(new URL("fixtures/replay-server.mjs", import.meta.url))
const httpConfig = join(cwd, "http.json")
writeFileSync(
  httpConfig,
  JSON.stringify({
    mcpServers: {
      everything: reference,
      fixture: { command: tsx, args: [conformance, "stdio"] },
      replay: { command: process.execPath, args: [replay] }
    }
  })
)

/** What the SDK v2 clients' handlers were asked, in order. */
const asked: Array<string> = []

/** An SDK v2 client answering elicitation (a name and a colour) and sampling, as a host would. */
const sdkV2 = (name: string, options: ConstructorParameters<typeof Client>[1]) => {
  const client = new Client({ name, version: "1.0.0" }, options)
  client.setRequestHandler("elicitation/create", async (request) => {
    asked.push(`elicitation: ${request.params.message}`)
    return { action: "accept", content: { name: "Ada", color: "green" } }
  })
  client.setRequestHandler("sampling/createMessage", async () => {
    asked.push("sampling")
    return { model: "test-model", role: "assistant", content: { type: "text", text: `sampled by ${name}` } }
  })
  return client
}

const text = (result: { readonly content?: unknown }) => JSON.stringify(result.content)

let stdioClient: Client
/** The gateway over stdio for the raw 2025-03-26 client. */
let raw: Started
let gateway: Started
let httpClient: Client
/** What the gateway sent the stdio client, as its transport read it (`support/wire.ts`). */
let stdioWire: Array<unknown> = []
/** The JSON bodies the HTTP client posted. */
const posted: Array<{ readonly method?: string; readonly params?: Record<string, unknown> }> = []

beforeAll(async () => {
  gateway = start(["serve", "--config", httpConfig, "--port", "0"], { cwd, timeoutMs: 600_000 })
  gateway.finished.catch(() => undefined)
  const listening = () => /listening (http:\/\/\S+)/.exec(gateway.stdout())?.[1]
  raw = start(["serve", "--config", stdioConfig], { cwd, keepStdinOpen: true, timeoutMs: 600_000 })
  raw.finished.catch(() => undefined)

  stdioClient = sdkV2("sdk-v2-stdio", { capabilities: { sampling: {}, elicitation: { form: {} } } })
  const stdioTransport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, "serve", "--config", stdioConfig],
    cwd
  })
  stdioWire = recordWire(stdioTransport)
  await stdioClient.connect(stdioTransport)

  await eventually(() => listening() !== undefined, "the gateway to listen", 60_000)
  const recording: FetchLike = (url, init) => {
    if (typeof init?.body === "string") posted.push(JSON.parse(init.body))
    return fetch(url, init)
  }
  httpClient = sdkV2("sdk-v2-http", {
    capabilities: { sampling: {}, elicitation: { form: {} } },
    versionNegotiation: { mode: { pin: "2026-07-28" } }
  })
  await httpClient.connect(new StreamableHTTPClientTransport(new URL(listening() ?? ""), { fetch: recording }))
}, 90_000)

afterAll(async () => {
  await stdioClient?.close()
  await httpClient?.close()
  for (const started of [gateway, raw]) if (started !== undefined) stop(started.child)
})

describe("effect-mcp serve, used by the official SDK v2 client over stdio (2025-11-25)", () => {
  it("initializes at 2025-11-25, lists the reference server's tools under host-wide names and routes a call", async () => {
    expect(stdioClient.getNegotiatedProtocolVersion()).toBe("2025-11-25")
    expect(stdioClient.getServerVersion()?.name).toBe("effect-mcp-gateway")
    const { tools } = await stdioClient.listTools()
    expect(tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(["everything__echo", "everything__trigger-elicitation-request"])
    )
    const echoed = await stdioClient.callTool({ name: "everything__echo", arguments: { message: "through v2" } })
    expect(echoed.content).toEqual([{ type: "text", text: "Echo: through v2" }])
  })

  it("passes the reference server's progress on under the client's token, each before the call's result", async () => {
    for (let round = 0; round < 3; round++) {
      const progress: Array<number> = []
      const result = await stdioClient.callTool(
        { name: "everything__trigger-long-running-operation", arguments: { duration: 0.2, steps: 2 } },
        { onprogress: (event) => void progress.push(event.progress) }
      )
      expect(text(result)).toContain("Long running operation completed")
      expect(lastCall(stdioWire)).toEqual(["progress 1/2", "progress 2/2", "result"])
      // The SDK client's onprogress drops a last report read with the result (as in Serve.test.ts).
      expect([[1], [1, 2]]).toContainEqual(progress)
    }
  })

  it("the reference server's sampling and elicitation requests are answered by the client's handlers", async () => {
    asked.length = 0
    const sampled = await stdioClient.callTool({
      name: "everything__trigger-sampling-request",
      arguments: { prompt: "hello", maxTokens: 10 }
    })
    expect(text(sampled)).toContain("sampled by sdk-v2-stdio")
    const elicited = await stdioClient.callTool({ name: "everything__trigger-elicitation-request", arguments: {} })
    expect(text(elicited)).toContain("- Name: Ada")
    expect(asked).toEqual(["sampling", "elicitation: Please provide inputs for the following fields:"])
  })
})

describe("effect-mcp serve --port, used by the official SDK v2 client at 2026-07-28", () => {
  it("negotiates 2026-07-28 without a session, lists the tools and calls a 2026-07-28 server's tool", async () => {
    expect(httpClient.getNegotiatedProtocolVersion()).toBe("2026-07-28")
    expect(posted.map((body) => body.method)).not.toContain("initialize")
    const { tools } = await httpClient.listTools()
    expect(tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(["fixture__test_simple_text", "everything__echo", "replay__choose"])
    )
    const called = await httpClient.callTool({ name: "fixture__test_simple_text", arguments: {} })
    expect(called.content).toEqual([{ type: "text", text: "This is a simple text response for testing." }])
  })

  it("a tool that asks for input twice finishes: each input_required is answered by the handlers and retried with requestState", async () => {
    asked.length = 0
    const from = posted.length
    const result = await httpClient.callTool({ name: "fixture__test_input_required_result_multi_round", arguments: {} })
    expect(result.content).toEqual([{ type: "text", text: "Multi-round complete: Ada likes green" }])
    expect(asked).toEqual(["elicitation: Step 1: your name?", "elicitation: Step 2: your favourite colour?"])
    const rounds = posted.slice(from).filter((body) => body.method === "tools/call")
    expect(
      rounds.map((body) => [typeof body.params?.requestState, Object.keys(body.params?.inputResponses ?? {})])
    ).toEqual([
      ["undefined", []],
      ["string", ["step1"]],
      ["string", ["step2"]]
    ])
  })

  it("a sampling round is answered by the client's sampling handler", async () => {
    const result = await httpClient.callTool({ name: "fixture__test_input_required_result_sampling", arguments: {} })
    expect(result.content).toEqual([{ type: "text", text: "Sampled: sampled by sdk-v2-http" }])
  })

  it("the tools and prompts list changes of a 2026-07-28 server over stdio reach the client's subscriptions/listen", async () => {
    const changed: Array<string> = []
    httpClient.setNotificationHandler("notifications/tools/list_changed", () => void changed.push("tools"))
    httpClient.setNotificationHandler("notifications/prompts/list_changed", () => void changed.push("prompts"))
    const subscription = await httpClient.listen({ toolsListChanged: true, promptsListChanged: true })
    try {
      expect(subscription.honoredFilter).toEqual({ toolsListChanged: true, promptsListChanged: true })
      await httpClient.callTool({ name: "fixture__test_trigger_tool_change", arguments: {} })
      await eventually(() => changed.includes("tools"), "notifications/tools/list_changed on the listen stream")
      await httpClient.callTool({ name: "fixture__test_trigger_prompt_change", arguments: {} })
      await eventually(() => changed.includes("prompts"), "notifications/prompts/list_changed on the listen stream")
    } finally {
      await subscription.close()
    }
  })
})

describe("effect-mcp serve --port at 2026-07-28, a stateful (2025-11-25) server's tool that asks mid-call", () => {
  it("is held across the client's round: the client's answer in its retry reaches the waiting call, which runs once", async () => {
    asked.length = 0
    for (const tool of ["replay__commit", "replay__choose", "replay__peek"]) {
      const from = posted.length
      const result = await httpClient.callTool({ name: tool, arguments: { ticket: "held" } })
      // Whether marked safe to repeat or not, the server's call ran once: it waited for the answer.
      expect([tool, result.content]).toEqual([tool, [{ type: "text", text: "green after 1 runs" }]])
      const rounds = posted.slice(from).filter((body) => body.method === "tools/call")
      expect(rounds.map((body) => typeof body.params?.requestState)).toEqual(["undefined", "string"])
    }
    expect(asked).toEqual(["elicitation: Which colour?", "elicitation: Which colour?", "elicitation: Which colour?"])
  })

  it("the reference server's sampling and elicitation, as our own client at the default era would ask them", async () => {
    asked.length = 0
    const sampled = await httpClient.callTool({
      name: "everything__trigger-sampling-request",
      arguments: { prompt: "hello", maxTokens: 10 }
    })
    expect(text(sampled)).toContain("sampled by sdk-v2-http")
    const elicited = await httpClient.callTool({ name: "everything__trigger-elicitation-request", arguments: {} })
    expect(text(elicited)).toContain("- Name: Ada")
    expect(asked).toEqual(["sampling", "elicitation: Please provide inputs for the following fields:"])
  })
})

describe("effect-mcp serve, used by a 2025-03-26 client over stdio (raw JSON-RPC)", () => {
  it("answers at 2025-03-26; tools/list and tools/call work and every message validates against its schema.json", async () => {
    const schema = oracle("2025-03-26")
    const received = () =>
      raw
        .stdout()
        .split("\n")
        .slice(0, -1)
        .map((line): { readonly id?: number; readonly result?: unknown; readonly error?: unknown } => JSON.parse(line))
    let nextId = 1
    const request = async (method: string, params: Record<string, unknown>) => {
      const id = nextId++
      raw.child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`)
      await eventually(() => received().some((message) => message.id === id), `the answer to ${method}`)
      const answer = received().find((message) => message.id === id)
      expect([method, answer?.error]).toEqual([method, undefined])
      return answer?.result
    }
    const valid = (definition: string, value: unknown) => {
      const validate = schema.validator(definition)
      expect(validate(value), `${definition}: ${describeErrors(validate)}\n${JSON.stringify(value)}`).toBe(true)
    }

    const initialized = await request("initialize", {
      protocolVersion: "2025-03-26",
      capabilities: {},
      clientInfo: { name: "raw-2025-03-26", version: "1" }
    })
    expect(initialized).toMatchObject({ protocolVersion: "2025-03-26", serverInfo: { name: "effect-mcp-gateway" } })
    valid("InitializeResult", initialized)
    raw.child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`)

    const listed = await request("tools/list", {})
    valid("ListToolsResult", listed)
    expect(JSON.stringify(listed)).toContain('"name":"everything__get-sum"')
    const summed = await request("tools/call", { name: "everything__get-sum", arguments: { a: 2, b: 3 } })
    valid("CallToolResult", summed)
    expect(summed).toEqual({ content: [{ type: "text", text: "The sum of 2 and 3 is 5." }] })
    for (const [name, args] of [
      ["everything__echo", { message: "old" }],
      ["everything__get-tiny-image", {}],
      ["everything__get-resource-reference", {}]
    ] as const)
      valid("CallToolResult", await request("tools/call", { name, arguments: args }))
    // A resource link (2025-06-18) is no content block of 2025-03-26: it arrives as a text naming it.
    const linked = await request("tools/call", { name: "everything__get-resource-links", arguments: { count: 1 } })
    valid("CallToolResult", linked)
    expect(linked).toMatchObject({
      content: [{ type: "text" }, { type: "text", text: "[link] demo://resource/dynamic/blob/1 (Blob Resource 1)" }]
    })

    for (const message of received()) valid("JSONRPCMessage", message)
  })
})
