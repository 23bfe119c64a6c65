/**
 * One executor: each public seam (the transport, the session, a feature, the client) decorated the
 * normal Effect way sees every request, whether an Effect program or a Promise client makes it.
 * The plain-code start a Promise client uses is a property of the function it starts (`PlainForm`):
 * a wrapper is a new function, so it has none and nothing goes around it. The control shows that,
 * undecorated, the same Promise calls do start from plain code (with no fiber), so the counts
 * below would miss them if a plain form survived a decoration.
 */
import { describe, expect, it } from "@effect/vitest"
import { Features, McpClient, PlainForm, PromiseClient, Session, Transport } from "@effect-mcp/client"
import { JsonRpc } from "@effect-mcp/protocol"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { recordingClient, recordingSession, recordingTools } from "./support/decorations.js"
import { counted, Starts } from "./support/fiberStarts.js"
import { initializeResult, scriptedLayer } from "./support/scriptedServer.js"

const tool = { name: "echo", inputSchema: { type: "object", properties: { text: { type: "string" } } } }

const scripted = () =>
  scriptedLayer((request) => {
    switch (request.method) {
      case "initialize":
        return initializeResult({ tools: {} })
      case "tools/list":
        return { result: { tools: [tool] } }
      case "tools/call":
        return { result: { content: [{ type: "text", text: "ok" }] } }
      case "ping":
        return { result: {} }
      default:
        return { error: { code: -32601, message: "no" } }
    }
  })

/** Two tool calls and a ping from an Effect program, then the same from a Promise client over the layer. */
const callBothWays = async (layer: Layer.Layer<McpClient.McpClient, unknown>) => {
  await Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const client = Context.get(yield* Layer.build(layer), McpClient.McpClient)
        yield* client.callTool("echo", { text: "a" })
        yield* client.callTool("echo", { text: "b" })
        yield* client.request("ping", undefined)
      })
    )
  )
  const mcp = await PromiseClient.fromLayer(layer)
  try {
    await mcp.callTool("echo", { text: "c" })
    await mcp.callTool("echo", { text: "d" })
    await mcp.request("ping", undefined)
  } finally {
    await mcp.close()
  }
}

describe("every request goes through a decorated seam, on both ways of calling", () => {
  it("control: undecorated, a Promise client's calls start from plain code, with no fiber", async () => {
    const script = scripted()
    const starts = new Starts()
    const mcp = await PromiseClient.fromLayer(counted(script.layer, starts))
    try {
      await mcp.callTool("echo", { text: "warm" })
      expect(PlainForm.of(mcp.client.callTool)).toBeDefined()
      const before = starts.count
      await mcp.callTool("echo", { text: "a" })
      await mcp.request("ping", undefined)
      expect(starts.count).toBe(before)
    } finally {
      await mcp.close()
    }
  })

  it("the transport: a new `send` sees every message", async () => {
    const script = scripted()
    const sent: Array<string> = []
    const recording = Layer.effect(
      Transport.Transport,
      Effect.map(Transport.Transport, (transport) => ({
        ...transport,
        send: (message: JsonRpc.JSONRPCMessage, headers?: Readonly<Record<string, string>>) =>
          Effect.zipRight(
            Effect.sync(() => {
              if (JsonRpc.isRequest(message)) sent.push(message.method)
            }),
            transport.send(message, headers)
          )
      }))
    ).pipe(Layer.provide(script.transport))
    await callBothWays(McpClient.layer(script.options).pipe(Layer.provide(recording)))
    expect(sent.filter((method) => method === "tools/call")).toHaveLength(4)
    expect(sent.filter((method) => method === "ping")).toHaveLength(2)
  })

  it("the session: a new `execute` sees every request", async () => {
    const script = scripted()
    const executed: Array<string> = []
    const recording = recordingSession(executed).pipe(
      Layer.provide(Session.layer(script.options)),
      Layer.provide(script.transport)
    )
    await callBothWays(McpClient.layerFromSession(script.options).pipe(Layer.provide(recording)))
    expect(executed.filter((method) => method === "tools/call")).toHaveLength(4)
    expect(executed.filter((method) => method === "ping")).toHaveLength(2)
  })

  it("a feature: a new `Tools.call` sees every tool call", async () => {
    const script = scripted()
    const calls: Array<string> = []
    const recording = recordingTools(calls).pipe(Layer.provide(Features.layerTools(script.options)))
    const layer = McpClient.layerFromFeatures().pipe(
      Layer.provide(
        Layer.mergeAll(Features.layerResources(), Features.layerPrompts(), Features.layerTasks, Features.layerSkills)
      ),
      Layer.provideMerge(recording),
      Layer.provide(Session.layer(script.options)),
      Layer.provide(script.transport)
    )
    await callBothWays(layer)
    expect(calls).toStrictEqual(["echo", "echo", "echo", "echo"])
  })

  it("the client: a new `callTool` and `request` see every call", async () => {
    const script = scripted()
    const calls: Array<string> = []
    const recording = recordingClient(calls).pipe(Layer.provide(script.layer))
    await callBothWays(recording)
    expect(calls).toStrictEqual(["echo", "echo", "ping", "echo", "echo", "ping"])
  })
})
