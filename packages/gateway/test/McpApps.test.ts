/**
 * MCP Apps through the gateway, used by the official SDK v2 client over Streamable HTTP and over
 * stdio, at 2025-11-25 and at 2026-07-28. Behind it (`fixtures/appsGateway.ts`) two instances of the
 * SDK v2 + ext-apps fixture: `alpha` (2025-11-25) and `beta` (2026-07-28), the host declaring the
 * extension to both. A client that declares the extension sees every view address rewritten to
 * name its server (`ui://alpha/alpha/view.html`), reads each view's HTML from its own server, and a
 * view's call by the bare name its server knows reaches that server; a client that does not
 * declare it sees no views. The gateway declares the extension since its servers have it.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { McpGateway } from "../src/index.js"

const fixture = fileURLToPath(new URL("./fixtures/appsGateway.ts", import.meta.url))
const cwd = fileURLToPath(new URL("..", import.meta.url))
const gatewayArgs = (...args: ReadonlyArray<string>) => [
  "--conditions",
  "@effect-mcp/source",
  "--import",
  "tsx",
  fixture,
  ...args
]

const EXTENSION = "io.modelcontextprotocol/ui"
const MIME_TYPE = "text/html;profile=mcp-app"
const ALPHA_VIEW = "ui://alpha/alpha/view.html"
const BETA_VIEW = "ui://beta/beta/view.html"

type Version = "2025-11-25" | "2026-07-28"
type Over = "stdio" | "http"

let http: ChildProcess | undefined
let url: URL
const clients: Array<Client> = []

beforeAll(async () => {
  const child = spawn(process.execPath, gatewayArgs("http"), { cwd, stdio: ["ignore", "pipe", "inherit"] })
  http = child
  url = await new Promise<URL>((resolve, reject) => {
    let out = ""
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      const listening = /listening (http:\/\/\S+)/.exec(out)?.[1]
      if (listening !== undefined) resolve(new URL(listening))
    })
    child.once("exit", (code) => reject(new Error(`the gateway exited (${code}) before it listened`)))
  })
}, 60_000)

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => undefined)))
  http?.kill("SIGKILL")
})

/** An SDK v2 client of the gateway at `version`, declaring MCP Apps when `views`. */
const connect = async (over: Over, version: Version, views: boolean) => {
  const client = new Client(
    { name: `apps-${over}-${version}`, version: "1.0.0" },
    {
      capabilities: views ? { extensions: { [EXTENSION]: { mimeTypes: [MIME_TYPE] } } } : {},
      // The SDK pins a 2026-07-28 revision; 2025-11-25 is its legacy mode.
      versionNegotiation: { mode: version === "2026-07-28" ? { pin: version } : "legacy" }
    }
  )
  clients.push(client)
  await client.connect(
    over === "http"
      ? new StreamableHTTPClientTransport(url)
      : new StdioClientTransport({ command: process.execPath, args: gatewayArgs("stdio"), cwd, stderr: "ignore" })
  )
  return client
}

const isObject = (value: unknown): value is { readonly [key: string]: unknown } =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** A listed tool's `_meta.ui.resourceUri` and flat `ui/resourceUri`. */
const viewOf = (tool: { readonly _meta?: { readonly [key: string]: unknown } | undefined } | undefined) => {
  const ui = tool?._meta?.ui
  return { nested: isObject(ui) ? ui.resourceUri : undefined, flat: tool?._meta?.["ui/resourceUri"] }
}

const textOf = (result: { readonly content?: unknown }) =>
  Array.isArray(result.content)
    ? result.content.map((block: unknown) => (isObject(block) ? String(block.text) : "")).join("\n")
    : ""

const fromView = (view: string) => ({ [McpGateway.VIEW_META_KEY]: view })

const cases: ReadonlyArray<readonly [Over, Version]> = [
  ["http", "2025-11-25"],
  ["http", "2026-07-28"],
  ["stdio", "2025-11-25"],
  ["stdio", "2026-07-28"]
]

for (const [over, version] of cases) {
  describe(`MCP Apps through the gateway over ${over} at ${version}`, () => {
    let client: Client
    let plain: Client
    beforeAll(async () => {
      ;[client, plain] = await Promise.all([connect(over, version, true), connect(over, version, false)])
    }, 60_000)

    it("declares the extension (its servers have it), to a client that does not declare it too", () => {
      expect(client.getNegotiatedProtocolVersion()).toBe(version)
      expect(client.getServerCapabilities()?.extensions?.[EXTENSION]).toEqual({})
      expect(plain.getServerCapabilities()?.extensions?.[EXTENSION]).toEqual({})
    })

    it("lists every view address rewritten to name its server, both keys, the scheme kept", async () => {
      const { tools } = await client.listTools()
      const named = (name: string) => tools.find((tool) => tool.name === name)
      expect(viewOf(named("alpha__weather"))).toEqual({ nested: ALPHA_VIEW, flat: ALPHA_VIEW })
      expect(viewOf(named("beta__weather"))).toEqual({ nested: BETA_VIEW, flat: BETA_VIEW })
      // App only, and the older flat key alone.
      expect(viewOf(named("alpha__refresh")).nested).toBe(ALPHA_VIEW)
      expect(viewOf(named("beta__forecast"))).toEqual({ nested: undefined, flat: BETA_VIEW })
      const { resources } = await client.listResources()
      expect(resources.map((resource) => resource.uri).sort()).toEqual([ALPHA_VIEW, BETA_VIEW])
    })

    it("reads each view's HTML from its own server, under the address it was given", async () => {
      for (const [view, label] of [
        [ALPHA_VIEW, "alpha"],
        [BETA_VIEW, "beta"]
      ] as const) {
        const { contents } = await client.readResource({ uri: view })
        expect(contents).toHaveLength(1)
        expect(contents[0]?.uri).toBe(view)
        expect(contents[0]?.mimeType).toBe(MIME_TYPE)
        expect(contents[0] !== undefined && "text" in contents[0] ? contents[0].text : "").toContain(
          `<h1>${label} view</h1>`
        )
      }
      // The server's own address is none the gateway gave: it reaches no view.
      await expect(client.readResource({ uri: "ui://gamma/view.html" })).rejects.toThrow()
    })

    it("a view's call by its server's own name reaches that server; a view reads its own server only", async () => {
      // alpha (2025-11-25) answers with what the host declared to it at initialize; beta has none to read.
      const alpha = await client.callTool({ name: "ui-capability", _meta: fromView(ALPHA_VIEW) })
      expect(JSON.parse(textOf(alpha))).toEqual({ mimeTypes: [MIME_TYPE] })
      const beta = await client.callTool({ name: "ui-capability", _meta: fromView(BETA_VIEW) })
      expect(textOf(beta)).toBe("null")
      expect(textOf(await client.callTool({ name: "refresh", _meta: fromView(BETA_VIEW) }))).toBe("refreshed")
      // A bare name two servers' views may call, without saying which view: refused, naming both.
      await expect(client.callTool({ name: "refresh" })).rejects.toThrow(/alpha, beta/)
      // Another server's tool, or one for the model only, is refused to a view.
      await expect(client.callTool({ name: "beta__refresh", _meta: fromView(ALPHA_VIEW) })).rejects.toThrow(
        /not of alpha/
      )
      await expect(client.callTool({ name: "forecast", _meta: fromView(ALPHA_VIEW) })).rejects.toThrow(
        /visibility lacks app/
      )
      await expect(client.readResource({ uri: BETA_VIEW, _meta: fromView(ALPHA_VIEW) })).rejects.toThrow(
        /not a resource of alpha/
      )
    })

    it("a client that does not declare the extension sees no views; its calls still work", async () => {
      const { tools } = await plain.listTools()
      const names = tools.map((tool) => tool.name)
      expect(names).toEqual(expect.arrayContaining(["alpha__weather", "beta__weather", "alpha__forecast"]))
      // Only a view may call refresh: not listed for a client that shows none.
      expect(names).not.toContain("alpha__refresh")
      expect(names).not.toContain("beta__refresh")
      for (const tool of tools) expect(viewOf(tool)).toEqual({ nested: undefined, flat: undefined })
      const { resources } = await plain.listResources()
      expect(resources.filter((resource) => resource.uri.startsWith("ui://"))).toEqual([])
      expect(textOf(await plain.callTool({ name: "alpha__weather", arguments: { city: "Oslo" } }))).toBe(
        "sunny in Oslo"
      )
    })
  })
}
