/**
 * The client composed of layers: `McpClient.layerFromFeatures` takes tools, resources and prompts
 * from context, so a decorated feature carries every call of it the client makes; and the client
 * service itself decorates the normal way.
 */
import { describe, expect, it } from "@effect/vitest"
import { Features, McpClient, Session } from "@effect-mcp/client"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { recordingClient, recordingTools } from "./support/decorations.js"
import { initializeResult, methods, scriptedLayer } from "./support/scriptedServer.js"

const tool = { name: "echo", inputSchema: { type: "object", properties: { text: { type: "string" } } } }

const script = scriptedLayer((request) => {
  switch (request.method) {
    case "initialize":
      return initializeResult({ tools: {}, prompts: {}, resources: {} })
    case "tools/list":
      return { result: { tools: [tool] } }
    case "tools/call":
      return { result: { content: [{ type: "text", text: "ok" }] } }
    case "prompts/list":
      return { result: { prompts: [{ name: "from-server" }] } }
    case "resources/list":
      return { result: { resources: [] } }
    default:
      return { error: { code: -32601, message: "no" } }
  }
})

describe("Features", () => {
  it.scoped(
    "a decorated feature carries each call the client makes of it; a replaced one answers instead of the server",
    () =>
      Effect.gen(function* () {
        const calls: Array<string> = []
        // Tools that record each call, then call as the client would.
        const recordedTools = recordingTools(calls).pipe(Layer.provide(Features.layerTools(script.options)))
        // Prompts replaced outright: the server is never asked.
        const fixedPrompts = Layer.succeed(Features.Prompts, {
          list: Effect.succeed([{ name: "fixed" }]),
          get: () => Effect.die("not used"),
          complete: () => Effect.die("not used"),
          invalidate: Effect.void
        })
        // Skills (a lazy feature) replaced too: the server, which does not declare them, is not asked.
        const fixedSkills = Layer.succeed(Features.Skills, {
          list: Effect.succeed([]),
          get: () => Effect.die("not used"),
          load: () => Effect.die("not used"),
          invalidate: Effect.void
        })
        const context = yield* Layer.build(
          McpClient.layerFromFeatures().pipe(
            Layer.provide(
              Layer.mergeAll(fixedPrompts, fixedSkills, Features.layerResources(script.options), Features.layerTasks)
            ),
            Layer.provideMerge(recordedTools),
            Layer.provide(Session.layer(script.options)),
            Layer.provide(script.transport)
          )
        )
        const client = Context.get(context, McpClient.McpClient)
        expect((yield* client.callTool("echo", { text: "a" })).content).toStrictEqual([{ type: "text", text: "ok" }])
        yield* client.callTool("echo", { text: "b" })
        expect(calls).toStrictEqual(["echo", "echo"])
        expect((yield* client.prompts).map((prompt) => prompt.name)).toStrictEqual(["fixed"])
        expect(yield* client.skills.list).toStrictEqual([])
        expect(yield* client.resources).toStrictEqual([])
        expect(methods(script.sent).filter((method) => method !== "response")).toStrictEqual([
          "initialize",
          "notifications/initialized",
          "tools/list",
          "tools/call",
          "tools/call",
          "resources/list"
        ])
      })
  )

  it.scoped("a decorated client service carries its callers' calls", () =>
    Effect.gen(function* () {
      const calls: Array<string> = []
      const recordedClient = recordingClient(calls).pipe(
        Layer.provide(McpClient.layer(script.options)),
        Layer.provide(script.transport)
      )
      const client = Context.get(yield* Layer.build(recordedClient), McpClient.McpClient)
      yield* client.callTool("echo", { text: "a" })
      expect(calls).toStrictEqual(["echo"])
    })
  )

  it.scoped("the module's accessors call the client in context", () =>
    Effect.gen(function* () {
      const context = yield* Layer.build(McpClient.layer(script.options).pipe(Layer.provide(script.transport)))
      const provided = <A, E>(effect: Effect.Effect<A, E, McpClient.McpClient>) => Effect.provide(effect, context)
      expect((yield* provided(McpClient.tools)).map((listed) => listed.name)).toStrictEqual(["echo"])
      expect((yield* provided(McpClient.callTool("echo", { text: "a" }))).content).toStrictEqual([
        { type: "text", text: "ok" }
      ])
      expect((yield* provided(McpClient.prompts)).map((prompt) => prompt.name)).toStrictEqual(["from-server"])
      expect(yield* provided(McpClient.resources)).toStrictEqual([])
    })
  )
})
