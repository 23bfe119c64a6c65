/**
 * The caller's `_meta` through the gateway, with the SDK v1 fault server (`meta` answers with the
 * `_meta` it was sent): the W3C trace context is continued into the server (same trace, a span of
 * the gateway's), custom keys reach it as given, and what is the gateway's own (progress tokens,
 * the protocol's reserved keys, a view's address) is not passed on.
 */
import { expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { connect, faultServer, gatewayHost, textOf } from "./support/gateway.js"

const TRACE = "0af7651916cd43dd8448eb211c80319c"
const PARENT = "b7ad6b7169203331"

layer(gatewayHost({ servers: [{ name: "fixture", target: faultServer }] }), {
  excludeTestServices: true,
  timeout: "60 seconds"
})("McpGateway, the caller's _meta", (it) => {
  for (const protocolVersion of ["2025-11-25", "2026-07-28"] as const) {
    it.scoped(`${protocolVersion}: trace context and custom keys reach the server; the gateway's own do not`, () =>
      Effect.gen(function* () {
        const { client } = yield* connect({ protocolVersion })
        const result = yield* client.request("tools/call", {
          name: "fixture__meta",
          arguments: {},
          _meta: {
            traceparent: `00-${TRACE}-${PARENT}-01`,
            tracestate: "vendor=opaque",
            "com.example/tenant": "acme",
            "com.example/nested": { depth: [1, 2] },
            "io.modelcontextprotocol/not-for-the-server": true,
            "effect-mcp/view": "ui://fixture/none"
          }
        })
        const seen: Record<string, unknown> = JSON.parse(textOf(result))
        expect(seen["com.example/tenant"]).toBe("acme")
        expect(seen["com.example/nested"]).toStrictEqual({ depth: [1, 2] })
        // The server's request is the gateway's: a span in the caller's trace, under the caller's span.
        expect(seen.traceparent).toMatch(new RegExp(`^00-${TRACE}-[0-9a-f]{16}-01$`))
        expect(seen.traceparent).not.toContain(PARENT)
        expect(seen.tracestate).toBe("vendor=opaque")
        expect(seen).not.toHaveProperty(["io.modelcontextprotocol/not-for-the-server"])
        expect(seen).not.toHaveProperty(["effect-mcp/view"])
      })
    )
  }

  it.scoped("a call without _meta sends the server none of the caller's, and no trace context", () =>
    Effect.gen(function* () {
      const { client } = yield* connect()
      const seen: Record<string, unknown> = JSON.parse(textOf(yield* client.callTool("fixture__meta", {})))
      expect(seen).not.toHaveProperty("traceparent")
      expect(Object.keys(seen).filter((key) => key.startsWith("com.example/"))).toStrictEqual([])
    })
  )

  it.scoped("the caller's progress token is still the gateway's to relay: progress comes under it", () =>
    Effect.gen(function* () {
      const { client } = yield* connect()
      const reports: Array<number> = []
      const seen: Record<string, unknown> = JSON.parse(
        textOf(
          yield* client.callTool(
            "fixture__meta",
            {},
            { onProgress: (progress) => Effect.sync(() => void reports.push(progress.progress)) }
          )
        )
      )
      // The server sees the host's own token (the call asked for progress), not the caller's id.
      expect(seen.progressToken).toBeDefined()
    })
  )
})
