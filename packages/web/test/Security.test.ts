/**
 * Who may use the page: a request without the launch token, or with a wrong one, gets 401; one
 * from a foreign `Origin` or for a foreign `Host` gets 403, and runs nothing; the printed address
 * trades its token for a cookie; a body that does not decode gets 400.
 */

import { mkdtempSync } from "node:fs"
import { request } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { type Started, start } from "./support/page.js"

let page: Started
beforeAll(async () => {
  page = await start({ servers: [], stateDir: mkdtempSync(join(tmpdir(), "web-security-")) })
})
afterAll(() => page.stop())

interface Answer {
  readonly status: number
  readonly headers: Record<string, string | string[] | undefined>
  readonly body: string
}

/** A request with exactly these headers (Node's fetch will not send a foreign `Host`). */
const send = (path: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}) =>
  new Promise<Answer>((resolve, reject) => {
    const outgoing = request(
      {
        host: "127.0.0.1",
        port: page.port,
        path,
        method: options.method ?? "GET",
        headers: { host: `127.0.0.1:${page.port}`, ...options.headers }
      },
      (response) => {
        let body = ""
        response.setEncoding("utf8")
        response.on("data", (chunk: string) => {
          body += chunk
        })
        response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }))
      }
    )
    outgoing.on("error", reject)
    outgoing.end(options.body)
  })

const bearer = () => ({ authorization: `Bearer ${page.token}` })

describe("the launch token", () => {
  it("is required on every API route and the page", async () => {
    for (const path of ["/api/state", "/api/events", "/api/servers/x/lists", "/", "/index.html"]) {
      const answer = await send(path)
      expect(answer.status, path).toBe(401)
    }
    const post = await send("/api/servers", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}"
    })
    expect(post.status).toBe(401)
  })

  it("refuses a wrong token, of any length", async () => {
    // The last character changed (to one it is not), and one more.
    const changed = `${page.token.slice(0, -1)}${page.token.endsWith("A") ? "B" : "A"}`
    for (const token of ["x", changed, `${page.token}A`]) {
      const answer = await send("/api/state", { headers: { authorization: `Bearer ${token}` } })
      expect(answer.status).toBe(401)
    }
    const viaCookie = await send("/api/state", { headers: { cookie: `effect_mcp_ui_${page.port}=nope` } })
    expect(viaCookie.status).toBe(401)
  })

  it("lets the right token in, as a bearer (any case) or as the cookie the printed address sets", async () => {
    expect((await send("/api/state", { headers: bearer() })).status).toBe(200)
    expect((await send("/api/state", { headers: { authorization: `bearer ${page.token}` } })).status).toBe(200)
    const opened = await send(`/?token=${encodeURIComponent(page.token)}`)
    expect(opened.status).toBe(303)
    expect(opened.headers.location).toBe("/")
    const cookie = String(opened.headers["set-cookie"])
    expect(cookie).toContain(`effect_mcp_ui_${page.port}=${page.token}`)
    expect(cookie).toMatch(/HttpOnly/i)
    expect(cookie).toMatch(/SameSite=Strict/i)
    const state = await send("/api/state", { headers: { cookie: `effect_mcp_ui_${page.port}=${page.token}` } })
    expect(state.status).toBe(200)
    expect(JSON.parse(state.body)).toMatchObject({ servers: [], chat: { available: false } })
  })

  it("refuses a wrong token in the printed address", async () => {
    const opened = await send("/?token=wrong")
    expect(opened.status).toBe(401)
    expect(opened.headers["set-cookie"]).toBeUndefined()
  })
})

describe("where a request comes from", () => {
  it("refuses a foreign Origin with 403, even with the token, and runs nothing", async () => {
    const answer = await send("/api/servers", {
      method: "POST",
      headers: { ...bearer(), origin: "http://evil.example", "content-type": "application/json" },
      body: JSON.stringify({
        name: "evil",
        target: { _tag: "Stdio", command: "touch", args: ["/tmp/pwned"], env: {} },
        confirm: true
      })
    })
    expect(answer.status).toBe(403)
    const state = JSON.parse((await send("/api/state", { headers: bearer() })).body)
    expect(state.servers).toEqual([])
  })

  it("accepts the page's own Origin", async () => {
    const answer = await send("/api/state", { headers: { ...bearer(), origin: `http://127.0.0.1:${page.port}` } })
    expect(answer.status).toBe(200)
    const localhost = await send("/api/state", {
      headers: { ...bearer(), origin: `http://localhost:${page.port}`, host: `localhost:${page.port}` }
    })
    expect(localhost.status).toBe(200)
  })

  it("refuses a foreign Host (DNS rebinding) with 403", async () => {
    for (const host of ["evil.example", `evil.example:${page.port}`, `127.0.0.1:${page.port + 1}`]) {
      const answer = await send("/api/state", { headers: { ...bearer(), host } })
      expect(answer.status, host).toBe(403)
    }
  })

  it("refuses a cross-site request", async () => {
    const answer = await send("/api/state", { headers: { ...bearer(), "sec-fetch-site": "cross-site" } })
    expect(answer.status).toBe(403)
  })
})

describe("the page's answers", () => {
  it("carry the page's Content-Security-Policy and no-sniff", async () => {
    const answer = await send("/api/state", { headers: bearer() })
    const policy = String(answer.headers["content-security-policy"])
    expect(policy).toContain("default-src 'self'")
    expect(policy).toContain("script-src 'self'")
    expect(policy).not.toContain("unsafe-inline")
    expect(policy).toContain("frame-ancestors 'none'")
    expect(answer.headers["x-content-type-options"]).toBe("nosniff")
  })

  it("refuse a body that does not decode with 400 and the reason", async () => {
    const answer = await send("/api/servers", {
      method: "POST",
      headers: { ...bearer(), "content-type": "application/json" },
      body: JSON.stringify({
        name: "bad name!",
        target: { _tag: "Stdio", command: "x", args: [], env: {} },
        confirm: true
      })
    })
    expect(answer.status).toBe(400)
    expect(JSON.parse(answer.body).error).toMatch(/name/)
  })

  it("show a stdio server's command line before running it, and run nothing without confirm", async () => {
    const answer = await send("/api/servers", {
      method: "POST",
      headers: { ...bearer(), "content-type": "application/json" },
      body: JSON.stringify({
        name: "shown",
        target: { _tag: "Stdio", command: "node", args: ["server.js", "two words"], env: { API_KEY: "s3cr3t-value" } },
        confirm: false
      })
    })
    expect(answer.status).toBe(200)
    expect(JSON.parse(answer.body)).toEqual({ added: false, preview: "API_KEY=… node server.js 'two words'" })
    const state = JSON.parse((await send("/api/state", { headers: bearer() })).body)
    expect(state.servers).toEqual([])
  })

  it("answer an unknown route with 404", async () => {
    expect((await send("/api/nothing", { headers: bearer() })).status).toBe(404)
  })
})

describe("stopping", () => {
  it("ends the event streams a page holds open, so the server stops (the command's Ctrl-C with the page open)", async () => {
    const other = await start({ servers: [], stateDir: mkdtempSync(join(tmpdir(), "web-stop-")) })
    const response = await fetch(`${other.origin}/api/events`, { headers: { authorization: `Bearer ${other.token}` } })
    const reader = response.body?.getReader()
    expect((await reader?.read())?.done).toBe(false)
    const stopped = await Promise.race([
      other.stop().then(() => "stopped"),
      new Promise<string>((resolve) => setTimeout(() => resolve("still running after 20 s"), 20_000))
    ])
    expect(stopped).toBe("stopped")
    // The stream ended with the server.
    let ended = false
    for (let reads = 0; reads < 10 && !ended; reads++) ended = (await reader?.read())?.done ?? true
    expect(ended).toBe(true)
  }, 60_000)
})
