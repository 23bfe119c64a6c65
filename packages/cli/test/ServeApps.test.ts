/**
 * MCP Apps behind `effect-mcp serve` (the built binary, Streamable HTTP): two servers with views
 * (the SDK v2 + ext-apps fixture as `alpha` at 2025-11-25 and `beta` at 2026-07-28, both giving the
 * same view address `ui://view/view.html`), used by the official SDK v2 client declaring the
 * extension. It sees each server's view under its own rewritten address, reads each view's HTML
 * from the right server, and a view's call (by the bare name its server knows) reaches its own
 * server.
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventually, type Started, start } from "./support/cli.js"

const fixture = fileURLToPath(new URL("../../client/test/fixtures/sdk-v2-apps-server.mjs", import.meta.url))
const cwd = mkdtempSync(join(tmpdir(), "effect-mcp-serve-apps-"))
writeFileSync(
  join(cwd, ".mcp.json"),
  JSON.stringify({
    mcpServers: {
      alpha: { command: process.execPath, args: [fixture, "legacy", "view", "alpha's view"] },
      beta: { command: process.execPath, args: [fixture, "modern", "view", "beta's view"] }
    }
  })
)

let gateway: Started
let client: Client

beforeAll(async () => {
  gateway = start(["serve", "--config", join(cwd, ".mcp.json"), "--port", "0"], { cwd, timeoutMs: 600_000 })
  gateway.finished.catch(() => undefined)
  await eventually(() => /listening (http:\/\/\S+)/.test(gateway.stdout()), "the gateway to listen", 60_000)
  const url = new URL(/listening (http:\/\/\S+)/.exec(gateway.stdout())?.[1] ?? "")
  client = new Client(
    { name: "serve-apps", version: "1.0.0" },
    {
      capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } } },
      versionNegotiation: { mode: { pin: "2026-07-28" } }
    }
  )
  await client.connect(new StreamableHTTPClientTransport(url))
}, 90_000)

afterAll(async () => {
  await client?.close().catch(() => undefined)
  gateway?.child.kill("SIGKILL")
})

const viewOf = (
  tools: ReadonlyArray<{ name: string; _meta?: { readonly [key: string]: unknown } | undefined }>,
  name: string
) => {
  const ui = tools.find((tool) => tool.name === name)?._meta?.ui
  return typeof ui === "object" && ui !== null && "resourceUri" in ui ? ui.resourceUri : undefined
}

const htmlOf = (contents: ReadonlyArray<{ uri: string } & ({ text: string } | { blob: string })>) =>
  contents
    .map((content) => ("text" in content ? content.text : Buffer.from(content.blob, "base64").toString()))
    .join("")

describe("MCP Apps behind effect-mcp serve", () => {
  it("gives each server's view its own address, though both servers use the same one", async () => {
    const { tools } = await client.listTools()
    expect(viewOf(tools, "alpha__weather")).toBe("ui://alpha/view/view.html")
    expect(viewOf(tools, "beta__weather")).toBe("ui://beta/view/view.html")
    const { resources } = await client.listResources()
    expect(
      resources
        .map((resource) => resource.uri)
        .filter((uri) => uri.startsWith("ui://"))
        .sort()
    ).toEqual(["ui://alpha/view/view.html", "ui://beta/view/view.html"])
  })

  it("reads each view's HTML from its own server", async () => {
    const alpha = await client.readResource({ uri: "ui://alpha/view/view.html" })
    const beta = await client.readResource({ uri: "ui://beta/view/view.html" })
    expect(alpha.contents[0]?.uri).toBe("ui://alpha/view/view.html")
    expect(htmlOf(alpha.contents)).toContain("alpha's view")
    expect(htmlOf(beta.contents)).toContain("beta's view")
    expect(alpha.contents[0]?.mimeType).toBe("text/html;profile=mcp-app")
  })

  it("routes a view's call by its bare name to the view's own server", async () => {
    const result = await client.callTool({
      name: "ui-capability",
      arguments: {},
      _meta: { "effect-mcp/view": "ui://alpha/view/view.html" }
    })
    // alpha (2025-11-25) was told of the extension at initialize, by the gateway's host.
    expect(JSON.stringify(result.content)).toContain("text/html;profile=mcp-app")
  })
})
