/**
 * The bridge against real servers, driven by a scripted model: the reference server over stdio
 * ("alpha") and over Streamable HTTP ("web"), and a small stdio server of our own
 * ("workshop": a tool that runs until cancelled, a destructive tool, a tool that changes the
 * list). The model checks what it gets back at each step.
 */
import { fileURLToPath } from "node:url"
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as Tool from "@effect/ai/Tool"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it } from "@effect/vitest"
import { Capabilities, Transports } from "@effect-mcp/client"
import { McpHost } from "@effect-mcp/host"
import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import { noFibersLeft } from "../../client/test/support/fibers.js"
import { keepAliveHttpClient } from "../../client/test/support/httpClient.js"
import { everything, everythingOverHttp, stdio } from "../../host/test/support/targets.js"
import { McpToolkit, SamplingModel, ToolLoop } from "../src/index.js"
import { lastToolResults, type Script, scriptedModel, userText } from "./support/scriptedModel.js"

const workshopServer = fileURLToPath(new URL("./fixtures/workshop-server.mjs", import.meta.url))

const web = everythingOverHttp()

const servers = (): ReadonlyArray<McpHost.ServerConfig> => [
  { name: "alpha", target: everything },
  { name: "web", target: web() },
  { name: "workshop", target: stdio(workshopServer) }
]

/** The generic transports over Node's platform. */
const platform = Transports.layer.pipe(Layer.provideMerge(Layer.merge(NodeContext.layer, keepAliveHttpClient)))

/** The host of the three servers, its toolkit, and the scripted model; `handlers` are the host's handler services. */
const setup = <ROut>(script: Script, handlers: Layer.Layer<ROut> = Layer.empty as Layer.Layer<ROut>) => {
  const model = scriptedModel(script)
  const host = McpHost.layer({ servers: servers() }).pipe(Layer.provide(handlers), Layer.provide(platform))
  const layer = Layer.mergeAll(McpToolkit.layer().pipe(Layer.provideMerge(host)), model.layer)
  return { layer, received: model.received }
}

const toolNames = (request: LanguageModel.ProviderOptions) => request.tools.map((tool) => tool.name)

const events = (options: ToolLoop.TurnOptions) =>
  ToolLoop.stream(options).pipe(Stream.runCollect, Effect.map(Chunk.toArray))

const doneOf = (all: ReadonlyArray<ToolLoop.TurnEvent>) => {
  const last = all.at(-1)
  if (last?._tag !== "Done") throw new Error(`the turn did not end with Done: ${JSON.stringify(last)}`)
  return last.outcome
}

describe("ToolLoop", () => {
  it.live("uses tools of two servers over several steps, in parallel where asked, and answers", () => {
    const { layer, received } = setup({
      turns: [
        (request) => {
          expect(toolNames(request)).toEqual(expect.arrayContaining(["alpha__echo", "web__get-sum", "workshop__wait"]))
          expect(userText(request.prompt)).toContain("add 2 and 40")
          return {
            calls: [
              { name: "alpha__echo", params: { message: "hello alpha" } },
              { name: "web__get-sum", params: { a: 2, b: 40 } }
            ]
          }
        },
        (request) => {
          const results = lastToolResults(request.prompt)
          expect(results.map((result) => result.name)).toStrictEqual(["alpha__echo", "web__get-sum"])
          expect(results[0]?.text).toContain("hello alpha")
          expect(results[1]?.text).toContain("42")
          expect(results.every((result) => !result.isFailure)).toBe(true)
          return { calls: [{ name: "web__echo", params: { message: "the sum is 42" } }] }
        },
        (request) => {
          expect(lastToolResults(request.prompt)[0]?.text).toContain("the sum is 42")
          return { text: "The sum is 42, and alpha says hello." }
        }
      ]
    })
    return Effect.gen(function* () {
      const all = yield* events({ prompt: "Please add 2 and 40 and say hello." })
      const tags = all.map((event) => event._tag)
      expect(tags.filter((tag) => tag === "ToolCallStarted")).toHaveLength(3)
      expect(tags.filter((tag) => tag === "ToolResult")).toHaveLength(3)
      // Both calls of the first step started before either ended.
      expect(tags.slice(0, 2)).toStrictEqual(["ToolCallStarted", "ToolCallStarted"])
      const started = all.flatMap((event) => (event._tag === "ToolCallStarted" ? [event.call] : []))
      expect(started.map((call) => [call.tool?.server, call.tool?.tool.name])).toStrictEqual([
        ["alpha", "echo"],
        ["web", "get-sum"],
        ["web", "echo"]
      ])
      const text = all.flatMap((event) => (event._tag === "TextDelta" ? [event.text] : [])).join("")
      expect(text).toBe("The sum is 42, and alpha says hello.")
      const outcome = doneOf(all)
      expect(outcome).toMatchObject({ text, toolCalls: 3, limitReached: false, finishReason: "stop" })
      // The conversation: user, assistant (2 calls), tool (2 results), assistant, tool, assistant.
      expect(outcome.prompt.content.map((message) => message.role)).toStrictEqual([
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "assistant"
      ])
      expect(received).toHaveLength(3)
    }).pipe(noFibersLeft, Effect.provide(layer))
  })

  it.live("gives the model each tool's JSON input schema verbatim, its description and its annotations", () => {
    const { layer, received } = setup({ turns: [() => ({ text: "nothing to do" })] })
    return Effect.gen(function* () {
      const host = yield* McpHost.McpHost
      yield* ToolLoop.run({ prompt: "hi" })
      const offered = received[0]?.request.tools ?? []
      for (const hostTool of yield* host.tools) {
        const tool = offered.find((candidate) => candidate.name === hostTool.name.replace(/[^A-Za-z0-9_-]/g, "_"))
        expect(tool, hostTool.name).toBeDefined()
        if (tool === undefined) continue
        expect(Tool.getJsonSchemaFromSchemaAst(tool.parametersSchema.ast)).toStrictEqual(hostTool.tool.inputSchema)
        expect(tool.description).toBe(hostTool.tool.description ?? hostTool.tool.title)
      }
      const remove = offered.find((tool) => tool.name === "workshop__delete")
      const wait = offered.find((tool) => tool.name === "workshop__wait")
      expect(remove !== undefined && Context.get(remove.annotations, Tool.Destructive)).toBe(true)
      expect(wait !== undefined && Context.get(wait.annotations, Tool.Readonly)).toBe(true)
    }).pipe(Effect.provide(layer))
  })

  it.live("stops at the tool-call limit: calls past it get an error result and the model must answer", () => {
    const echo = (n: number) => ({ name: "alpha__echo", params: { message: `echo ${n}` } })
    const { layer, received } = setup({
      turns: [
        () => ({ calls: [echo(1), echo(2), echo(3)] }),
        (request) => {
          expect(request.toolChoice).toBe("none")
          const results = lastToolResults(request.prompt)
          expect(results.map((result) => result.isFailure)).toStrictEqual([false, false, true])
          expect(results[2]?.text).toContain("limit of 2 tool calls")
          // A model that asks again anyway gets refusals, and the turn ends.
          return { text: "I tried.", calls: [echo(4)] }
        }
      ]
    })
    return Effect.gen(function* () {
      const all = yield* events({ prompt: "echo three times", maxToolCalls: 2 })
      expect(all.filter((event) => event._tag === "ToolCallStarted")).toHaveLength(2)
      const outcome = doneOf(all)
      expect(outcome).toMatchObject({ toolCalls: 2, limitReached: true, text: "I tried." })
      expect(lastToolResults(outcome.prompt).map((result) => result.isFailure)).toStrictEqual([true])
      expect(received).toHaveLength(2)
    }).pipe(Effect.provide(layer))
  })

  it.live("returns failing tools to the model as errors: an isError result, a server error, a timeout", () => {
    const { layer } = setup({
      turns: [
        () => ({
          calls: [
            { name: "web__get-sum", params: { a: "not a number" } },
            { name: "workshop__wait", params: { label: "too long" } },
            { name: "alpha__echo", params: { message: "still works" } }
          ]
        }),
        (request) => {
          const results = lastToolResults(request.prompt)
          expect(results.map((result) => result.isFailure)).toStrictEqual([true, true, false])
          expect(results[1]?.text).toContain("did not finish within")
          expect(results[2]?.text).toContain("still works")
          return { text: "Two of those failed." }
        }
      ]
    })
    return Effect.gen(function* () {
      // Generous: the echo must answer within it on a loaded machine; the wait never does (it runs until cancelled).
      const all = yield* events({ prompt: "try things", callTimeout: "5 seconds" })
      const ended = all.flatMap((event) => (event._tag === "ToolResult" ? [event.isError] : []))
      expect(ended.sort()).toStrictEqual([false, true, true])
      expect(doneOf(all).text).toBe("Two of those failed.")
    }).pipe(noFibersLeft, Effect.provide(layer))
  })

  it.live("a call of a tool that no server offers is the model's error (@effect/ai rejects the name)", () => {
    const { layer } = setup({ turns: [() => ({ calls: [{ name: "nobody__nothing", params: {} }] })] })
    return Effect.gen(function* () {
      const all = yield* events({ prompt: "call something" })
      expect(all.map((event) => event._tag)).toStrictEqual(["Error"])
      // Called directly, the toolkit answers with an error output instead.
      const toolkit = yield* McpToolkit.McpToolkit
      const direct = yield* toolkit.call("nobody__nothing", {})
      expect(direct).toStrictEqual({
        output: { content: [{ type: "text", text: 'unknown tool "nobody__nothing"' }] },
        isError: true
      })
    }).pipe(Effect.provide(layer))
  })

  it.live("a model failure ends the stream with an Error event, and run fails with it", () => {
    const { layer } = setup({ turns: [] })
    return Effect.gen(function* () {
      const all = yield* events({ prompt: "hi" })
      expect(all.map((event) => event._tag)).toStrictEqual(["Error"])
      const failure = yield* ToolLoop.run({ prompt: "hi" }).pipe(Effect.flip)
      expect(failure._tag).toBe("UnknownError")
    }).pipe(Effect.provide(layer))
  })

  it.live("a tool that elicits mid-call reaches the host's elicitation handler, and the answer flows back", () => {
    const asked: Array<string> = []
    const elicitation = Layer.succeed(Capabilities.Elicitation, {
      form: (params, context) =>
        Effect.sync(() => asked.push(`${context.server}: ${params.message}`)).pipe(
          Effect.as({ action: "accept" as const, content: { name: "Ada", check: true, integer: 7 } })
        )
    })
    const { layer } = setup(
      {
        turns: [
          () => ({ calls: [{ name: "alpha__trigger-elicitation-request", params: {} }] }),
          (request) => {
            const [result] = lastToolResults(request.prompt)
            expect(result?.isFailure).toBe(false)
            expect(result?.text).toContain("Ada")
            return { text: "You are Ada." }
          }
        ]
      },
      elicitation
    )
    return Effect.gen(function* () {
      const outcome = yield* ToolLoop.run({ prompt: "who am I?" })
      expect(outcome.text).toBe("You are Ada.")
      expect(asked).toHaveLength(1)
      expect(asked[0]).toMatch(/^alpha: /)
    }).pipe(Effect.provide(layer))
  })

  it.live("serves the server's sampling request with the same model, after the user's consent", () => {
    const consents: Array<string> = []
    const model = scriptedModel({
      turns: [
        () => ({
          calls: [{ name: "web__trigger-sampling-request", params: { prompt: "Name a colour", maxTokens: 20 } }]
        }),
        (request) => {
          const [result] = lastToolResults(request.prompt)
          expect(result?.isFailure).toBe(false)
          expect(result?.text).toContain("Ultramarine")
          return { text: "The server's model said Ultramarine." }
        }
      ],
      samples: [
        (request) => {
          expect(userText(request.prompt)).toContain("Name a colour")
          return { text: "Ultramarine" }
        }
      ]
    })
    const sampling = SamplingModel.layer({
      consent: (params, context) =>
        Effect.sync(() => consents.push(context.server)).pipe(Effect.as(params.maxTokens > 0))
    }).pipe(Layer.provide(model.layer))
    const host = McpHost.layer({ servers: servers() }).pipe(Layer.provide(sampling), Layer.provide(platform))
    return Effect.gen(function* () {
      const outcome = yield* ToolLoop.run({ prompt: "ask the server" })
      expect(outcome.text).toContain("Ultramarine")
      expect(consents).toStrictEqual(["web"])
      expect(model.received.map((entry) => entry.mode)).toStrictEqual(["stream", "generate", "stream"])
    }).pipe(Effect.provide(Layer.mergeAll(McpToolkit.layer().pipe(Layer.provide(host)), model.layer)))
  })

  it.live("a declined sampling request reaches the server as an error, which the model sees", () => {
    const model = scriptedModel({
      turns: [
        () => ({ calls: [{ name: "alpha__trigger-sampling-request", params: { prompt: "secret", maxTokens: 5 } }] }),
        (request) => {
          const [result] = lastToolResults(request.prompt)
          expect(result?.isFailure).toBe(true)
          expect(result?.text).toContain("declined")
          return { text: "The user said no." }
        }
      ]
    })
    const sampling = SamplingModel.layer({ consent: () => Effect.succeed(false) }).pipe(Layer.provide(model.layer))
    const host = McpHost.layer({ servers: servers() }).pipe(Layer.provide(sampling), Layer.provide(platform))
    return Effect.gen(function* () {
      const outcome = yield* ToolLoop.run({ prompt: "ask the server" })
      expect(outcome.text).toBe("The user said no.")
      expect(model.received.map((entry) => entry.mode)).toStrictEqual(["stream", "stream"])
    }).pipe(Effect.provide(Layer.mergeAll(McpToolkit.layer().pipe(Layer.provide(host)), model.layer)))
  })

  it.live("interrupting a turn mid-call cancels the running call on its server", () => {
    const { layer } = setup({ turns: [() => ({ calls: [{ name: "workshop__wait", params: { label: "forever" } }] })] })
    return Effect.gen(function* () {
      const host = yield* McpHost.McpHost
      // The turn ends (its stream is dropped) as soon as the tool reports progress.
      const seen = yield* ToolLoop.stream({ prompt: "wait" }).pipe(
        Stream.takeUntil((event) => event._tag === "ToolProgress"),
        Stream.runCollect,
        Effect.map(Chunk.toArray)
      )
      expect(seen.map((event) => event._tag)).toStrictEqual(["ToolCallStarted", "ToolProgress"])
      const journal = yield* host.callTool("workshop__journal").pipe(
        Effect.map((result) => JSON.parse(result.content[0]?.type === "text" ? result.content[0].text : "{}")),
        Effect.filterOrFail((recorded: { cancelled: Array<unknown> }) => recorded.cancelled.length > 0),
        Effect.retry(Schedule.spaced("20 millis").pipe(Schedule.intersect(Schedule.recurs(100))))
      )
      expect(journal.cancelled).toHaveLength(1)
      const client = yield* host.client("workshop")
      expect((yield* client.stats).pending).toBe(0)
    }).pipe(noFibersLeft, Effect.provide(layer))
  })

  it.live("asks before destructive tools; a declined call is not run and the model hears why", () => {
    const asked: Array<string> = []
    const { layer } = setup({
      turns: [
        () => ({
          calls: [
            { name: "workshop__delete", params: { path: "/important" } },
            { name: "alpha__echo", params: { message: "harmless" } }
          ]
        }),
        (request) => {
          const results = lastToolResults(request.prompt)
          expect(results.map((result) => result.isFailure)).toStrictEqual([true, false])
          expect(results[0]?.text).toContain("declined")
          return { text: "I did not delete it." }
        }
      ]
    })
    return Effect.gen(function* () {
      const host = yield* McpHost.McpHost
      yield* ToolLoop.run({
        prompt: "delete /important",
        approve: ToolLoop.approveDestructive((call) =>
          Effect.sync(() => asked.push(call.name)).pipe(Effect.as(call.name !== "workshop__delete"))
        )
      })
      // Read-only tools are never asked about; the others are, one at a time, before any runs.
      expect(asked).toContain("workshop__delete")
      expect(asked).not.toContain("workshop__wait")
      const journal = yield* host.callTool("workshop__journal")
      expect(JSON.stringify(journal.content)).toContain('\\"deleted\\":[]')
    }).pipe(Effect.provide(layer))
  })

  it.live("the toolkit follows the servers' tool lists", () => {
    const { layer } = setup({ turns: [] })
    return Effect.gen(function* () {
      const toolkit = yield* McpToolkit.McpToolkit
      const names = Effect.map(toolkit.tools, (tools) => tools.map((tool) => tool.modelName))
      expect(yield* names).not.toContain("workshop__extra")
      const grown = yield* toolkit.call("workshop__grow", {})
      expect(grown.isError).toBe(false)
      const after = yield* names.pipe(
        Effect.filterOrFail((current) => current.includes("workshop__extra")),
        Effect.retry(Schedule.spaced("20 millis").pipe(Schedule.intersect(Schedule.recurs(100))))
      )
      expect(after).toContain("workshop__extra")
      expect((yield* toolkit.call("workshop__extra", {})).output.content).toStrictEqual([
        { type: "text", text: "extra ran" }
      ])
      // The same toolkit drives @effect/ai's own tool resolution.
      const withHandler = yield* toolkit.toolkit
      const handled = yield* withHandler.handle("alpha__echo", { message: "via handle" })
      expect(handled.isFailure).toBe(false)
      expect(JSON.stringify(handled.result)).toContain("via handle")
    }).pipe(Effect.provide(layer))
  })

  it.live("LanguageModel.generateText resolves MCP tool calls through the toolkit", () => {
    const { layer } = setup({ samples: [() => ({ calls: [{ name: "web__get-sum", params: { a: 1, b: 2 } }] })] })
    return Effect.gen(function* () {
      const toolkit = yield* McpToolkit.McpToolkit
      const response = yield* LanguageModel.generateText({ prompt: "add", toolkit: toolkit.toolkit })
      const [result] = response.toolResults
      expect(result?.isFailure).toBe(false)
      expect(JSON.stringify(result?.result)).toContain("3")
    }).pipe(Effect.provide(layer))
  })
})
