/**
 * `--retry N` on the real binary against a loopback server whose first `tools/list` is refused
 * with 503: without it the command fails (exit 3); with it the listing is sent again and works.
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { run } from "./support/cli.js"

let server: Server
let url = ""
let listings = 0

beforeAll(async () => {
  server = createServer((request, response) => {
    let text = ""
    request.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8")
    })
    request.on("end", () => {
      const message = text === "" ? {} : (JSON.parse(text) as { id?: number; method?: string })
      const answer = (result: unknown) => {
        response.writeHead(200, { "content-type": "application/json" })
        response.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }))
      }
      if (request.method !== "POST") return void response.writeHead(405).end()
      if (message.method === "initialize")
        return answer({
          protocolVersion: "2025-11-25",
          capabilities: { tools: {} },
          serverInfo: { name: "flaky", version: "1" }
        })
      if (message.id === undefined) return void response.writeHead(202).end()
      if (message.method === "tools/list") {
        listings++
        // Every other listing is refused: the first of each command's two.
        if (listings % 2 === 1) return void response.writeHead(503, { "retry-after": "0" }).end("busy")
        return answer({ tools: [{ name: "steady", inputSchema: { type: "object" } }] })
      }
      answer({})
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

describe("--retry", () => {
  it("a 503 fails the command without it; with --retry the listing is sent again", async () => {
    const args = ["tools", "list", "--url", url, "--transport", "http", "--protocol-version", "2025-11-25"]
    const plain = await run(args)
    expect(plain.code, plain.stderr).toBe(3)
    expect(plain.stderr).toMatch(/503/)
    listings = 0
    const retried = await run([...args, "--retry", "2"])
    expect(retried.code, retried.stderr).toBe(0)
    expect(retried.stdout).toMatch(/steady/)
    expect(listings).toBe(2)
  })

  it('a config entry\'s "retry": N does the same for a server named from the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), "effect-mcp-retry-"))
    const config = join(dir, "mcp.json")
    writeFileSync(config, JSON.stringify({ mcpServers: { flaky: { type: "http", url, retry: 2 } } }))
    listings = 0
    const result = await run([
      "tools",
      "list",
      "--server",
      "flaky",
      "--config",
      config,
      "--protocol-version",
      "2025-11-25"
    ])
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toMatch(/steady/)
    expect(listings).toBe(2)
  })
})
