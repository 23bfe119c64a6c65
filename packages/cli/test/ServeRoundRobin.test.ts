/**
 * Two `effect-mcp serve --port` instances behind a plain round-robin HAProxy (no stickiness), at
 * 2026-07-28: a gateway instance keeps nothing of a client between requests, and a call that asks
 * for input twice is answered across instances, each round opening the `requestState` another
 * instance sealed, because they share `EFFECT_MCP_GATEWAY_SECRETS`. The same pair under different
 * secrets refuses the second round (the control: the rounds did change instance). Behind both: the
 * SDK v2 fixture server, spoken to at 2026-07-28.
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Balancer, haproxyMissing, type Instance, startBalancer, startInstance } from "./support/balancer.js"
import { stop } from "./support/processes.js"

const cwd = mkdtempSync(join(tmpdir(), "effect-mcp-serve-round-robin-"))
const config = join(cwd, ".mcp.json")
const tsx = join(fileURLToPath(new URL("../../../node_modules/.bin/tsx", import.meta.url)))
const fixture = fileURLToPath(new URL("../../gateway/test/fixtures/conformanceServer.ts", import.meta.url))
writeFileSync(config, JSON.stringify({ mcpServers: { fixture: { command: tsx, args: [fixture, "stdio"] } } }))

let shared: ReadonlyArray<Instance> = []
let apart: ReadonlyArray<Instance> = []
let sharedBalancer: Balancer
let apartBalancer: Balancer

beforeAll(async () => {
  if (haproxyMissing !== undefined) throw new Error(haproxyMissing)
  const args = ["--config", config, "--namespace", "none"]
  ;[shared, apart] = await Promise.all([
    Promise.all(
      ["one", "two"].map((name) =>
        startInstance(name, args, { cwd, env: { EFFECT_MCP_GATEWAY_SECRETS: "k1:the secret both instances share" } })
      )
    ),
    Promise.all(
      ["three", "four"].map((name) =>
        startInstance(name, args, { cwd, env: { EFFECT_MCP_GATEWAY_SECRETS: `k1:a secret of ${name} alone` } })
      )
    )
  ])
  sharedBalancer = await startBalancer("shared", shared, false, cwd)
  apartBalancer = await startBalancer("apart", apart, false, cwd)
}, 90_000)

afterAll(() => {
  for (const started of [
    sharedBalancer?.started,
    apartBalancer?.started,
    ...[...shared, ...apart].map((i) => i.started)
  ])
    if (started !== undefined) stop(started.child)
})

const envelope = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
  "io.modelcontextprotocol/clientInfo": { name: "round-robin", version: "1" }
}

let nextId = 1
/** One round of `test_input_required_result_multi_round` through `url`. */
const round = async (url: URL, extra: Record<string, unknown>) => {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "test_input_required_result_multi_round"
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: nextId++,
      method: "tools/call",
      params: { name: "test_input_required_result_multi_round", arguments: {}, _meta: envelope, ...extra }
    })
  })
  return (await response.json()) as {
    readonly result?: { readonly resultType: string; readonly requestState: string; readonly content?: unknown }
    readonly error?: { readonly code: number; readonly message: string }
  }
}

const accept = (content: Record<string, string>) => ({ action: "accept", content })

describe("two gateway instances behind round robin, at 2026-07-28", () => {
  it("a call that asks for input twice finishes across instances: each round opens the state another sealed", async () => {
    const first = await round(sharedBalancer.url, {})
    expect(first.result?.resultType).toBe("input_required")
    const second = await round(sharedBalancer.url, {
      inputResponses: { step1: accept({ name: "Ada" }) },
      requestState: first.result?.requestState
    })
    expect(second.result?.resultType).toBe("input_required")
    const third = await round(sharedBalancer.url, {
      inputResponses: { step2: accept({ color: "green" }) },
      requestState: second.result?.requestState
    })
    expect(third.result?.resultType).toBe("complete")
    expect(JSON.stringify(third.result?.content)).toContain("Ada likes green")
  })

  it("under secrets of their own the next round is refused: the rounds did land on the other instance", async () => {
    const first = await round(apartBalancer.url, {})
    expect(first.result?.resultType).toBe("input_required")
    const second = await round(apartBalancer.url, {
      inputResponses: { step1: accept({ name: "Ada" }) },
      requestState: first.result?.requestState
    })
    expect(second.error).toMatchObject({ code: -32602, message: expect.stringContaining("Invalid requestState") })
  })

  it("a token changed by the client, or sent with another request, is refused", async () => {
    const first = await round(sharedBalancer.url, {})
    const tampered = await round(sharedBalancer.url, {
      inputResponses: { step1: accept({ name: "Ada" }) },
      requestState: `${first.result?.requestState}-TAMPERED`
    })
    expect(tampered.error?.code).toBe(-32602)
    const foreign = await round(sharedBalancer.url, {
      arguments: { other: true },
      inputResponses: { step1: accept({ name: "Ada" }) },
      requestState: first.result?.requestState
    })
    expect(foreign.error).toMatchObject({ code: -32602, message: expect.stringContaining("not this request") })
  })
})
