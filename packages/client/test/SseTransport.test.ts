/** The legacy HTTP+SSE transport against loopback servers written to misbehave. */

import { describe, expect, it } from "@effect/vitest"
import { HttpTransport, McpClient } from "@effect-mcp/client"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SseTransport from "../src/internal/transport/sseTransport.js"
import { closesWithAnswerUnanswered } from "./support/closing.js"
import { faultServer, initialized, rpc } from "./support/faultServer.js"
import { noFibersLeft } from "./support/fibers.js"
import { keepAliveHttpClient } from "./support/httpClient.js"

const build = (layer: Layer.Layer<never, unknown>) => Effect.flip(Layer.build(layer))

describe("SseTransport faults", () => {
  it.live("refuses an endpoint on another origin", () =>
    Effect.gen(function* () {
      const { url } = yield* faultServer((_, response) => {
        response.writeHead(200, { "content-type": "text/event-stream" })
        response.write("event: endpoint\ndata: http://evil.example.com/messages\n\n")
      })
      const error = yield* build(SseTransport.layer({ url }).pipe(Layer.provide(keepAliveHttpClient)))
      expect(String(error)).toContain("endpoint on another origin")
    }).pipe(Effect.scoped, noFibersLeft)
  )

  it.live("fails clearly when the server sends no endpoint, or is not an SSE server", () =>
    Effect.gen(function* () {
      const silent = yield* faultServer((_, response) => {
        response.writeHead(200, { "content-type": "text/event-stream" })
      })
      const error = yield* build(
        SseTransport.layer({ url: silent.url, endpointTimeout: "300 millis" }).pipe(Layer.provide(keepAliveHttpClient))
      )
      expect(String(error)).toContain("no endpoint event")
      const html = yield* faultServer((_, response) =>
        response.writeHead(200, { "content-type": "text/html" }).end("<html>")
      )
      const notSse = yield* build(SseTransport.layer({ url: html.url }).pipe(Layer.provide(keepAliveHttpClient)))
      expect(String(notSse)).toContain(
        "answered HTTP 200, an HTML page: this does not look like an MCP endpoint (is the path right? servers often use /mcp) (text/html)"
      )
    }).pipe(Effect.scoped, noFibersLeft)
  )

  it.live("auto falls back to SSE on 405, and a dropped stream fails the session's requests", () =>
    Effect.gen(function* () {
      let stream: import("node:http").ServerResponse | undefined
      const { url, received } = yield* faultServer((request, response) => {
        if (request.method === "GET") {
          stream = response
          response.writeHead(200, { "content-type": "text/event-stream" })
          response.write("event: endpoint\ndata: /messages?session=1\n\n")
          return
        }
        if (request.method === "POST" && request.headers.accept === "application/json, text/event-stream") {
          return response.writeHead(405).end()
        }
        const message = rpc(request)
        response.writeHead(202).end()
        if (message.method === "initialize")
          stream?.write(`event: message\ndata: ${JSON.stringify(initialized(message.id))}\n\n`)
        if (message.method === "tools/call") setTimeout(() => stream?.socket?.destroy(), 20)
      })
      const client = Context.get(
        yield* Layer.build(
          McpClient.layer({ name: "legacy" }).pipe(
            Layer.provide(HttpTransport.layer({ url })),
            Layer.provide(keepAliveHttpClient)
          )
        ),
        McpClient.McpClient
      )
      expect(client.serverInfo.name).toBe("fault")
      expect(
        received.some((request) => request.method === "POST" && String(request.headers.accept).includes("event-stream"))
      ).toBe(true)
      // Without the input check, which would list the tools first (this server never answers that).
      const error = yield* Effect.flip(client.callTool("x", undefined, { validateInput: false }))
      expect(error._tag).toBe("TransportError")
    }).pipe(Effect.scoped, noFibersLeft)
  )

  it.live(
    "closing is not held up by a POST the server never answers (a response to its request, sent as the session ends)",
    () =>
      Effect.gen(function* () {
        let stream: import("node:http").ServerResponse | undefined
        const { url, received } = yield* faultServer((request, response) => {
          if (request.method === "GET") {
            stream = response
            response.writeHead(200, { "content-type": "text/event-stream" })
            response.write("event: endpoint\ndata: /messages?session=1\n\n")
            return
          }
          const message = rpc(request)
          if (message.method === "initialize") {
            response.writeHead(202).end()
            stream?.write(`event: message\ndata: ${JSON.stringify(initialized(message.id))}\n\n`)
            return
          }
          if (message.method === "notifications/initialized") {
            response.writeHead(202).end()
            // Like the reference server: a request of its own, right after the handshake.
            stream?.write(
              `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: "roots-1", method: "roots/list" })}\n\n`
            )
            return
          }
          // Like the reference server for a session it has forgotten: the POST is never answered.
        })
        yield* closesWithAnswerUnanswered(
          McpClient.layer({ name: "legacy", protocolVersion: "2025-11-25" }).pipe(
            Layer.provide(SseTransport.layer({ url })),
            Layer.provide(keepAliveHttpClient)
          ),
          received
        )
      }).pipe(Effect.scoped, noFibersLeft)
  )
})
