/**
 * What the gateway's HTTP core checks of a request, as Streamable HTTP asks: the bearer token's
 * scheme in any case (RFC 9110 §11.1), an unknown `MCP-Protocol-Version` in a session refused
 * with 400 (not taken for 2026-07-28), batches only where the revision has them (before 2025-06-18),
 * and a POST's `Content-Type` and `Accept`.
 */
import { expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as HttpCore from "../src/internal/httpCore.js"
import { postTo, statusOf } from "./support/core.js"
import { gatewayHost } from "./support/gateway.js"

const initializeAt = (protocolVersion: string, id = 1) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion, capabilities: {}, clientInfo: { name: "test", version: "1" } }
})

/** A new initialized session at `version`: its id. */
const sessionAt = (handle: HttpCore.Handler, version: string) =>
  Effect.gen(function* () {
    const opened = yield* postTo(handle, initializeAt(version))
    const id = opened.headers["mcp-session-id"] ?? ""
    expect(id).not.toBe("")
    yield* postTo(
      handle,
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { "mcp-session-id": id, "mcp-protocol-version": version }
    )
    return id
  })

const ping = (id: number) => ({ jsonrpc: "2.0", id, method: "ping" })

layer(gatewayHost({ servers: [] }))("the gateway's HTTP checks", (it) => {
  it.scoped("the bearer scheme is matched in any case; the token exactly", () =>
    Effect.gen(function* () {
      const handle = yield* HttpCore.make({ token: "s3cret" })
      const statusWith = (authorization: string) =>
        Effect.map(postTo(handle, initializeAt("2025-11-25"), { authorization }), statusOf)
      expect(yield* statusWith("bearer s3cret")).toBe(200)
      expect(yield* statusWith("BEARER s3cret")).toBe(200)
      expect(yield* statusWith("bearer S3CRET")).toBe(401)
      expect(yield* statusWith("bearers3cret")).toBe(401)
    })
  )

  it.scoped("an unknown MCP-Protocol-Version in a session is 400, not a 2026-07-28 request", () =>
    Effect.gen(function* () {
      const handle = yield* HttpCore.make()
      const session = yield* sessionAt(handle, "2025-11-25")
      const refused = yield* postTo(handle, ping(2), {
        "mcp-session-id": session,
        "mcp-protocol-version": "2099-01-01"
      })
      expect(statusOf(refused)).toBe(400)
      expect(refused._tag === "Json" && JSON.stringify(refused.body)).toContain("2099-01-01")
      const known = yield* postTo(handle, ping(3), { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" })
      expect(statusOf(known)).toBe(200)
    })
  )
})
