/**
 * The scenarios every transport must pass against the reference server
 * (`@modelcontextprotocol/server-everything`), with test handlers for its sampling,
 * elicitation and roots triggers.
 */

import { describe, expect, it } from "@effect/vitest"
import type { Transport } from "@effect-mcp/client"
import { Capabilities, McpClient, type McpError } from "@effect-mcp/client"
import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { noFibersLeft } from "./fibers.js"

/** What the handlers saw. */
interface Seen {
  readonly sampling: Array<string>
  readonly urls: Array<string>
  readonly rootsListed: Array<number>
}

const handlers = (seen: Seen) =>
  Layer.mergeAll(
    Layer.succeed(Capabilities.Sampling, {
      createMessage: (params) =>
        Effect.sync(() => {
          const content = params.messages[0]?.content
          const blocks = content === undefined ? [] : Array.isArray(content) ? content : [content]
          seen.sampling.push(blocks.map((block) => (block.type === "text" ? block.text : block.type)).join(""))
          return { role: "assistant" as const, model: "scripted-model", content: { type: "text" as const, text: "42" } }
        })
    }),
    Layer.succeed(Capabilities.Elicitation, {
      form: (params) =>
        Effect.succeed({
          action: "accept" as const,
          content: Object.fromEntries(
            (params.requestedSchema.required ?? []).map((name) => {
              const field = params.requestedSchema.properties[name]
              const value =
                field?.type === "boolean" ? true : field?.type === "integer" || field?.type === "number" ? 7 : "Ada"
              return [name, value]
            })
          )
        }),
      url: (params) => Effect.sync(() => seen.urls.push(params.url)).pipe(Effect.as({ action: "accept" as const }))
    }),
    Layer.succeed(Capabilities.Roots, {
      list: Effect.sync(() => {
        seen.rootsListed.push(Date.now())
        return [{ uri: "file:///tmp/effect-mcp-root", name: "test root" }]
      })
    })
  )

const textOf = (result: { readonly content: ReadonlyArray<{ readonly type: string }> }) =>
  result.content.map((block) => ("text" in block ? String(block.text) : block.type)).join("\n")

/**
 * Runs the reference-server scenarios over a transport layer. `after` runs after each scenario's
 * scope closed (to assert that nothing is left behind).
 */
export const everythingSuite = <E>(
  mode: string,
  transport: () => Layer.Layer<Transport.Transport, E>,
  after: Effect.Effect<void> = Effect.void
) => {
  const connect = Effect.gen(function* () {
    const seen: Seen = { sampling: [], urls: [], rootsListed: [] }
    const layer = McpClient.layer({ name: `everything-${mode}`, requestTimeout: "30 seconds" }).pipe(
      Layer.provide(transport()),
      Layer.provide(handlers(seen))
    )
    const client = Context.get(yield* Layer.build(layer), McpClient.McpClient)
    return { client, seen }
  })

  /** The conditional tools appear once the server has seen our capabilities; wait for them. */
  const toolNames = (client: McpClient.McpClientService) =>
    Effect.gen(function* () {
      for (let attempt = 0; attempt < 100; attempt++) {
        const names = (yield* client.tools).map((tool) => tool.name)
        if (names.includes("trigger-sampling-request")) return names
        yield* Effect.sleep("50 millis")
      }
      return (yield* client.tools).map((tool) => tool.name)
    })

  const scenario = (
    name: string,
    body: (
      client: McpClient.McpClientService,
      seen: Seen
    ) => Effect.Effect<void, McpError.RequestError | McpError.ToolOutputInvalid | McpError.TaskRequired>
  ) =>
    it.live(name, () =>
      noFibersLeft(
        Effect.scoped(
          Effect.flatMap(connect, ({ client, seen }) =>
            body(client, seen).pipe(
              Effect.zipRight(client.stats),
              // A real server sends nothing the client has to count as a violation.
              Effect.tap((stats) =>
                expect(stats.violations).toStrictEqual({ "unknown-id": 0, malformed: 0, "malformed-response": 0 })
              )
            )
          )
        )
      ).pipe(Effect.zipRight(after))
    )

  describe(`the reference server over ${mode}`, () => {
    scenario("handshake, server info and capabilities, ping", (client) =>
      Effect.gen(function* () {
        expect(client.serverInfo.name).toBe("mcp-servers/everything")
        expect(client.protocolVersion).toBe("2025-11-25")
        expect(client.serverCapabilities).toMatchObject({
          logging: {},
          completions: {},
          prompts: { listChanged: true },
          resources: { subscribe: true, listChanged: true },
          tools: { listChanged: true }
        })
        yield* client.ping()
      })
    )

    scenario(
      "tools: list (with conditional ones), echo, sum, structured content checked against its schema",
      (client) =>
        Effect.gen(function* () {
          const names = yield* toolNames(client)
          expect(names).toEqual(
            expect.arrayContaining([
              "echo",
              "get-sum",
              "get-structured-content",
              "trigger-elicitation-request",
              "get-roots-list"
            ])
          )
          expect(textOf(yield* client.callTool("echo", { message: "hello" }))).toBe("Echo: hello")
          expect(textOf(yield* client.callTool("get-sum", { a: 2, b: 40 }))).toContain("42")
          const weather = yield* client.callTool("get-structured-content", { location: "Chicago" })
          expect(weather.structuredContent).toMatchObject({ temperature: expect.any(Number) })
          const image = yield* client.callTool("get-tiny-image")
          expect(image.content.map((block) => block.type)).toContain("image")
        })
    )

    scenario("a long-running tool reports progress", (client) =>
      Effect.gen(function* () {
        const events = yield* Stream.runCollect(
          client.callToolStream("trigger-long-running-operation", { duration: 0.3, steps: 3 })
        )
        const tags = Chunk.toReadonlyArray(events).map((event) => event._tag)
        expect(tags).toStrictEqual(["Progress", "Progress", "Progress", "Result"])
      })
    )

    scenario("sampling, elicitation (form and URL) and roots requests reach our handlers", (client, seen) =>
      Effect.gen(function* () {
        yield* toolNames(client)
        const sampled = yield* client.callTool("trigger-sampling-request", {
          prompt: "What is the answer?",
          maxTokens: 5
        })
        expect(textOf(sampled)).toContain("42")
        expect(seen.sampling.length).toBe(1)
        expect(seen.sampling[0]).toContain("What is the answer?")
        const elicited = yield* client.callTool("trigger-elicitation-request")
        expect(textOf(elicited)).toContain("Ada")
        const url = "https://example.com/authorize"
        yield* client.callTool("trigger-url-elicitation", { url })
        expect(seen.urls).toStrictEqual([url])
        const roots = yield* client.callTool("get-roots-list")
        expect(textOf(roots)).toContain("file:///tmp/effect-mcp-root")
        expect(seen.rootsListed.length).toBeGreaterThanOrEqual(1)
      })
    )

    scenario("resources: list, templates, read text and blob, subscribe and receive updates", (client) =>
      Effect.gen(function* () {
        const resources = yield* client.resources
        expect(resources.filter((resource) => resource.uri.startsWith("demo://resource/static/document/")).length).toBe(
          7
        )
        const templates = yield* client.resourceTemplates
        expect(templates.map((template) => template.uriTemplate)).toStrictEqual([
          "demo://resource/dynamic/text/{resourceId}",
          "demo://resource/dynamic/blob/{resourceId}"
        ])
        const text = yield* client.readResource("demo://resource/dynamic/text/1")
        expect(text.contents[0]).toMatchObject({ uri: "demo://resource/dynamic/text/1", text: expect.any(String) })
        const blob = yield* client.readResource("demo://resource/dynamic/blob/2")
        expect(blob.contents[0]).toMatchObject({ blob: expect.any(String) })
        const uri = resources[0]?.uri ?? ""
        const update = yield* client.resourceUpdates.pipe(Stream.runHead, Effect.fork)
        yield* Effect.yieldNow()
        yield* client.subscribe(uri)
        yield* client.callTool("toggle-subscriber-updates")
        const received = yield* Fiber.join(update).pipe(Effect.timeout("10 seconds"), Effect.orDie)
        expect(received._tag).toBe("Some")
        yield* client.unsubscribe(uri)
      })
    )

    scenario("prompts: list, get with arguments, and argument completion", (client) =>
      Effect.gen(function* () {
        const prompts = yield* client.prompts
        expect(prompts.map((prompt) => prompt.name)).toEqual(
          expect.arrayContaining(["simple-prompt", "args-prompt", "completable-prompt", "resource-prompt"])
        )
        const prompt = yield* client.getPrompt("args-prompt", { city: "Lisbon" })
        expect(JSON.stringify(prompt.messages)).toContain("Lisbon")
        const completion = yield* client.complete({
          ref: { type: "ref/prompt", name: "completable-prompt" },
          argument: { name: "department", value: "Eng" }
        })
        expect(completion.values).toContain("Engineering")
      })
    )

    scenario("logging: the level is set and log messages arrive", (client) =>
      Effect.gen(function* () {
        yield* client.setLoggingLevel("debug")
        const first = yield* client.logMessages.pipe(Stream.runHead, Effect.fork)
        yield* Effect.yieldNow()
        yield* client.callTool("toggle-simulated-logging")
        const message = yield* Fiber.join(first).pipe(Effect.timeout("10 seconds"), Effect.orDie)
        expect(message._tag).toBe("Some")
      })
    )
  })
}
