/**
 * What HTTP failures read like, against loopback servers: an invalid URL is a typed error for
 * every HTTP layer; a closed port says its cause once; a connection cut in the middle of a
 * body (JSON or SSE; Streamable HTTP and legacy SSE) says so instead of "Decode error".
 */
import type { ServerResponse } from "node:http"
import { describe, expect, it } from "@effect/vitest"
import { HttpTransport, McpClient, type Transport } from "@effect-mcp/client"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SseTransport from "../src/internal/transport/sseTransport.js"
import * as StreamableHttpTransport from "../src/internal/transport/streamableHttpTransport.js"
import { faultServer, initialized, rpc } from "./support/faultServer.js"
import { noFibersLeft } from "./support/fibers.js"
import { keepAliveHttpClient } from "./support/httpClient.js"
import { freePort } from "./support/httpServers.js"

/** The client over `transport`; the failure of building it. */
const connectFailure = <E>(transport: Layer.Layer<Transport.Transport, E>) =>
  Effect.flip(Layer.build(McpClient.layer({ name: "x" }).pipe(Layer.provide(transport))))

const layers = {
  http: (url: string) => HttpTransport.layer({ url, transport: "http" }),
  sse: (url: string) => HttpTransport.layer({ url, transport: "sse" }),
  auto: (url: string) => HttpTransport.layer({ url }),
  "StreamableHttpTransport.layer": (url: string) => StreamableHttpTransport.layer({ url }),
  "SseTransport.layer": (url: string) => SseTransport.layer({ url })
} as const

/** Headers promising more than is written, then the socket destroyed. */
const cut = (response: ServerResponse, contentType: string, written: string) => {
  response.writeHead(200, { "content-type": contentType, "content-length": String(written.length + 4096) })
  response.write(written)
  setTimeout(() => response.socket?.destroy(), 20)
}

describe("HTTP transport errors", () => {
  for (const [name, layer] of Object.entries(layers)) {
    it.live(`${name}: an invalid URL is a TransportError naming it, not a thrown TypeError`, () =>
      Effect.gen(function* () {
        const error = yield* connectFailure(layer("not a url").pipe(Layer.provide(keepAliveHttpClient)))
        expect(error._tag).toBe("TransportError")
        expect(error.message).toBe('not a url: transport failed: invalid URL: "not a url"')
      }).pipe(Effect.scoped, noFibersLeft)
    )
  }

  for (const transport of ["http", "sse", "auto"] as const) {
    it.live(
      `${transport}: a closed port says so in plain words and ECONNREFUSED once, after the request it refused`,
      () =>
        Effect.gen(function* () {
          const port = yield* Effect.promise(freePort)
          const url = `http://127.0.0.1:${port}/mcp`
          const error = yield* connectFailure(
            HttpTransport.layer({ url, name: "x", transport }).pipe(Layer.provide(keepAliveHttpClient))
          )
          const method = transport === "sse" ? "GET" : "POST"
          expect(error.message).toBe(
            `x: transport failed: ${method} ${url} failed: nothing is listening at 127.0.0.1:${port}: is the server running, on that port? (ECONNREFUSED)`
          )
        }).pipe(Effect.scoped, noFibersLeft)
    )
  }

  it.live("Streamable HTTP: a JSON body cut short says the connection closed before the response was complete", () =>
    Effect.gen(function* () {
      const { url } = yield* faultServer((request, response) =>
        cut(response, "application/json", JSON.stringify(initialized(rpc(request).id)).slice(0, 40))
      )
      const error = yield* connectFailure(
        StreamableHttpTransport.layer({ url, name: "x" }).pipe(Layer.provide(keepAliveHttpClient))
      )
      expect(error.message).toMatch(
        /^x: transport failed: the connection closed before the response was complete \(40 bytes of the body received; ECONNRESET: aborted\)$/
      )
    }).pipe(Effect.scoped, noFibersLeft)
  )

  it.live("Streamable HTTP: an SSE body cut short says the connection closed before the response was complete", () =>
    Effect.gen(function* () {
      const { url } = yield* faultServer((request, response) =>
        cut(response, "text/event-stream", `data: ${JSON.stringify(initialized(rpc(request).id)).slice(0, 40)}`)
      )
      const error = yield* connectFailure(
        StreamableHttpTransport.layer({ url, name: "x" }).pipe(Layer.provide(keepAliveHttpClient))
      )
      expect(error.message).toBe(
        "x: transport failed: the connection closed before the response was complete (ECONNRESET: aborted)"
      )
    }).pipe(Effect.scoped, noFibersLeft)
  )

  it.live("legacy SSE: a stream cut short says the connection closed before the response was complete", () =>
    Effect.gen(function* () {
      let stream: ServerResponse | undefined
      const { url } = yield* faultServer((request, response) => {
        if (request.method === "GET") {
          stream = response
          return cut(response, "text/event-stream", "event: endpoint\ndata: /messages\n\n")
        }
        response.writeHead(202).end()
      })
      const error = yield* connectFailure(
        SseTransport.layer({ url, name: "x" }).pipe(Layer.provide(keepAliveHttpClient))
      )
      expect(stream).toBeDefined()
      expect(error.message).toBe(
        "x: transport failed: the SSE stream broke: the connection closed before the response was complete (ECONNRESET: aborted)"
      )
    }).pipe(Effect.scoped, noFibersLeft)
  )
})
