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
import * as Fiber from "effect/Fiber"
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

  it("one executor: an Effect program's calls take the same plain start when nothing in its fiber needs the effect, and run the effect under a span", async () => {
    const script = scripted()
    const taken: Array<string> = []
    // A session decoration that knows what it adds, so it keeps a plain form: each records its way.
    const telling = Layer.effect(
      Session.Session,
      Effect.map(Session.Session, (session) => {
        const start = PlainForm.of(session.execute)
        const execute = (request: Session.Prepared) =>
          Effect.zipRight(
            Effect.sync(() => taken.push(`effect ${request.method}`)),
            session.execute(request)
          )
        return {
          ...session,
          execute:
            start === undefined
              ? execute
              : PlainForm.attach(execute, (request: Session.Prepared, onDone: Parameters<typeof start>[1]) => {
                  taken.push(`plain ${request.method}`)
                  return start(request, onDone)
                })
        }
      })
    ).pipe(Layer.provide(Session.layer(script.options)), Layer.provide(script.transport))
    const layer = McpClient.layerFromSession(script.options).pipe(Layer.provide(telling))
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const client = Context.get(yield* Layer.build(layer), McpClient.McpClient)
          yield* client.callTool("echo", { text: "warm" })
          taken.length = 0
          yield* client.callTool("echo", { text: "a" })
          yield* client.request("ping", undefined)
          expect(taken).toStrictEqual(["plain tools/call", "plain ping"])
          taken.length = 0
          // Traced, the request's span and traceparent need the effect.
          yield* Effect.withSpan(client.callTool("echo", { text: "b" }), "caller")
          yield* Effect.withSpan(client.request("ping", undefined), "caller")
          expect(taken).toStrictEqual(["effect tools/call", "effect ping"])
        })
      )
    )
  })

  it("one executor: an Effect program's call taken by the plain start, interrupted, is given up on the server", async () => {
    const script = scriptedLayer((request) =>
      request.method === "initialize"
        ? initializeResult({ tools: {} })
        : request.method === "tools/list"
          ? { result: { tools: [tool] } }
          : "silent"
    )
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const client = Context.get(yield* Layer.build(script.layer), McpClient.McpClient)
          yield* client.tools
          const call = yield* Effect.fork(client.callTool("echo", { text: "never answered" }))
          // Bounded: the request is on the wire within a few turns of the scheduler.
          for (let turn = 0; turn < 100 && !script.sent.some((m) => "method" in m && m.method === "tools/call"); turn++)
            yield* Effect.yieldNow()
          expect(script.sent.filter((m) => "method" in m && m.method === "tools/call")).toHaveLength(1)
          yield* Fiber.interrupt(call)
          const cancelled = () => script.sent.filter((m) => "method" in m && m.method === "notifications/cancelled")
          for (let turn = 0; turn < 100 && cancelled().length === 0; turn++) yield* Effect.yieldNow()
          expect(cancelled()).toHaveLength(1)
        })
      )
    )
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
