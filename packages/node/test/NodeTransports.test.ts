/**
 * The `Transports` service as a program chooses it: `NodeTransports.layer` gives Node's transports
 * (stdio on `node:child_process`, which writes a message there and then; Streamable HTTP POSTs on
 * `node:http`, so the platform `HttpClient` sees only the closing `DELETE`), and the client's
 * generic `Transports.layer` gives the generic ones over the same platform (no immediate write;
 * every POST through the `HttpClient`). Against the fault tests' mini server and a loopback server.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it } from "@effect/vitest"
import { McpClient, PlainForm, StdioTransport, Transport, Transports } from "@effect-mcp/client"
import * as NodeTransports from "@effect-mcp/node/NodeTransports"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { faultServer, type Handler, initialized, json, rpc } from "../../client/test/support/faultServer.js"
import { noFibersLeft } from "../../client/test/support/fibers.js"
import { keepAliveHttpClient } from "../../client/test/support/httpClient.js"
import { isAlive, miniServer } from "../../client/test/support/processes.js"

/** Answers initialize (with a session id), notifications, tools/list and tools/call. */
const server: Handler = (request, response) => {
  const message = rpc(request)
  if (request.method === "DELETE") return response.writeHead(200).end()
  if (request.method === "GET") return response.writeHead(405).end()
  if (message.method === "initialize") return json(response, initialized(message.id), { "mcp-session-id": "s1" })
  if (message.id === undefined) return response.writeHead(202).end()
  if (message.method === "tools/list") return json(response, { jsonrpc: "2.0", id: message.id, result: { tools: [] } })
  return json(response, { jsonrpc: "2.0", id: message.id, result: { content: [{ type: "text", text: "ok" }] } })
}

/** The platform both layers run on, with an `HttpClient` that records the method of each request it sends. */
const platform = (methods: Array<string>) =>
  Layer.merge(
    NodeContext.layer,
    Layer.effect(
      HttpClient.HttpClient,
      Effect.map(HttpClient.HttpClient, (client) =>
        HttpClient.tapRequest(client, (request) => Effect.sync(() => methods.push(request.method)))
      )
    ).pipe(Layer.provide(keepAliveHttpClient))
  )

const choices = [
  { name: "NodeTransports.layer", layer: NodeTransports.layer, node: true },
  { name: "Transports.layer", layer: Transports.layer, node: false }
] as const

describe.each(choices)("$name", ({ layer, node }) => {
  it.live("stdio: a server's transport and process; the process ends with the scope", () =>
    Effect.gen(function* () {
      const methods: Array<string> = []
      let pid = 0
      yield* Effect.scoped(
        Effect.gen(function* () {
          const transports = yield* Transports.Transports
          const context = yield* Layer.build(
            Layer.provideMerge(
              McpClient.layer({ name: "mini", protocolVersion: "2025-11-25" }),
              transports.stdio({ command: process.execPath, args: [miniServer, "normal"], name: "mini" })
            )
          )
          pid = Context.get(context, StdioTransport.StdioProcess).pid
          // Node's transport writes a message there and then, in the caller; the generic one cannot.
          expect(PlainForm.of(Context.get(context, Transport.Transport).send) !== undefined).toBe(node)
          const result = yield* Context.get(context, McpClient.McpClient).callTool("echo", { text: "hi" })
          expect(result.content.length).toBeGreaterThan(0)
        }).pipe(Effect.provide(layer.pipe(Layer.provide(platform(methods)))))
      )
      expect(isAlive(pid)).toBe(false)
      expect(methods).toStrictEqual([])
    }).pipe(noFibersLeft)
  )

  it.live(
    `http: ${node ? "POSTs on node:http, the HttpClient sees only DELETE" : "every request through the HttpClient"}`,
    () =>
      Effect.gen(function* () {
        const methods: Array<string> = []
        const { url, received } = yield* faultServer(server)
        yield* Effect.scoped(
          Effect.gen(function* () {
            const transports = yield* Transports.Transports
            const client = yield* Effect.map(
              Layer.build(
                McpClient.layer({ name: "web", protocolVersion: "2025-11-25" }).pipe(
                  Layer.provide(transports.http({ url, name: "web", transport: "http", auth: false }))
                )
              ),
              (context) => Context.get(context, McpClient.McpClient)
            )
            for (let call = 0; call < 3; call++) yield* client.callTool("x")
          }).pipe(Effect.provide(layer.pipe(Layer.provide(platform(methods)))))
        )
        const posts = received.filter((request) => request.method === "POST").length
        expect(posts).toBeGreaterThanOrEqual(5)
        expect(methods.filter((method) => method === "POST").length).toBe(node ? 0 : posts)
        expect(methods).toContain("DELETE")
      }).pipe(Effect.scoped, noFibersLeft)
  )
})
