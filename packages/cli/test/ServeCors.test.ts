/**
 * `effect-mcp serve --port --cors-origin` on the built binary: the origin's browser preflight is
 * answered (no CORS without the option, where it was 405), the session headers exposed.
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { eventually, everything, type Started, start } from "./support/cli.js"

const cwd = mkdtempSync(join(tmpdir(), "effect-mcp-serve-cors-"))
const config = join(cwd, ".mcp.json")
writeFileSync(
  config,
  JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everything, "stdio"] } } })
)
const APP = "https://app.example"

let gateway: Started | undefined

afterEach(() => {
  gateway?.child.kill("SIGKILL")
})

const serve = async (args: ReadonlyArray<string>) => {
  const started = start(["serve", "--config", config, "--port", "0", ...args], { cwd, timeoutMs: 120_000 })
  started.finished.catch(() => undefined)
  gateway = started
  await eventually(() => /listening (http:\/\/\S+)/.test(started.stdout()), "the gateway to listen")
  return /listening (http:\/\/\S+)/.exec(started.stdout())?.[1] ?? ""
}

const preflight = (url: string) =>
  fetch(url, {
    method: "OPTIONS",
    headers: { origin: APP, "access-control-request-method": "POST", "access-control-request-headers": "content-type" }
  })

describe("effect-mcp serve --cors-origin", () => {
  it("answers the origin's preflight and exposes the session headers", async () => {
    const url = await serve(["--cors-origin", APP])
    const answered = await preflight(url)
    expect(answered.status).toBe(204)
    expect(answered.headers.get("access-control-allow-origin")).toBe(APP)
    const opened = await fetch(url, {
      method: "POST",
      headers: { origin: APP, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "page", version: "1" } }
      })
    })
    expect(opened.status).toBe(200)
    expect(opened.headers.get("access-control-expose-headers")).toContain("mcp-session-id")
  }, 60_000)

  it("allows no origin without it", async () => {
    const url = await serve([])
    const refused = await preflight(url)
    expect(refused.status).toBe(403)
    expect(refused.headers.get("access-control-allow-origin")).toBeNull()
  }, 60_000)
})
