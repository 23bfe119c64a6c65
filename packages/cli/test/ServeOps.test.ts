/**
 * `effect-mcp serve --port` for an operator, on the built binary with the reference server behind
 * it and the official SDK v1 client calling: `/healthz`, `/readyz`, `/metrics` beside `/mcp`;
 * `--audit-log` (an entry per call, arguments masked); `--otlp` (the call's spans reach a loopback
 * OTLP/HTTP receiver standing in for a collector, in the caller's trace); the limits
 * (`--max-body-bytes`, `--max-sessions`, `--session-idle-timeout`) applied or refused with a usage error.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import * as http from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { startInstance } from "./support/balancer.js"
import { eventually, everything, run, type Started } from "./support/cli.js"

const cwd = mkdtempSync(join(tmpdir(), "effect-mcp-serve-ops-"))
const config = join(cwd, ".mcp.json")
writeFileSync(
  config,
  JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everything, "stdio"] } } })
)
const TRACE = "5bf92f3577b34da6a3ce929d0e0e4736"
const CALLER = "10f067aa0ba902b7"

let gateway: Started | undefined

afterEach(() => {
  gateway?.child.kill("SIGKILL")
})

/** `serve --config … --port 0 <args>`, kept to be killed after the test: its MCP URL. */
const serve = async (args: ReadonlyArray<string>, env?: Record<string, string>) => {
  const instance = await startInstance("ops", ["--config", config, ...args], {
    cwd,
    ...(env === undefined ? {} : { env })
  })
  gateway = instance.started
  return instance.url.href
}

/** A loopback OTLP/HTTP receiver: the span names (with their trace and parent) it got. */
const spans: Array<{ name: string; traceId: string; parentSpanId?: string }> = []
let collector: http.Server | undefined
let collectorUrl = ""

beforeAll(async () => {
  collector = http.createServer((request, response) => {
    let body = ""
    request.setEncoding("utf8")
    request.on("data", (chunk: string) => {
      body += chunk
    })
    request.on("end", () => {
      if (request.url === "/v1/traces") {
        const parsed: {
          resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: Array<(typeof spans)[number]> }> }>
        } = JSON.parse(body)
        for (const resource of parsed.resourceSpans ?? []) {
          for (const scope of resource.scopeSpans ?? []) spans.push(...(scope.spans ?? []))
        }
      }
      response.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  await new Promise<void>((resolve) => collector?.listen(0, "127.0.0.1", resolve))
  const address = collector.address()
  collectorUrl = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`
})

afterAll(async () => {
  await new Promise((resolve) => collector?.close(resolve))
})

describe("effect-mcp serve for an operator", () => {
  it("serves /healthz, /readyz and /metrics, audits the call and exports its spans over OTLP", async () => {
    const audit = join(cwd, "audit.jsonl")
    const url = await serve(["--audit-log", audit, "--otlp", collectorUrl])
    const base = url.replace(/\/mcp$/, "")
    expect((await fetch(`${base}/healthz`)).status).toBe(200)
    const ready = await fetch(`${base}/readyz`)
    expect(ready.status).toBe(200)
    expect(await ready.json()).toStrictEqual({ status: "ready", servers: { everything: "Ready" } })

    const client = new Client({ name: "sdk-v1", version: "1.0.0" })
    await client.connect(new StreamableHTTPClientTransport(new URL(url)))
    const result = await client.callTool({
      name: "everything__echo",
      arguments: { message: "the secret" },
      _meta: { traceparent: `00-${TRACE}-${CALLER}-01` }
    })
    expect(JSON.stringify(result)).toContain("the secret")
    await client.close()

    const metrics = await (await fetch(`${base}/metrics`)).text()
    expect(metrics).toMatch(/mcp_gateway_requests_total\{method="tools\/call",server="everything",outcome="ok"\} 1\b/)

    const entries = readFileSync(audit, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line))
    expect(entries).toHaveLength(1)
    expect(entries[0]).toMatchObject({
      principal: "anonymous",
      method: "tools/call",
      server: "everything",
      name: "everything__echo",
      outcome: "ok",
      arguments: { message: "[masked]" }
    })

    // The exporter sends on its interval: the gateway's span arrives, under the caller's.
    await eventually(
      () => spans.some((span) => span.name === "mcp.gateway tools/call"),
      "the gateway's span at the collector",
      30_000
    )
    const gatewaySpan = spans.find((span) => span.name === "mcp.gateway tools/call")
    expect(gatewaySpan?.traceId).toBe(TRACE)
    expect(gatewaySpan?.parentSpanId).toBe(CALLER)
  }, 120_000)

  it("applies --max-body-bytes, and refuses limits that cannot work", async () => {
    const url = await serve(["--max-body-bytes", "200", "--max-sessions", "5", "--session-idle-timeout", "60"])
    const large = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "x".repeat(400) } })
    })
    expect(large.status).toBe(413)
    gateway?.child.kill("SIGKILL")

    const zero = await run(["serve", "--config", config, "--port", "0", "--max-sessions", "0"], { cwd })
    expect(zero.code).toBe(2)
    expect(zero.stderr).toMatch(/--max-sessions must be a positive integer/)
    const onStdio = await run(["serve", "--config", config, "--max-body-bytes", "100"], { cwd })
    expect(onStdio.code).toBe(2)
    expect(onStdio.stderr).toMatch(/--max-body-bytes needs --port/)
    const badCollector = await run(["serve", "--config", config, "--otlp", "ftp://collector"], { cwd })
    expect(badCollector.code).toBe(2)
    expect(badCollector.stderr).toMatch(/--otlp needs an http\(s\) URL/)
  }, 120_000)

  it("closes /metrics beyond loopback without EFFECT_MCP_METRICS_TOKEN, and opens it with the token", async () => {
    // 0.0.0.0 is beyond loopback: a gateway token is required, and /metrics has its own.
    const env = { EFFECT_MCP_GATEWAY_TOKEN: "gw", EFFECT_MCP_METRICS_TOKEN: "scrape" }
    const base = `http://127.0.0.1:${new URL(await serve(["--host", "0.0.0.0"], env)).port}`
    expect((await fetch(`${base}/metrics`)).status).toBe(401)
    expect((await fetch(`${base}/metrics`, { headers: { authorization: "Bearer gw" } })).status).toBe(401)
    expect((await fetch(`${base}/metrics`, { headers: { authorization: "Bearer scrape" } })).status).toBe(200)
    gateway?.child.kill("SIGKILL")

    const closed = `http://127.0.0.1:${new URL(await serve(["--host", "0.0.0.0"], { EFFECT_MCP_GATEWAY_TOKEN: "gw" })).port}`
    expect((await fetch(`${closed}/metrics`)).status).toBe(401)
    expect((await fetch(`${closed}/healthz`)).status).toBe(200)
  }, 120_000)
})
