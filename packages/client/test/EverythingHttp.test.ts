/**
 * The reference server in its HTTP modes over 127.0.0.1: Streamable HTTP, legacy HTTP+SSE,
 * and `auto` against each (which must find the right one). After every scenario, no
 * connection to the server is left open.
 */

import { afterAll, beforeAll, expect } from "@effect/vitest"
import { HttpTransport } from "@effect-mcp/client"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SseTransport from "../src/internal/transport/sseTransport.js"
import * as StreamableHttpTransport from "../src/internal/transport/streamableHttpTransport.js"
import { everythingSuite } from "./support/everything.js"
import { keepAliveHttpClient } from "./support/httpClient.js"
import { connectionsTo, type RunningServer, startEverything } from "./support/httpServers.js"

const servers: { http?: RunningServer; sse?: RunningServer } = {}
beforeAll(async () => {
  const [http, sse] = await Promise.all([startEverything("streamableHttp"), startEverything("sse")])
  servers.http = http
  servers.sse = sse
})
afterAll(async () => {
  await Promise.all([servers.http?.stop(), servers.sse?.stop()])
})

const server = (mode: "http" | "sse") => {
  const running = servers[mode]
  if (running === undefined) throw new Error(`the ${mode} server is not running`)
  return running
}

const noConnectionsLeft = (mode: "http" | "sse") => Effect.sync(() => expect(connectionsTo(server(mode).port)).toBe(0))

everythingSuite(
  "Streamable HTTP",
  () =>
    StreamableHttpTransport.layer({ url: `${server("http").origin}/mcp`, name: "everything-http" }).pipe(
      Layer.provide(keepAliveHttpClient)
    ),
  noConnectionsLeft("http")
)

everythingSuite(
  "legacy HTTP+SSE",
  () =>
    SseTransport.layer({ url: `${server("sse").origin}/sse`, name: "everything-sse" }).pipe(
      Layer.provide(keepAliveHttpClient)
    ),
  noConnectionsLeft("sse")
)

everythingSuite(
  "auto (finds Streamable HTTP)",
  () => HttpTransport.layer({ url: `${server("http").origin}/mcp` }).pipe(Layer.provide(keepAliveHttpClient)),
  noConnectionsLeft("http")
)

everythingSuite(
  "auto (falls back to legacy SSE)",
  () => HttpTransport.layer({ url: `${server("sse").origin}/sse` }).pipe(Layer.provide(keepAliveHttpClient)),
  noConnectionsLeft("sse")
)
