/** A hand-scripted MCP server on the server end of an in-memory pair, answering by method. */
import { InMemoryTransport, McpClient, Transport } from "@effect-mcp/client"
import { JsonRpc } from "@effect-mcp/protocol"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"

/** What the script does with a request: answer, fail, or stay silent. */
export type Reply =
  | { readonly result: { readonly [key: string]: unknown } }
  | { readonly error: JsonRpc.ErrorObject }
  | "silent"

/** The default answer to `initialize`: the requested version, the given capabilities. */
export const initializeResult = (capabilities: object = {}, protocolVersion = "2025-11-25") => ({
  result: { protocolVersion, capabilities, serverInfo: { name: "scripted", version: "0" } }
})

/**
 * A client layer over a script: every message the client sent lands in `sent`, and `server()` is
 * the server end once the layer is built.
 */
export const scriptedLayer = <E>(
  script: (request: JsonRpc.JSONRPCRequest) => Reply,
  options: McpClient.McpClientOptions = {},
  handlers: Layer.Layer<never, E> = Layer.empty
) => {
  const sent: Array<JsonRpc.JSONRPCMessage> = []
  let serverEnd: InMemoryTransport.End | undefined
  const serve = (end: InMemoryTransport.End) =>
    Effect.gen(function* () {
      serverEnd = end
      yield* Transport.incoming(end).pipe(
        Stream.runForEach((item) => {
          if (item._tag !== "Message") return Effect.void
          const message = item.message
          sent.push(message)
          if (!JsonRpc.isRequest(message)) return Effect.void
          const reply = script(message)
          if (reply === "silent") return Effect.void
          return Effect.ignore(
            end.send(
              "result" in reply
                ? { jsonrpc: "2.0", id: message.id, result: reply.result }
                : { jsonrpc: "2.0", id: message.id, error: reply.error }
            )
          )
        }),
        Effect.forkScoped
      )
    })
  // The stateful session unless a test asks otherwise (no era probe before initialize).
  const clientOptions: McpClient.McpClientOptions = { name: "scripted", protocolVersion: "2025-11-25", ...options }
  const transport = InMemoryTransport.layer(serve, "scripted")
  const layer = McpClient.layer(clientOptions).pipe(Layer.provide(transport), Layer.provide(handlers))
  return { layer, transport, options: clientOptions, sent, server: () => serverEnd }
}

/** Runs a client against a script; returns the client and every message the client sent. */
export const connectScripted = <E>(
  script: (request: JsonRpc.JSONRPCRequest) => Reply,
  options: McpClient.McpClientOptions = {},
  handlers: Layer.Layer<never, E> = Layer.empty
) =>
  Effect.gen(function* () {
    const { layer, sent, server } = scriptedLayer(script, options, handlers)
    const context = yield* Layer.build(layer)
    const end = server()
    if (end === undefined) return yield* Effect.die("the server end was never served")
    return { client: Context.get(context, McpClient.McpClient), sent, server: end }
  })

/** The methods of the messages sent, in order. */
export const methods = (sent: ReadonlyArray<JsonRpc.JSONRPCMessage>) =>
  sent.map((message) => ("method" in message ? message.method : "response"))
