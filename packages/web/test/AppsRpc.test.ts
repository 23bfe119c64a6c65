/**
 * MCP Apps without a browser: the view's CSP built from its declared domains (the extension's
 * default when none, never looser, what is not a source left out), and the host's handling of a
 * view's messages through `POST /api/apps/rpc` against two fixture servers whose views are written
 * with the extension's `App`: a call to its own server's app tool answered, a call to another
 * server's tool or to a model-only tool refused with a JSON-RPC error, a malformed message refused,
 * every message in the server's trace marked as the view's; the sandbox proxy on its own origin.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import type * as Api from "../src/Api.js"
import { sources, viewPolicy, withReporter } from "../src/internal/sandbox.js"
import { appsServers } from "./support/apps.js"
import { type Events, is, open } from "./support/events.js"
import { type Started, start } from "./support/page.js"

const directives = (policy: string) =>
  new Map(
    policy.split(";").map((part) => {
      const [name = "", ...values] = part.trim().split(/\s+/)
      return [name, values] as const
    })
  )

describe("the view's CSP", () => {
  it("is the extension's restrictive default without declared domains", () => {
    const policy = directives(viewPolicy(undefined))
    expect(policy.get("default-src")).toEqual(["'none'"])
    expect(policy.get("script-src")).toEqual(["'self'", "'unsafe-inline'"])
    expect(policy.get("style-src")).toEqual(["'self'", "'unsafe-inline'"])
    expect(policy.get("img-src")).toEqual(["'self'", "data:"])
    expect(policy.get("media-src")).toEqual(["'self'", "data:"])
    expect(policy.get("connect-src")).toEqual(["'none'"])
    expect(policy.get("frame-src")).toEqual(["'none'"])
    expect(policy.get("base-uri")).toEqual(["'self'"])
    expect(policy.get("object-src")).toEqual(["'none'"])
    expect(viewPolicy({})).toBe(viewPolicy(undefined))
  })

  it("widens each directive by the domains declared for it only", () => {
    const policy = directives(
      viewPolicy({
        connectDomains: ["https://api.example.com", "wss://live.example.com"],
        resourceDomains: ["https://*.cdn.example"],
        frameDomains: ["https://www.youtube.com"],
        baseUriDomains: ["https://base.example"]
      })
    )
    expect(policy.get("connect-src")).toEqual(["https://api.example.com", "wss://live.example.com"])
    for (const name of ["script-src", "style-src", "img-src", "media-src", "font-src"])
      expect(policy.get(name), name).toContain("https://*.cdn.example")
    expect(policy.get("script-src")).not.toContain("https://api.example.com")
    expect(policy.get("frame-src")).toEqual(["https://www.youtube.com"])
    expect(policy.get("base-uri")).toEqual(["https://base.example"])
    expect(policy.get("default-src")).toEqual(["'none'"])
  })

  it("leaves out what is not a source: keywords, other schemes, wildcards, injected directives", () => {
    const bad = [
      "'unsafe-eval'",
      "*",
      "data:",
      "blob:",
      "https:",
      "https://ok.example; script-src *",
      "https://a.example https://b.example",
      "javascript:alert(1)",
      "'self'",
      ""
    ]
    expect(sources(bad)).toEqual([])
    const policy = viewPolicy({ connectDomains: bad, resourceDomains: bad, frameDomains: bad, baseUriDomains: bad })
    expect(policy).toBe(viewPolicy(undefined))
    expect(
      sources(["https://ok.example", "http://127.0.0.1:8080", "api.example.com", "https://*.x.example/path/"])
    ).toEqual(["https://ok.example", "http://127.0.0.1:8080", "api.example.com", "https://*.x.example/path/"])
  })

  it("reports violations from the first script of the view, after its doctype", () => {
    const html = withReporter("<!doctype html><html><body>x</body></html>")
    expect(html.startsWith("<!doctype html><script>")).toBe(true)
    expect(withReporter("<p>x</p>").startsWith("<script>")).toBe(true)
  })
})

let page: Started
let events: Events

beforeAll(async () => {
  page = await start({
    apps: true,
    servers: appsServers(),
    stateDir: mkdtempSync(join(tmpdir(), "web-apps-rpc-"))
  })
  events = await open(page.origin, page.token)
  await events.waitFor(
    is("Servers", (event) =>
      ["alpha", "beta"].every((name) => event.servers.some((s) => s.name === name && s.status === "ready"))
    )
  )
}, 60_000)
afterAll(async () => {
  events?.close()
  await page?.stop()
})

const post = async (path: string, body: unknown) => {
  const response = await fetch(`${page.origin}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${page.token}`, "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  return { status: response.status, body: (await response.json()) as unknown }
}

const openView = async () => {
  const opened = await post("/api/apps/view", { server: "alpha", uri: "ui://alpha/main.html", tool: "show" })
  expect(opened.status).toBe(200)
  return opened.body as Api.AppOpened
}

const rpc = async (view: string, message: unknown) => {
  const answer = await post("/api/apps/rpc", { view, message })
  expect(answer.status).toBe(200)
  return answer.body as Api.AppRpcAnswer
}

const responseOf = (answer: Api.AppRpcAnswer) => {
  if (answer._tag !== "Response") throw new Error(`expected a response, got ${answer._tag}`)
  return answer.response as { id: number; result?: unknown; error?: { code: number; message: string } }
}

describe("a view's messages", () => {
  it("has its HTML read from its own server, with its declared domains and the policy it runs under", async () => {
    const opened = await openView()
    expect(opened.html).toContain("alpha view")
    expect(opened.csp).toEqual({ connectDomains: ["https://declared.example"] })
    expect(opened.prefersBorder).toBe(true)
    expect(opened.policy).toContain("connect-src https://declared.example")
    const state = (await (
      await fetch(`${page.origin}/api/state`, { headers: { authorization: `Bearer ${page.token}` } })
    ).json()) as Api.State
    expect(state.sandbox).toBe(page.sandboxOrigin)
    expect(state.sandbox).not.toBe(page.origin)
  })

  it("calls its own server's app tool", async () => {
    const { view } = await openView()
    const answer = responseOf(
      await rpc(view, {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "echo", arguments: { text: "hi" } }
      })
    )
    expect(answer.id).toBe(1)
    expect(answer.result).toMatchObject({ content: [{ type: "text", text: "echo: hi" }] })
  })

  it("is refused another server's tool and a model-only tool, with JSON-RPC errors", async () => {
    const { view } = await openView()
    const other = responseOf(
      await rpc(view, { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "beta-only" } })
    )
    expect(other.error?.code).toBe(-32602)
    expect(other.error?.message).toContain("own server")
    const secret = responseOf(
      await rpc(view, { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "secret" } })
    )
    expect(secret.error?.code).toBe(-32000)
    expect(secret.error?.message).toContain("visibility")
    const download = responseOf(
      await rpc(view, { jsonrpc: "2.0", id: 4, method: "ui/download-file", params: { contents: [] } })
    )
    expect(download.error?.code).toBe(-32601)
    const unknown = responseOf(await rpc(view, { jsonrpc: "2.0", id: 5, method: "sampling/createMessage", params: {} }))
    expect(unknown.error?.code).toBe(-32601)
    const malformed = responseOf(await rpc(view, { jsonrpc: "2.0", id: 6, method: "tools/call", params: { name: 7 } }))
    expect(malformed.error?.code).toBe(-32602)
    const link = responseOf(
      await rpc(view, { jsonrpc: "2.0", id: 7, method: "ui/open-link", params: { url: "javascript:alert(1)" } })
    )
    expect(link.error?.code).toBe(-32000)
  })

  it("leaves the handshake to the page and records every message in the server's trace as the view's", async () => {
    const { view } = await openView()
    const init = {
      jsonrpc: "2.0",
      id: 9,
      method: "ui/initialize",
      params: { appInfo: { name: "v", version: "1" }, appCapabilities: {}, protocolVersion: "2026-01-26" }
    }
    expect((await rpc(view, init))._tag).toBe("Page")
    await rpc(view, { jsonrpc: "2.0", id: 10, method: "tools/call", params: { name: "secret" } })
    const trace = (await (
      await fetch(`${page.origin}/api/servers/alpha/trace`, { headers: { authorization: `Bearer ${page.token}` } })
    ).json()) as ReadonlyArray<Api.TraceEntry>
    const mine = trace.filter((entry) => entry.view === view)
    expect(mine.map((entry) => [entry.dir, (entry.message as { method?: string }).method ?? "response"])).toEqual([
      ["receive", "ui/initialize"],
      ["receive", "tools/call"],
      ["send", "response"]
    ])
    expect(mine[2]?.latency).toBeTypeOf("number")
    // The model-only tool was never called on the server.
    expect(
      trace.some((entry) => {
        const message = entry.message as { method?: string; params?: { name?: string } }
        return entry.view === undefined && message.method === "tools/call" && message.params?.name === "secret"
      })
    ).toBe(false)
    const recording = await (
      await fetch(`${page.origin}/api/servers/alpha/recording`, { headers: { authorization: `Bearer ${page.token}` } })
    ).text()
    expect(recording).not.toContain('"method":"ui/initialize"')
  })

  it("pings, reads its own server's resources and logs to the page", async () => {
    const { view } = await openView()
    expect(responseOf(await rpc(view, { jsonrpc: "2.0", id: 11, method: "ping" })).result).toEqual({})
    const read = responseOf(
      await rpc(view, { jsonrpc: "2.0", id: 12, method: "resources/read", params: { uri: "ui://alpha/main.html" } })
    )
    expect(JSON.stringify(read.result)).toContain("alpha view")
    const logged = await rpc(view, {
      jsonrpc: "2.0",
      method: "notifications/message",
      params: { level: "warning", data: "from the view" }
    })
    expect(logged._tag).toBe("Done")
    const log = await events.waitFor(
      is("Log", (event) => event.data === "from the view"),
      5_000
    )
    expect(log).toMatchObject({ server: "alpha", level: "warning" })
  })

  it("is refused for a view the host did not open", async () => {
    const answer = await post("/api/apps/rpc", { view: "nope", message: { jsonrpc: "2.0", id: 1, method: "ping" } })
    expect(answer.status).toBe(404)
  })

  it("serves the proxy on its own origin, framed by the page only", async () => {
    const origin = page.sandboxOrigin ?? ""
    const framed = await fetch(`${origin}/proxy?host=${encodeURIComponent(page.origin)}`)
    expect(framed.status).toBe(200)
    expect(framed.headers.get("content-security-policy")).toContain(`frame-ancestors ${page.origin}`)
    expect((await fetch(`${origin}/proxy?host=${encodeURIComponent("http://evil.example")}`)).status).toBe(403)
    const posted = await fetch(`${origin}/view`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "http://evil.example" },
      body: "html=x&csp=%7B%7D"
    })
    expect(posted.status).toBe(403)
    const fromProxy = await fetch(`${origin}/view`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin },
      body: `html=${encodeURIComponent("<p>hi</p>")}&csp=${encodeURIComponent(JSON.stringify({ connectDomains: ["https://a.example", "*"] }))}`
    })
    expect(fromProxy.status).toBe(200)
    const policy = fromProxy.headers.get("content-security-policy") ?? ""
    expect(policy).toContain("connect-src https://a.example;")
    expect(policy).toContain("sandbox allow-scripts")
  })
})
