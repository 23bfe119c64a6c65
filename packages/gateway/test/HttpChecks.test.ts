/**
 * What the gateway's HTTP core checks of a request, as Streamable HTTP asks: the bearer token's
 * scheme in any case (RFC 9110 §11.1), an unknown `MCP-Protocol-Version` in a session refused
 * with 400 (not taken for 2026-07-28), batches only where the revision has them (before 2025-06-18),
 * and a POST's `Content-Type` and `Accept`.
 */
import { request } from "node:http"
import { expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { NodeStreamableHttpServer } from "../src/index.js"
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

  it.scoped("a batch is refused at 2025-06-18 and after, and with initialize in it; 2025-03-26 has them", () =>
    Effect.gen(function* () {
      const handle = yield* HttpCore.make()
      const current = yield* sessionAt(handle, "2025-11-25")
      const batch = [ping(10), ping(11)]
      const refused = yield* postTo(handle, batch, { "mcp-session-id": current, "mcp-protocol-version": "2025-11-25" })
      expect(statusOf(refused)).toBe(400)
      const opening = yield* postTo(handle, [initializeAt("2025-03-26", 12)])
      expect(statusOf(opening)).toBe(400)
      const older = yield* sessionAt(handle, "2025-03-26")
      const answered = yield* postTo(handle, batch, { "mcp-session-id": older, "mcp-protocol-version": "2025-03-26" })
      expect(statusOf(answered)).toBe(200)
      // A 2025-03-26 client sends no revision header.
      const unnamed = yield* postTo(handle, [ping(13), ping(14)], { "mcp-session-id": older })
      expect(statusOf(unnamed)).toBe(200)
    })
  )

  it.scoped("a POST must be JSON (415) and accept JSON or an event stream (406)", () =>
    Effect.gen(function* () {
      const handle = yield* HttpCore.make()
      const send = (headers: Record<string, string | undefined>) =>
        Effect.map(
          handle({ method: "POST", url: "/mcp", headers, json: Effect.succeed(initializeAt("2025-11-25")) }),
          statusOf
        )
      const accept = "application/json, text/event-stream"
      expect(yield* send({ "content-type": "text/plain", accept })).toBe(415)
      expect(yield* send({ accept })).toBe(415)
      expect(yield* send({ "content-type": "application/json", accept: "text/html" })).toBe(406)
      expect(yield* send({ "content-type": "application/json" })).toBe(406)
      expect(yield* send({ "content-type": "application/json; charset=utf-8", accept })).toBe(200)
    })
  )

  it.scoped("a Host not allowed is 403; on loopback the listener allows only the loopback names", () =>
    Effect.gen(function* () {
      const handle = yield* HttpCore.make({ allowedHosts: ["gateway.internal"] })
      const statusFor = (host: string) => Effect.map(postTo(handle, initializeAt("2025-11-25"), { host }), statusOf)
      expect(yield* statusFor("gateway.internal:8080")).toBe(200)
      expect(yield* statusFor("GATEWAY.internal")).toBe(200)
      expect(yield* statusFor("evil.example:8080")).toBe(403)
      const { port } = yield* NodeStreamableHttpServer.listen({ port: 0 })
      const statusOver = (host: string) =>
        Effect.async<number>((resume) => {
          const body = JSON.stringify(initializeAt("2025-11-25"))
          const sent = request(
            {
              host: "127.0.0.1",
              port,
              path: "/mcp",
              method: "POST",
              headers: {
                host,
                "content-type": "application/json",
                accept: "application/json, text/event-stream",
                "content-length": Buffer.byteLength(body)
              }
            },
            (response) => {
              response.resume()
              resume(Effect.succeed(response.statusCode ?? 0))
            }
          )
          sent.end(body)
        })
      expect(yield* statusOver("evil.example")).toBe(403)
      expect(yield* statusOver(`localhost:${port}`)).toBe(200)
      expect(yield* statusOver(`127.0.0.1:${port}`)).toBe(200)
    })
  )
})
