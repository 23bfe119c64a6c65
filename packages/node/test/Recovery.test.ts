/**
 * Recovery on Node's route (`NodeHttpTransport`, where a stateful POST runs in `node:http`'s
 * callbacks): the reference server restarted on its port answers the old session with HTTP 400
 * and the client initializes a new one; a socket reset under a read is retried.
 */
import { describe, expect, it } from "@effect/vitest"
import { McpClient, type Retry } from "@effect-mcp/client"
import * as NodeHttpTransport from "@effect-mcp/node/NodeHttpTransport"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { faultServer, initialized, json, rpc } from "../../client/test/support/faultServer.js"
import { noFibersLeft } from "../../client/test/support/fibers.js"
import { keepAliveHttpClient } from "../../client/test/support/httpClient.js"
import { restartableServers, textOf } from "../../client/test/support/restarting.js"

const connect = (url: string, options: McpClient.McpClientOptions = {}) =>
  Effect.map(
    Layer.build(
      McpClient.layer({ name: "node", requestTimeout: "60 seconds", ...options }).pipe(
        Layer.provide(NodeHttpTransport.layer({ url, name: "node", transport: "http", auth: false })),
        Layer.provide(keepAliveHttpClient)
      )
    ),
    (context) => Context.get(context, McpClient.McpClient)
  )

const { start, stop } = restartableServers()

describe("recovery on Node's route", () => {
  it.live("the reference server restarted on its port: the next call initializes a new session and succeeds", () =>
    Effect.gen(function* () {
      const first = yield* start()
      const client = yield* connect(`${first.origin}/mcp`)
      expect(textOf(yield* client.callTool("echo", { message: "before" }))).toBe("Echo: before")
      yield* stop(first)
      yield* start(first.port)
      expect(textOf(yield* client.callTool("echo", { message: "after" }))).toBe("Echo: after")
      expect((yield* client.state)._tag).toBe("Ready")
    }).pipe(Effect.scoped, noFibersLeft)
  )

  it.live("a socket reset under a read is retried under retry.reads", () =>
    Effect.gen(function* () {
      let pings = 0
      const { url } = yield* faultServer((request, response) => {
        const message = rpc(request)
        if (request.method === "DELETE" || request.method === "GET") return response.writeHead(405).end()
        if (message.method === "initialize") return json(response, initialized(message.id), { "mcp-session-id": "s1" })
        // The ping goes on a new connection (a reset of a kept-alive one is the transport's to retry).
        if (message.id === undefined) return response.writeHead(202, { connection: "close" }).end()
        if (message.method === "ping" && ++pings === 1) return response.socket?.destroy()
        return json(response, { jsonrpc: "2.0", id: message.id, result: {} })
      })
      const quick: Retry.RetryPolicy = { times: 2, base: "5 millis", maxDelay: "20 millis" }
      const client = yield* connect(url, { protocolVersion: "2025-11-25", retry: { reads: quick } })
      yield* client.ping()
      expect(pings).toBe(2)
    }).pipe(Effect.scoped, noFibersLeft)
  )
})
