/**
 * Every API method of the client against the official TypeScript SDK's server (a real,
 * independent implementation), in process over the in-memory transport.
 */

import { describe, expect, it } from "@effect/vitest"
import { Capabilities, McpError, Skills } from "@effect-mcp/client"
import * as Chunk from "effect/Chunk"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { connectSdk } from "./support/connect.js"

/** What every client declares besides its handlers' capabilities: the extensions it implements. */
const extensions = { extensions: { [Skills.EXTENSION]: {} } }

const textOf = (result: { readonly content: ReadonlyArray<{ readonly type: string }> }) =>
  result.content.map((block) => ("text" in block ? block.text : block.type)).join("")

describe("McpClient against the official SDK server", () => {
  it.scoped("performs the handshake and exposes what the server declared", () =>
    Effect.gen(function* () {
      const { client, observed } = yield* connectSdk()
      expect(client.protocolVersion).toBe("2025-11-25")
      expect(client.serverInfo).toMatchObject({ name: "sdk-test-server", version: "1.2.3", title: "SDK test server" })
      expect(client.instructions).toStrictEqual(Option.some("Use the tools wisely."))
      expect(client.serverCapabilities).toMatchObject({ tools: {}, logging: {}, resources: { subscribe: true } })
      expect((yield* client.state)._tag).toBe("Ready")
      expect(observed.clientCapabilities()).toStrictEqual(extensions)
    })
  )

  it.scoped("pings", () =>
    Effect.gen(function* () {
      const { client } = yield* connectSdk()
      yield* client.ping()
    })
  )

  it.scoped("lists tools as an array (cached) and as a stream", () =>
    Effect.gen(function* () {
      const { client } = yield* connectSdk()
      const tools = yield* client.tools
      expect(tools.map((tool) => tool.name)).toContain("echo")
      expect(yield* client.tools).toBe(tools)
      const streamed = yield* Stream.runCollect(client.toolsStream)
      expect(Chunk.toReadonlyArray(streamed).map((tool) => tool.name)).toStrictEqual(tools.map((tool) => tool.name))
    })
  )

  it.scoped("calls tools: text, structured content validated against the outputSchema, isError", () =>
    Effect.gen(function* () {
      const { client } = yield* connectSdk()
      expect(textOf(yield* client.callTool("echo", { message: "hi" }))).toBe("echo: hi")
      const sum = yield* client.callTool("add", { a: 2, b: 3 })
      expect(sum.structuredContent).toStrictEqual({ sum: 5 })
      const failed = yield* client.callTool("fail")
      expect(failed.isError).toBe(true)
    })
  )

  it.scoped("an unknown tool is the server's isError result (the SDK v1 answers so), which the call returns", () =>
    Effect.gen(function* () {
      const { client } = yield* connectSdk()
      const result = yield* client.callTool("nope")
      expect(result).toStrictEqual({
        isError: true,
        content: [{ type: "text", text: "MCP error -32602: Tool nope not found" }]
      })
    })
  )

  it.live("receives progress by callback and as a stream", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { client } = yield* connectSdk()
        const seen: Array<number> = []
        const result = yield* client.callTool(
          "slow",
          { steps: 3, ms: 1 },
          { onProgress: (progress) => Effect.sync(() => seen.push(progress.progress)) }
        )
        expect(textOf(result)).toBe("done")
        expect(seen).toStrictEqual([1, 2, 3])
        const events = yield* Stream.runCollect(client.callToolStream("slow", { steps: 2, ms: 1 }))
        expect(Chunk.toReadonlyArray(events).map((event) => event._tag)).toStrictEqual([
          "Progress",
          "Progress",
          "Result"
        ])
        expect(Chunk.toReadonlyArray(events)[1]).toMatchObject({ progress: 2, total: 2, message: "step 2" })
      })
    )
  )

  it.live("interrupting a call cancels it on the server", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { client, observed } = yield* connectSdk()
        const started = yield* Deferred.make<void>()
        const call = yield* client
          .callTool("slow", { steps: 100, ms: 20 }, { onProgress: () => Deferred.succeed(started, undefined) })
          .pipe(Effect.fork)
        yield* Deferred.await(started)
        yield* Fiber.interrupt(call)
        yield* client.ping().pipe(Effect.repeat({ until: () => observed.cancelled.length > 0, times: 200 }))
        expect(observed.cancelled.length).toBe(1)
        expect((yield* client.stats).pending).toBe(0)
      })
    )
  )

  it.scoped("lists, reads and completes resources and templates", () =>
    Effect.gen(function* () {
      const { client } = yield* connectSdk()
      const resources = yield* client.resources
      expect(resources.map((resource) => resource.uri)).toStrictEqual(["test://static/readme"])
      expect(Chunk.toReadonlyArray(yield* Stream.runCollect(client.resourcesStream))).toStrictEqual(resources)
      const templates = yield* client.resourceTemplates
      expect(templates.map((template) => template.uriTemplate)).toStrictEqual(["test://items/{id}"])
      const read = yield* client.readResource("test://items/7")
      expect(read.contents).toStrictEqual([{ uri: "test://items/7", text: "item 7" }])
      const completion = yield* client.complete({
        ref: { type: "ref/resource", uri: "test://items/{id}" },
        argument: { name: "id", value: "1" }
      })
      expect(completion.values).toStrictEqual(["1", "10", "11"])
    })
  )

  it.live("subscribes to a resource and receives its updates, until unsubscribed", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { client, observed } = yield* connectSdk()
        const updates = yield* client.resourceUpdates.pipe(Stream.take(1), Stream.runCollect, Effect.fork)
        yield* Effect.yieldNow()
        yield* client.subscribe("test://static/readme")
        expect(observed.subscriptions.has("test://static/readme")).toBe(true)
        yield* client.callTool("touch", { uri: "test://static/readme" })
        const received = yield* Fiber.join(updates)
        expect(Chunk.toReadonlyArray(received)).toStrictEqual([{ uri: "test://static/readme" }])
        yield* client.unsubscribe("test://static/readme")
        expect(observed.subscriptions.size).toBe(0)
      })
    )
  )

  it.scoped("lists and gets prompts, and completes their arguments", () =>
    Effect.gen(function* () {
      const { client } = yield* connectSdk()
      const prompts = yield* client.prompts
      expect(prompts).toMatchObject([
        { name: "greet", title: "Greeting", arguments: [{ name: "name", required: true }] }
      ])
      const prompt = yield* client.getPrompt("greet", { name: "Ada" })
      expect(prompt.messages).toStrictEqual([{ role: "user", content: { type: "text", text: "Hello, Ada!" } }])
    })
  )

  it.live("sets the logging level and streams log messages", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { client } = yield* connectSdk()
        yield* client.setLoggingLevel("warning")
        const messages = yield* client.logMessages.pipe(Stream.take(2), Stream.runCollect, Effect.fork)
        yield* Effect.yieldNow()
        yield* client.callTool("log")
        const levels = Chunk.toReadonlyArray(yield* Fiber.join(messages)).map((message) => message.level)
        expect(levels).toStrictEqual(["warning", "error"])
      })
    )
  )

  it.live("keeps the tool list fresh on list_changed and says so", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { client } = yield* connectSdk()
        const before = yield* client.tools
        const changed = yield* client.listChanged.pipe(Stream.take(1), Stream.runCollect, Effect.fork)
        const raw = yield* client.notifications.pipe(
          Stream.filter((notification) => notification.method === "notifications/tools/list_changed"),
          Stream.runHead,
          Effect.fork
        )
        yield* Effect.yieldNow()
        yield* client.callTool("grow")
        expect(Chunk.toReadonlyArray(yield* Fiber.join(changed))).toStrictEqual(["tools"])
        expect(yield* Fiber.join(raw)).toMatchObject(
          Option.some({ jsonrpc: "2.0", method: "notifications/tools/list_changed" })
        )
        const after = yield* client.tools
        expect(after.length).toBe(before.length + 1)
        expect(after.map((tool) => tool.name)).toContain("grown")
      })
    )
  )

  it.live("answers sampling with the Sampling handler, and declares the capability", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const sampling = Layer.succeed(Capabilities.Sampling, {
          createMessage: (params, context) =>
            Effect.succeed({
              role: "assistant" as const,
              model: `test-model/${context.server}`,
              content: { type: "text" as const, text: `4 (asked ${params.messages.length})` }
            })
        })
        const { client, observed } = yield* connectSdk(sampling)
        expect(observed.clientCapabilities()).toStrictEqual({ ...extensions, sampling: {} })
        expect(textOf(yield* client.callTool("sample"))).toBe("model test-model/sdk said 4 (asked 1)")
      })
    )
  )

  it.live("the server cancelling its request interrupts our handler, which sends no answer", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const interrupted = yield* Deferred.make<void>()
        const sampling = Layer.succeed(Capabilities.Sampling, {
          createMessage: () => Effect.never.pipe(Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined)))
        })
        const { client } = yield* connectSdk(sampling)
        expect(textOf(yield* client.callTool("sample-then-cancel"))).toBe("cancelled")
        yield* Deferred.await(interrupted)
        expect((yield* client.stats).inbound).toBe(0)
      })
    )
  )

  it.live("a server request for an undeclared capability is answered with an error", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { client } = yield* connectSdk()
        const result = yield* Effect.either(client.callTool("sample"))
        const text = result._tag === "Right" ? textOf(result.right) : result.left.message
        expect(text).toMatch(/sampling|Method not found|-32601/i)
      })
    )
  )

  it.live("answers form elicitation, filling defaults and checking the schema", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const elicitation = Layer.succeed(Capabilities.Elicitation, {
          form: (params) =>
            Effect.succeed({
              action: "accept" as const,
              content: { name: params.message === "Who are you?" ? "Ada" : "?" }
            })
        })
        const { client, observed } = yield* connectSdk(elicitation)
        expect(observed.clientCapabilities()).toStrictEqual({ ...extensions, elicitation: { form: {} } })
        const answer = JSON.parse(textOf(yield* client.callTool("ask")))
        expect(answer).toStrictEqual({ action: "accept", content: { name: "Ada", age: 30, color: "green" } })
      })
    )
  )

  it.live("refuses to send form content that breaks the requested schema", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const elicitation = Layer.succeed(Capabilities.Elicitation, {
          form: () => Effect.succeed({ action: "accept" as const, content: { name: "" } })
        })
        const { client } = yield* connectSdk(elicitation)
        const result = yield* Effect.either(client.callTool("ask"))
        const text = result._tag === "Right" ? textOf(result.right) : result.left.message
        expect(text).toContain("does not match the requested schema")
      })
    )
  )

  it.live("answers URL elicitation with the url handler", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const seen: Array<string> = []
        const elicitation = Layer.succeed(Capabilities.Elicitation, {
          url: (params) => Effect.sync(() => seen.push(params.url)).pipe(Effect.as({ action: "decline" as const }))
        })
        const { client, observed } = yield* connectSdk(elicitation)
        expect(observed.clientCapabilities()).toStrictEqual({ ...extensions, elicitation: { url: {} } })
        expect(textOf(yield* client.callTool("visit"))).toBe("decline")
        expect(seen).toStrictEqual(["https://example.com/sign-in"])
      })
    )
  )

  it.live("answers roots/list with the Roots handler", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const roots = Layer.succeed(Capabilities.Roots, {
          list: Effect.succeed([{ uri: "file:///work", name: "work" }])
        })
        const { client, observed } = yield* connectSdk(roots)
        expect(observed.clientCapabilities()).toStrictEqual({ ...extensions, roots: {} })
        expect(textOf(yield* client.callTool("roots"))).toBe("file:///work")
      })
    )
  )

  it.scoped(
    "closing the scope closes the session: Closing then Closed, calls fail typed, the server sees the end",
    () =>
      Effect.gen(function* () {
        const outer = yield* Effect.scope
        const { client, observed, states } = yield* Effect.scoped(
          Effect.gen(function* () {
            const { client, observed } = yield* connectSdk()
            // Watched from outside the client's scope, so the last states are seen too.
            const states = yield* client.stateChanges.pipe(
              Stream.takeUntil((state) => state._tag === "Closed" || state._tag === "Failed"),
              Stream.map((state) => state._tag),
              Stream.runCollect,
              Effect.forkIn(outer)
            )
            yield* client.ping()
            expect(observed.closed()).toBe(false)
            return { client, observed, states }
          })
        )
        expect(Chunk.toReadonlyArray(yield* Fiber.join(states))).toStrictEqual(["Ready", "Closing", "Closed"])
        expect((yield* client.state)._tag).toBe("Closed")
        const error = yield* Effect.flip(client.ping())
        expect(error).toBeInstanceOf(McpError.SessionUnavailable)
        expect(error.message).toBe("sdk: the session is unavailable: the session is Closed")
        expect(observed.closed()).toBe(true)
      })
  )
})
