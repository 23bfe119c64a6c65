/**
 * CORS on the gateway's HTTP endpoint (over Node's listener, as a browser meets it): none by
 * default; an origin configured in `corsOrigins` gets its preflight answered (no token asked of it)
 * and its answers readable, `Mcp-Session-Id` and `MCP-Protocol-Version` exposed; any other origin
 * gets no CORS headers.
 */
import { expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { NodeStreamableHttpServer } from "../src/index.js"
import { gatewayHost } from "./support/gateway.js"

const APP = "https://app.example"
const TOKEN = "s3cret"

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "browser", version: "1" } }
}

/** A gateway listening on a free loopback port, with `corsOrigins` when given: its endpoint. */
const endpoint = (corsOrigins?: ReadonlyArray<string>) =>
  Effect.map(
    NodeStreamableHttpServer.listen({
      port: 0,
      token: TOKEN,
      ...(corsOrigins === undefined ? {} : { corsOrigins })
    }),
    ({ port }) => `http://127.0.0.1:${port}/mcp`
  )

const preflight = (url: string, origin: string) =>
  Effect.promise(() =>
    fetch(url, {
      method: "OPTIONS",
      headers: {
        origin,
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type, mcp-protocol-version"
      }
    })
  )

layer(gatewayHost({ servers: [] }))("the gateway's CORS", (it) => {
  it.scoped("a configured origin's preflight is answered, and its answers expose the session headers", () =>
    Effect.gen(function* () {
      const url = yield* endpoint([APP])
      const answered = yield* preflight(url, APP)
      expect(answered.status).toBe(204)
      expect(answered.headers.get("access-control-allow-origin")).toBe(APP)
      expect(answered.headers.get("access-control-allow-methods")).toMatch(/POST/)
      const allowedHeaders = (answered.headers.get("access-control-allow-headers") ?? "").toLowerCase()
      for (const header of ["authorization", "content-type", "mcp-protocol-version", "mcp-session-id"]) {
        expect(allowedHeaders).toContain(header)
      }
      expect(answered.headers.get("vary")?.toLowerCase()).toContain("origin")
      const opened = yield* Effect.promise(() =>
        fetch(url, {
          method: "POST",
          headers: {
            origin: APP,
            authorization: `Bearer ${TOKEN}`,
            "content-type": "application/json",
            accept: "application/json, text/event-stream"
          },
          body: JSON.stringify(initialize)
        })
      )
      expect(opened.status).toBe(200)
      expect(opened.headers.get("access-control-allow-origin")).toBe(APP)
      const exposed = (opened.headers.get("access-control-expose-headers") ?? "").toLowerCase()
      expect(exposed).toContain("mcp-session-id")
      expect(exposed).toContain("mcp-protocol-version")
      // A refusal is readable by the page too.
      const refused = yield* Effect.promise(() =>
        fetch(url, { method: "POST", headers: { origin: APP, "content-type": "application/json" }, body: "{}" })
      )
      expect(refused.status).toBe(401)
      expect(refused.headers.get("access-control-allow-origin")).toBe(APP)
    })
  )

  it.scoped("by default no origin is allowed: a preflight gets no CORS headers, a foreign one is refused", () =>
    Effect.gen(function* () {
      const url = yield* endpoint()
      const loopback = yield* preflight(url, "http://localhost:5173")
      expect(loopback.headers.get("access-control-allow-origin")).toBeNull()
      const foreign = yield* preflight(url, APP)
      expect(foreign.status).toBe(403)
      expect(foreign.headers.get("access-control-allow-origin")).toBeNull()
      const other = yield* preflight(yield* endpoint([APP]), "https://other.example")
      expect(other.status).toBe(403)
      expect(other.headers.get("access-control-allow-origin")).toBeNull()
    })
  )
})
