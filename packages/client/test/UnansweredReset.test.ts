/**
 * A request on a kept-alive connection the server had closed (its idle timeout meeting the
 * request, here after an OAuth 401) is reset before any answer: the `HttpClient` path sends it
 * once more on a new connection. Only then: a reset once the answer began, or of a new
 * connection, is the request's failure (the server may have read it).
 */
import type { ServerResponse } from "node:http"
import { describe, expect, it } from "@effect/vitest"
import { Authorizer, HttpTransport, McpClient, type OAuth, TokenStore } from "@effect-mcp/client"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { authorizationServer, TokenRegistry } from "./support/authServers.js"
import { faultServer, initialized, json, type Received, rpc } from "./support/faultServer.js"
import { noFibersLeft } from "./support/fibers.js"
import { reuseAwareHttpClient } from "./support/httpClient.js"

const connect = (url: string, auth: OAuth.OAuthOptions | false) =>
  Effect.map(
    Layer.build(
      McpClient.layer({ name: "resetting", protocolVersion: "2025-11-25" }).pipe(
        Layer.provide(HttpTransport.layer({ url, name: "resetting", transport: "http", listen: false, auth })),
        Layer.provide(Layer.merge(Authorizer.followRedirect(), TokenStore.layerMemory)),
        Layer.provide(reuseAwareHttpClient)
      )
    ),
    (context) => Context.get(context, McpClient.McpClient)
  )

/** The JSON-RPC answer of a fault server to the requests these tests make. */
const answer = (request: Received, response: ServerResponse, headers: Record<string, string> = {}) => {
  const { id, method } = rpc(request)
  if (method === "initialize") return json(response, initialized(id), headers)
  if (id === undefined) return response.writeHead(202, headers).end()
  json(
    response,
    {
      jsonrpc: "2.0",
      id,
      result: method === "tools/list" ? { tools: [] } : method === "tools/call" ? { content: [] } : {}
    },
    headers
  )
}

describe("a reset before any answer", () => {
  it.live("after a 401: the authorized request, reset on a kept-alive connection, is sent once more", () =>
    Effect.gen(function* () {
      const registry = new TokenRegistry()
      const authorization = yield* authorizationServer(registry)
      const servedBefore = new Set<number>()
      let resets = 0
      const resource = yield* faultServer((request, response) => {
        const port = request.remotePort
        const fresh = !servedBefore.has(port)
        servedBefore.add(port)
        if (request.path === "/.well-known/oauth-protected-resource/mcp")
          return json(response, { resource: resource.url, authorization_servers: [authorization.origin] })
        if (request.method !== "POST") return response.writeHead(405).end()
        const token = request.headers.authorization?.replace(/^Bearer /, "") ?? ""
        if (!registry.tokens.has(token)) {
          response.writeHead(401, {
            connection: "keep-alive",
            "www-authenticate": `Bearer resource_metadata="${resource.url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")}"`
          })
          return response.end()
        }
        // The first authorized request on a connection that served requests before: the server
        // closed it as the request came (nothing answered).
        if (!fresh && resets === 0) {
          resets += 1
          return response.socket?.resetAndDestroy()
        }
        answer(request, response)
      })
      const client = yield* connect(resource.url, {})
      expect(yield* client.tools).toStrictEqual([])
      // The authorized initialize twice: reset on the kept-alive connection, then on a new one.
      const authorized = resource.received.filter((entry) => entry.headers.authorization !== undefined)
      expect([resets, ...authorized.slice(0, 2).map((entry) => rpc(entry).method)]).toStrictEqual([
        1,
        "initialize",
        "initialize"
      ])
    }).pipe(Effect.scoped, noFibersLeft)
  )

  it.live("once the answer began, or on a new connection, the reset is the request's failure (not sent again)", () =>
    Effect.gen(function* () {
      let pings = 0
      const { url, received } = yield* faultServer((request, response) => {
        const { method } = rpc(request)
        if (request.method !== "POST") return response.writeHead(405).end()
        if (method === "tools/list") {
          // Part of an answer, then the connection goes.
          response.writeHead(200, { "content-type": "application/json" })
          return response.write('{"jsonrpc":"2.0",', () => response.socket?.destroy())
        }
        // The second ping's answer closes its connection; the third, on a new one, is reset unanswered.
        pings += method === "ping" ? 1 : 0
        if (method === "ping" && pings === 3) return response.socket?.resetAndDestroy()
        answer(request, response, method === "ping" && pings === 2 ? { connection: "close" } : {})
      })
      const client = yield* connect(url, false)
      yield* client.ping()
      const broken = yield* Effect.flip(client.request("tools/list", undefined))
      yield* client.ping()
      const reset = yield* Effect.flip(client.ping())
      expect([broken._tag, reset._tag]).toStrictEqual(["TransportError", "TransportError"])
      const methods = received.map((entry) => rpc(entry).method)
      expect(methods.filter((method) => method === "tools/list" || method === "ping")).toStrictEqual([
        "ping",
        "tools/list",
        "ping",
        "ping"
      ])
      // The broken answer came on a reused connection; the reset ping on a new one.
      const ports = received.map((entry) => entry.remotePort)
      const listed = methods.indexOf("tools/list")
      expect(ports.slice(0, listed)).toContain(ports[listed])
      expect(ports.slice(0, -1)).not.toContain(ports.at(-1))
    }).pipe(Effect.scoped, noFibersLeft)
  )
})
