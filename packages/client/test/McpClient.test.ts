/** The session and the client against scripted servers: negotiation, capabilities and every failure path. */

import { describe, expect, it } from "@effect/vitest"
import { Capabilities, InMemoryTransport, McpClient, McpError, SessionState, Transport } from "@effect-mcp/client"
import { JsonRpc, McpSchema } from "@effect-mcp/protocol"
import * as Arbitrary from "effect/Arbitrary"
import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FastCheck from "effect/FastCheck"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import { withCheck } from "../src/internal/features/jsonSchema.js"
import * as ServerRequests from "../src/internal/features/serverRequests.js"
import * as SessionInternal from "../src/internal/session/session.js"
import { connectScripted, initializeResult, methods, type Reply, scriptedLayer } from "./support/scriptedServer.js"

const tool = (name: string, extra: object = {}) => ({ name, inputSchema: { type: "object" }, ...extra })

describe("McpClient session", () => {
  it.scoped("sends nothing before initialize completes, then initialized, then requests", () =>
    Effect.gen(function* () {
      const { client, sent } = yield* connectScripted((request) =>
        request.method === "initialize" ? initializeResult({ tools: {} }) : { result: { tools: [] } }
      )
      yield* client.tools
      expect(methods(sent)).toStrictEqual(["initialize", "notifications/initialized", "tools/list"])
      expect(sent[0]).toMatchObject({
        params: { protocolVersion: "2025-11-25", clientInfo: { name: "effect-mcp" }, capabilities: {} }
      })
    })
  )

  it.scoped("a call for a feature the server did not declare fails before anything is sent", () =>
    Effect.gen(function* () {
      const { client, sent } = yield* connectScripted(() => initializeResult({ resources: {} }))
      const attempts: ReadonlyArray<Effect.Effect<unknown, { readonly _tag: string }>> = [
        client.callTool("x"),
        client.prompts,
        client.setLoggingLevel("info"),
        client.subscribe("file:///a"),
        client.complete({ ref: { type: "ref/prompt", name: "p" }, argument: { name: "a", value: "" } })
      ]
      for (const attempt of attempts) {
        const error = yield* Effect.flip(attempt)
        expect(error._tag).toBe("CapabilityNotSupported")
      }
      expect(methods(sent)).toStrictEqual(["initialize", "notifications/initialized"])
      const error = yield* Effect.flip(client.callTool("x"))
      expect(error.message).toBe(
        "scripted: tools/call needs the server capability tools, which the server did not declare"
      )
    })
  )

  it.effect("an unsupported version fails the layer with both versions named, and the session ends Failed", () =>
    Effect.gen(function* () {
      const unsupported = () => initializeResult({}, "2099-01-01")
      const error = yield* Effect.flip(Effect.scoped(connectScripted(unsupported)))
      if (!(error instanceof McpError.UnsupportedProtocolVersion)) return expect.unreachable(String(error))
      expect(error).toMatchObject({ requested: "2025-11-25", received: "2099-01-01" })
      expect(error.message).toContain("it requested 2025-11-25")
      // The session under the layer: its start fails the same way, and it is Failed with that cause.
      const { transport, options } = scriptedLayer(unsupported)
      yield* Effect.gen(function* () {
        const { service: session, start } = yield* SessionInternal.make({
          server: "scripted",
          clientInfo: { name: "c", version: "1" },
          protocolVersion: options.protocolVersion ?? "auto",
          requestTimeout: "10 seconds",
          sessionRetries: 1,
          probeTimeout: "10 seconds",
          maxInputRounds: 10,
          capabilities: {},
          serve: ServerRequests.serveWith({
            sampling: Option.none(),
            elicitation: Option.none(),
            roots: Option.none()
          }),
          retry: undefined,
          maxInFlight: undefined,
          maxQueued: undefined
        })
        const failure = yield* Effect.flip(start)
        expect(failure._tag).toBe("UnsupportedProtocolVersion")
        const state = yield* session.state
        expect(state._tag).toBe("Failed")
        expect(state._tag === "Failed" && state.cause).toBe(failure)
      }).pipe(Effect.provide(transport), Effect.scoped)
    })
  )

  it.scoped("negotiates down to an older revision and encodes for it", () =>
    Effect.gen(function* () {
      const { client, sent } = yield* connectScripted(
        (request) =>
          request.method === "initialize"
            ? initializeResult({ tools: {}, completions: {} }, "2025-03-26")
            : request.method === "tools/call"
              ? { result: { content: [] } }
              : { result: { completion: { values: [] } } },
        { clientInfo: { name: "c", version: "1", title: "C", icons: [] } }
      )
      expect(client.protocolVersion).toBe("2025-03-26")
      yield* client.request("tools/call", { name: "t", task: { ttl: 1 } })
      yield* client.complete({
        ref: { type: "ref/prompt", name: "p", title: "P" },
        argument: { name: "a", value: "" },
        context: {}
      })
      const call = sent.find((message) => "method" in message && message.method === "tools/call")
      expect(call).toMatchObject({ params: { name: "t" } })
      expect(JSON.stringify(call)).not.toContain("task")
      const complete = sent.find((message) => "method" in message && message.method === "completion/complete")
      expect(JSON.stringify(complete)).not.toContain("context")
      expect(JSON.stringify(complete)).not.toContain("title")
      const tasks = yield* Effect.flip(client.request("tasks/list", {}))
      expect(tasks._tag).toBe("UnrepresentableMessage")
    })
  )

  it.scoped("a Roots handler with changes sends notifications/roots/list_changed", () =>
    Effect.gen(function* () {
      const changes = yield* Queue.unbounded<void>()
      const roots = Layer.succeed(Capabilities.Roots, {
        list: Effect.succeed([{ uri: "file:///a" }]),
        changes: Stream.fromQueue(changes)
      })
      const { sent } = yield* connectScripted(() => initializeResult(), {}, roots)
      expect(sent[0]).toMatchObject({ params: { capabilities: { roots: { listChanged: true } } } })
      yield* Queue.offer(changes, undefined)
      yield* Effect.yieldNow().pipe(Effect.repeat({ until: () => sent.length > 2, times: 100 }))
      expect(methods(sent)).toStrictEqual([
        "initialize",
        "notifications/initialized",
        "notifications/roots/list_changed"
      ])
    })
  )

  it.scoped("sends typed notifications, encoded for the negotiated revision", () =>
    Effect.gen(function* () {
      const { client, sent } = yield* connectScripted(() => initializeResult({}, "2024-11-05"))
      yield* client.notify("notifications/progress", {
        progressToken: "t",
        progress: 1,
        message: "newer than 2024-11-05"
      })
      const refused = yield* Effect.flip(client.notify("notifications/cancelled", { reason: "no id" }))
      expect(refused._tag).toBe("UnrepresentableMessage")
      yield* client.ping()
      const progress = sent.find((message) => "method" in message && message.method === "notifications/progress")
      expect(progress).toStrictEqual({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: "t", progress: 1 }
      })
    })
  )

  it.scoped("pages through lists, and refuses a server that repeats a cursor", () =>
    Effect.gen(function* () {
      let page = 0
      const { client } = yield* connectScripted((request) => {
        if (request.method === "initialize") return initializeResult({ tools: {}, prompts: {} })
        if (request.method === "tools/list") {
          page++
          return { result: { tools: [tool(`t${page}`)], ...(page < 3 ? { nextCursor: `c${page}` } : {}) } }
        }
        return { result: { prompts: [], nextCursor: "same" } }
      })
      expect((yield* client.tools).map((t) => t.name)).toStrictEqual(["t1", "t2", "t3"])
      const error = yield* Effect.flip(client.prompts)
      expect(error).toMatchObject({ _tag: "DecodeError", method: "prompts/list" })
      expect(error.message).toContain('repeated the cursor "same"')
    })
  )

  it.scoped("a list with stable cursors can be listed again: twice as a stream, after list_changed, templates", () =>
    Effect.gen(function* () {
      const outputSchema = { type: "object", properties: { n: { type: "number" } }, required: ["n"] }
      const pages = (request: { readonly params?: { readonly [key: string]: unknown } }, key: string) =>
        request.params?.cursor === "p2"
          ? {
              result: {
                [key]: key === "tools" ? [tool("b", { outputSchema })] : [{ name: "b", uriTemplate: "b://{x}" }]
              }
            }
          : {
              result: {
                [key]: key === "tools" ? [tool("a", { outputSchema })] : [{ name: "a", uriTemplate: "a://{x}" }],
                nextCursor: "p2"
              }
            }
      const { client, server } = yield* connectScripted((request) => {
        if (request.method === "initialize") return initializeResult({ tools: { listChanged: true }, resources: {} })
        if (request.method === "tools/list") return pages(request, "tools")
        if (request.method === "resources/templates/list") return pages(request, "resourceTemplates")
        return { result: { content: [], structuredContent: { n: "not a number" } } }
      })
      const names = (tools: Iterable<{ readonly name: string }>) => Array.from(tools, (entry) => entry.name)
      expect(names(yield* Stream.runCollect(client.toolsStream))).toStrictEqual(["a", "b"])
      expect(names(yield* Stream.runCollect(client.toolsStream))).toStrictEqual(["a", "b"])
      expect(names(yield* client.resourceTemplates)).toStrictEqual(["a", "b"])
      expect(names(yield* client.resourceTemplates)).toStrictEqual(["a", "b"])
      expect(names(yield* client.tools)).toStrictEqual(["a", "b"])
      const changed = yield* client.listChanged.pipe(Stream.take(1), Stream.runDrain, Effect.fork)
      yield* Effect.yieldNow()
      yield* server.send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" })
      yield* Fiber.join(changed)
      expect(names(yield* client.tools)).toStrictEqual(["a", "b"])
      // The output check still has the tool's definition after the refetch.
      const error = yield* Effect.flip(client.callTool("b"))
      expect(error).toMatchObject({ _tag: "ToolOutputInvalid", tool: "b" })
    })
  )

  it.scoped("a list change drops its cache while nobody reads listChanged; every reader hears each later one", () =>
    Effect.gen(function* () {
      const { client, server, sent } = yield* connectScripted((request) => {
        if (request.method === "initialize") return initializeResult({ tools: { listChanged: true } })
        if (request.method === "tools/list")
          return { result: { tools: [{ name: "a", inputSchema: { type: "object" } }] } }
        return { result: {} }
      })
      const listed = () => methods(sent).filter((method) => method === "tools/list").length
      const changed = Effect.zipRight(
        server.send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" }),
        // A ping answered after the notification: the dispatcher has handled it.
        client.ping()
      )
      yield* client.tools
      yield* changed
      yield* client.tools
      expect(listed()).toBe(2)
      const readers = yield* Effect.all(
        [1, 2].map(() => client.listChanged.pipe(Stream.take(2), Stream.runCollect, Effect.fork))
      )
      yield* Effect.yieldNow().pipe(Effect.repeatN(3))
      yield* changed
      yield* changed
      for (const reader of readers)
        expect(Chunk.toReadonlyArray(yield* Fiber.join(reader))).toStrictEqual(["tools", "tools"])
      yield* client.tools
      expect(listed()).toBe(3)
    })
  )

  it.scoped("after the client is closed, listChanged and the notification streams end for a new reader", () =>
    Effect.gen(function* () {
      const clientScope = yield* Scope.make()
      const { client } = yield* Scope.extend(
        connectScripted(() => initializeResult({ tools: { listChanged: true } })),
        clientScope
      )
      yield* Scope.close(clientScope, Exit.void)
      // Never run before the close (no hub made), and run after it: the stream ends at once.
      const readers = [
        yield* Effect.fork(Stream.runDrain(client.listChanged)),
        yield* Effect.fork(Stream.runDrain(client.logMessages))
      ]
      yield* Effect.yieldNow().pipe(Effect.repeatN(5))
      for (const reader of readers) {
        const exit = reader.unsafePoll()
        expect(exit !== null && Exit.isSuccess(exit)).toBe(true)
      }
    })
  )

  it.scoped(
    "resources and prompts are cached from their first use; their list_changed drops the cache, before that use too",
    () =>
      Effect.gen(function* () {
        const { client, server, sent } = yield* connectScripted((request) => {
          if (request.method === "initialize")
            return initializeResult({ resources: { listChanged: true }, prompts: { listChanged: true } })
          if (request.method === "resources/list") return { result: { resources: [{ name: "r", uri: "a://r" }] } }
          if (request.method === "prompts/list") return { result: { prompts: [{ name: "p" }] } }
          return { result: {} }
        })
        const changed = (kind: "resources" | "prompts") =>
          // A ping answered after the notification: the dispatcher has handled it.
          Effect.zipRight(server.send({ jsonrpc: "2.0", method: `notifications/${kind}/list_changed` }), client.ping())
        const lists = () => methods(sent).filter((method) => method.endsWith("/list"))
        yield* changed("resources")
        yield* changed("prompts")
        expect((yield* client.resources).map((resource) => resource.name)).toStrictEqual(["r"])
        expect((yield* client.prompts).map((prompt) => prompt.name)).toStrictEqual(["p"])
        yield* client.resources
        yield* client.prompts
        expect(lists()).toStrictEqual(["resources/list", "prompts/list"])
        yield* changed("resources")
        yield* client.resources
        yield* client.prompts
        expect(lists()).toStrictEqual(["resources/list", "prompts/list", "resources/list"])
        yield* changed("prompts")
        yield* client.prompts
        yield* client.resources
        expect(lists()).toStrictEqual(["resources/list", "prompts/list", "resources/list", "prompts/list"])
      })
  )

  it.effect("concurrent readers of a list cache share one fetch; an interrupted reader does not stop it", () =>
    Effect.gen(function* () {
      const { client, sent, server } = yield* connectScripted((request) =>
        request.method === "initialize" ? initializeResult({ tools: {} }) : "silent"
      )
      const listings = () => sent.filter((message) => "method" in message && message.method === "tools/list")
      const first = yield* Effect.fork(client.tools)
      const readers = yield* Effect.fork(
        Effect.all(
          Array.from({ length: 4 }, () => client.tools),
          { concurrency: 4 }
        )
      )
      for (let i = 0; i < 10; i++) yield* Effect.yieldNow()
      expect(listings()).toHaveLength(1)
      yield* Fiber.interrupt(first)
      const request = listings()[0]
      if (request === undefined || !JsonRpc.isRequest(request)) return expect.unreachable()
      yield* server.send({ jsonrpc: "2.0", id: request.id, result: { tools: [tool("only")] } })
      const results = yield* Fiber.join(readers)
      expect(results.map((tools) => tools.map((entry) => entry.name))).toStrictEqual(Array(4).fill(["only"]))
      expect((yield* client.tools).map((entry) => entry.name)).toStrictEqual(["only"])
      expect(listings()).toHaveLength(1)
    }).pipe(Effect.scoped)
  )

  it.effect("maxInFlight/maxQueued is first come, first served on a cold tool cache", () =>
    Effect.gen(function* () {
      const { client, sent, server } = yield* connectScripted(
        (request) => (request.method === "initialize" ? initializeResult({ tools: {} }) : "silent"),
        { maxInFlight: 1, maxQueued: 2 }
      )
      const sentOf = (method: string) =>
        sent.filter(
          (message): message is JsonRpc.JSONRPCRequest => JsonRpc.isRequest(message) && message.method === method
        )
      // Six callers, in order, while the tool list is not cached yet: all wait for the one tools/list.
      const callers = yield* Effect.forEach(
        Array.from({ length: 6 }, (_, n) => n),
        (n) => Effect.fork(Effect.either(client.callTool("t", { n }))),
        { concurrency: 1 }
      )
      for (let i = 0; i < 10; i++) yield* Effect.yieldNow()
      const [listing] = sentOf("tools/list")
      if (listing === undefined) return expect.unreachable()
      yield* server.send({ jsonrpc: "2.0", id: listing.id, result: { tools: [tool("t")] } })
      // The callers then wait for the JSON Schema engine (loaded at first use): so does the test.
      for (let i = 0; i < 20; i++) yield* Effect.yieldNow()
      yield* withCheck(Effect.succeed)
      for (let i = 0; i < 20; i++) yield* Effect.yieldNow()
      // The first caller runs, the next two wait in the queue, the last three are refused.
      const outcomes = yield* Effect.forEach(callers, Fiber.poll)
      expect(outcomes.map(Option.isSome)).toStrictEqual([false, false, false, true, true, true])
      for (const outcome of outcomes.slice(3))
        expect(Option.getOrUndefined(outcome)).toMatchObject({
          _tag: "Success",
          value: { _tag: "Left", left: { _tag: "Overloaded", limit: 1, queued: 2 } }
        })
      expect(sentOf("tools/call").map((call) => call.params?.arguments)).toStrictEqual([{ n: 0 }])
      // Each answer hands the slot to the next in the queue, in order.
      for (const n of [0, 1, 2]) {
        const call = sentOf("tools/call")[n]
        const caller = callers[n]
        if (call === undefined || caller === undefined) return expect.unreachable()
        expect(call.params?.arguments).toStrictEqual({ n })
        yield* server.send({ jsonrpc: "2.0", id: call.id, result: { content: [] } })
        const outcome = yield* Fiber.join(caller)
        expect(outcome._tag).toBe("Right")
        for (let i = 0; i < 10; i++) yield* Effect.yieldNow()
      }
    }).pipe(Effect.scoped)
  )

  it.scoped("tasks/list and tasks/cancel need the server's tasks.list and tasks.cancel capabilities", () =>
    Effect.gen(function* () {
      const { client, sent } = yield* connectScripted((request) =>
        request.method === "initialize"
          ? initializeResult({ tools: {}, tasks: { requests: { tools: { call: {} } } } })
          : { error: { code: -32601, message: "Method not found" } }
      )
      const listing = yield* Effect.flip(client.tasks.list)
      expect(listing).toMatchObject({ _tag: "CapabilityNotSupported", method: "tasks/list", capability: "tasks.list" })
      const cancelling = yield* Effect.flip(client.tasks.cancel("t1"))
      expect(cancelling).toMatchObject({
        _tag: "CapabilityNotSupported",
        method: "tasks/cancel",
        capability: "tasks.cancel"
      })
      expect(methods(sent)).toStrictEqual(["initialize", "notifications/initialized"])
    })
  )

  it.scoped("tool arguments are checked against the inputSchema before sending, unless turned off", () =>
    Effect.gen(function* () {
      const inputSchema = {
        type: "object",
        properties: { a: { type: "number" }, nested: { type: "object", properties: { b: { type: "string" } } } },
        required: ["a"]
      }
      const script = (request: JsonRpc.JSONRPCRequest): Reply =>
        request.method === "initialize"
          ? initializeResult({ tools: {} })
          : request.method === "tools/list"
            ? { result: { tools: [{ name: "sum", inputSchema }] } }
            : { result: { content: [] } }
      const { client, sent } = yield* connectScripted(script)
      const wrongType = yield* Effect.flip(client.callTool("sum", { a: 1, nested: { b: 2 } }))
      expect(wrongType).toMatchObject({ _tag: "InvalidInput", method: "tools/call", tool: "sum", pointer: "/nested/b" })
      expect(wrongType.message).toBe(
        "scripted: tools/call: the arguments of tool sum do not match its inputSchema at /nested/b: /nested/b must be string"
      )
      const missing = yield* Effect.flip(client.callTool("sum", {}))
      expect(missing).toMatchObject({ _tag: "InvalidInput", tool: "sum", pointer: "/a" })
      expect(methods(sent).filter((method) => method === "tools/call")).toHaveLength(0)
      // Per call, and per client.
      yield* client.callTool("sum", {}, { validateInput: false })
      yield* client.callTool("sum", { a: 1 })
      yield* client.callTool("unlisted", { anything: true })
      expect(methods(sent).filter((method) => method === "tools/call")).toHaveLength(3)
      const unchecked = yield* connectScripted(script, { validateToolInput: false })
      yield* unchecked.client.callTool("sum", { a: "x" })
      expect(methods(unchecked.sent)).toContain("tools/call")
    })
  )

  it.scoped("after list_changed the input check uses the tool's new inputSchema, even in an effect made before", () =>
    Effect.gen(function* () {
      let listed = 0
      const schema = (type: string) => ({ type: "object", properties: { a: { type } }, required: ["a"] })
      const { client, server, sent } = yield* connectScripted((request) => {
        if (request.method === "initialize") return initializeResult({ tools: { listChanged: true } })
        if (request.method === "tools/list")
          return { result: { tools: [tool("t", { inputSchema: schema(listed++ === 0 ? "number" : "string") })] } }
        return { result: { content: [] } }
      })
      yield* client.callTool("t", { a: 1 })
      // An effect kept and run again decides when it runs, not when it was made (the list is cached now).
      const kept = client.callTool("t", { a: 2 })
      yield* kept
      const changed = yield* client.listChanged.pipe(Stream.take(1), Stream.runDrain, Effect.fork)
      yield* Effect.yieldNow()
      // A notification whose method names an Object property is no list change (nor a crash).
      yield* server.send({ jsonrpc: "2.0", method: "constructor" })
      yield* server.send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" })
      yield* Fiber.join(changed)
      const error = yield* Effect.flip(client.callTool("t", { a: 3 }))
      expect(error).toMatchObject({ _tag: "InvalidInput", tool: "t", pointer: "/a" })
      expect(yield* Effect.flip(kept)).toMatchObject({ _tag: "InvalidInput", tool: "t", pointer: "/a" })
      yield* client.callTool("t", { a: "three" })
      expect(methods(sent).filter((method) => method === "tools/list")).toHaveLength(2)
      expect(methods(sent).filter((method) => method === "tools/call")).toHaveLength(3)
    })
  )

  it.scoped("an unnamed client names the server as it reports itself, in errors from every layer", () =>
    Effect.gen(function* () {
      const serve = (end: InMemoryTransport.End) =>
        Transport.incoming(end).pipe(
          Stream.runForEach((item) => {
            if (item._tag !== "Message" || !JsonRpc.isRequest(item.message)) return Effect.void
            const { id, method } = item.message
            return Effect.ignore(
              method === "initialize"
                ? end.send({
                    jsonrpc: "2.0",
                    id,
                    result: {
                      protocolVersion: "2025-11-25",
                      capabilities: {},
                      serverInfo: { name: "weather", version: "1" }
                    }
                  })
                : end.send({ jsonrpc: "2.0", id, error: { code: -32000, message: "no" } })
            )
          }),
          Effect.forkScoped,
          Effect.asVoid
        )
      const context = yield* Layer.build(McpClient.layer().pipe(Layer.provide(InMemoryTransport.layer(serve))))
      const client = Context.get(context, McpClient.McpClient)
      expect(client.name).toBe("weather")
      expect((yield* Effect.flip(client.prompts)).message).toBe(
        "weather: prompts/list needs the server capability prompts, which the server did not declare"
      )
      expect((yield* Effect.flip(client.ping())).message).toBe("weather: ping failed with -32000: no")
    })
  )

  it.scoped("an answer that does not match the protocol fails with a decode error naming the path", () =>
    Effect.gen(function* () {
      const { client } = yield* connectScripted((request) =>
        request.method === "initialize" ? initializeResult({ tools: {} }) : { result: { tools: [{ name: 7 }] } }
      )
      const error = yield* Effect.flip(client.tools)
      expect(error._tag).toBe("DecodeError")
      expect(error.message).toMatch(/\["tools"\][\s\S]*\[0\][\s\S]*\["name"\]/)
    })
  )

  it.scoped("structured content is checked against the tool's outputSchema (JSON Schema 2020-12)", () =>
    Effect.gen(function* () {
      const outputSchema = {
        type: "object",
        properties: { sum: { type: "number" } },
        required: ["sum"],
        unevaluatedProperties: false
      }
      const structured: Record<string, unknown> = { good: { sum: 1 }, bad: { sum: "one" }, extra: { sum: 1, x: 2 } }
      const { client } = yield* connectScripted((request) => {
        if (request.method === "initialize") return initializeResult({ tools: {} })
        if (request.method === "tools/list")
          return { result: { tools: ["good", "bad", "extra", "none"].map((n) => tool(n, { outputSchema })) } }
        const name = String(request.params?.name)
        const content = structured[name]
        return { result: { content: [], ...(content === undefined ? {} : { structuredContent: content }) } }
      })
      expect((yield* client.callTool("good")).structuredContent).toStrictEqual({ sum: 1 })
      for (const name of ["bad", "extra", "none"]) {
        const error = yield* Effect.flip(client.callTool(name))
        expect(error).toMatchObject({ _tag: "ToolOutputInvalid", tool: name })
      }
    })
  )

  it.effect(
    "a schema that cannot be compiled, input or output, is not checked against, with one warning per tool; the result is kept",
    () => {
      const warnings: Array<string> = []
      const logger = Logger.make(({ logLevel, message }) => {
        if (logLevel._tag === "Warning") warnings.push(String(Array.isArray(message) ? message[0] : message))
      })
      const wat = { type: "object", properties: { a: { type: "wat" } } }
      return Effect.gen(function* () {
        const { client, sent } = yield* connectScripted((request) => {
          if (request.method === "initialize") return initializeResult({ tools: {} })
          if (request.method === "tools/list")
            return {
              result: { tools: [{ name: "bad-in", inputSchema: wat }, tool("bad-out", { outputSchema: wat })] }
            }
          return { result: { content: [{ type: "text", text: "ran" }], structuredContent: { a: 1 } } }
        })
        for (let round = 0; round < 2; round++) {
          // The arguments are sent as given (nothing to check them against), the result comes back whole.
          for (const name of ["bad-in", "bad-out"]) {
            const result = yield* client.callTool(name, { a: "anything" })
            expect(result).toStrictEqual({ content: [{ type: "text", text: "ran" }], structuredContent: { a: 1 } })
          }
        }
        expect(sent.filter((message) => "method" in message && message.method === "tools/call")).toHaveLength(4)
        expect(warnings).toHaveLength(2)
        expect(warnings[0]).toMatch(
          /^scripted: the inputSchema of tool bad-in cannot be compiled, so its arguments are not checked against it: the schema cannot be compiled: .*wat/
        )
        expect(warnings[1]).toMatch(
          /^scripted: the outputSchema of tool bad-out cannot be compiled, so its results are not checked against it: the schema cannot be compiled: .*wat/
        )
      }).pipe(Effect.scoped, Effect.provide(Logger.replace(Logger.defaultLogger, logger)))
    }
  )

  it.effect("keepalive: a missed ping marks the session Failed with a clear cause", () =>
    Effect.scoped(
      Effect.gen(function* () {
        let answerPings = true
        const { client } = yield* connectScripted(
          (request) =>
            request.method === "initialize" ? initializeResult() : answerPings ? { result: {} } : ("silent" as Reply),
          { keepAlive: { interval: "30 seconds", timeout: "5 seconds" } }
        )
        yield* TestClock.adjust("31 seconds")
        expect((yield* client.state)._tag).toBe("Ready")
        answerPings = false
        yield* TestClock.adjust("30 seconds")
        yield* TestClock.adjust("6 seconds")
        const state = yield* client.state
        expect(state._tag).toBe("Failed")
        if (state._tag === "Failed")
          expect(state.cause.message).toContain("ping got no answer within its timeout of 5s")
        const error = yield* Effect.flip(client.ping())
        expect(error._tag).toBe("SessionUnavailable")
      })
    )
  )

  it.scoped("the transport dying marks the session Failed and later calls fail at once", () =>
    Effect.gen(function* () {
      const { client, server } = yield* connectScripted((request) =>
        request.method === "initialize" ? initializeResult({ tools: {} }) : "silent"
      )
      // Without the input check, which would list the tools first.
      const pending = yield* Effect.fork(Effect.flip(client.callTool("x", undefined, { validateInput: false })))
      yield* Effect.yieldNow()
      yield* server.close
      expect((yield* Fiber.join(pending))._tag).toBe("TransportError")
      const state = yield* client.stateChanges.pipe(
        Stream.filter((s) => s._tag === "Failed"),
        Stream.runHead
      )
      expect(state._tag).toBe("Some")
      expect((yield* Effect.flip(client.ping()))._tag).toBe("SessionUnavailable")
    })
  )

  it.effect.prop(
    "the session only takes legal transitions, and ends Failed where the connection died, Closed where it did not",
    // 0: before initialize is answered, 1: after the handshake, 2: during a request, 3: never
    [FastCheck.integer({ min: 0, max: 3 })],
    ([where]) =>
      Effect.scoped(
        Effect.gen(function* () {
          const [clientEnd, serverEnd] = yield* InMemoryTransport.makePair("prop")
          yield* Transport.incoming(serverEnd).pipe(
            Stream.runForEach((item) => {
              if (item._tag !== "Message" || !JsonRpc.isRequest(item.message)) return Effect.void
              const id = item.message.id
              if (item.message.method === "initialize") {
                return where === 0
                  ? serverEnd.close
                  : Effect.ignore(serverEnd.send({ jsonrpc: "2.0", id, ...initializeResult() }))
              }
              return where === 2 ? serverEnd.close : Effect.ignore(serverEnd.send({ jsonrpc: "2.0", id, result: {} }))
            }),
            Effect.forkScoped
          )
          const clientScope = yield* Scope.make()
          const built = yield* Effect.exit(
            McpClient.make({ name: "prop", protocolVersion: "2025-11-25" }).pipe(
              Effect.provideService(Transport.Transport, clientEnd),
              Scope.extend(clientScope)
            )
          )
          if (Exit.isFailure(built)) {
            expect(where).toBe(0)
            return yield* Scope.close(clientScope, Exit.void)
          }
          const client = built.value
          const seen: Array<SessionState.SessionState> = []
          const recorder = yield* client.stateChanges.pipe(
            Stream.runForEach((state) => Effect.sync(() => seen.push(state))),
            Effect.fork
          )
          yield* Effect.yieldNow()
          if (where === 1) yield* serverEnd.close
          yield* Effect.ignore(client.ping())
          // A connection that died: the session says so (Failed) before the client is closed.
          if (where !== 3)
            yield* client.stateChanges.pipe(
              Stream.takeUntil((state) => state._tag === "Failed"),
              Stream.runDrain
            )
          yield* Effect.yieldNow()
          yield* Scope.close(clientScope, Exit.void)
          yield* Effect.yieldNow()
          yield* Fiber.interrupt(recorder)
          expect(seen[0]?._tag).toBe("Ready")
          for (let i = 1; i < seen.length; i++) {
            const from = seen[i - 1]
            const to = seen[i]
            if (from !== undefined && to !== undefined)
              expect([from._tag, to._tag, SessionState.canMove(from, to)]).toStrictEqual([from._tag, to._tag, true])
          }
          // A connection that died ends Failed; one that never died ends Closed.
          expect(seen.at(-1)?._tag).toBe(where === 3 ? "Closed" : "Failed")
        })
      )
  )
})

describe("McpClient at 2026-07-28", () => {
  const discover = (capabilities: object) => ({
    result: {
      resultType: "complete",
      supportedVersions: ["2026-07-28"],
      capabilities,
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "modern", version: "1" } },
      ttlMs: 0,
      cacheScope: "private"
    }
  })

  it.effect.prop(
    "any tool result a 2026-07-28 server sends comes out of the stateless dialect as the same result",
    [Arbitrary.make(McpSchema.CallToolResult)],
    ([result]) =>
      Effect.gen(function* () {
        const wire = Schema.encodeSync(McpSchema.CallToolResult)(result)
        const { client } = yield* connectScripted(
          (request) =>
            request.method === "server/discover"
              ? discover({ tools: {} })
              : { result: { ...JSON.parse(JSON.stringify(wire)), resultType: "complete" } },
          { protocolVersion: "2026-07-28" }
        )
        const received = yield* client.request("tools/call", { name: "any" })
        expect(received).toStrictEqual(
          Schema.decodeUnknownSync(McpSchema.CallToolResult)(JSON.parse(JSON.stringify(wire)))
        )
      }).pipe(Effect.scoped),
    { fastCheck: { numRuns: Number(process.env.PROP_RUNS ?? 25) } }
  )

  it.effect("a list stays cached for its ttlMs (the least of its pages), and not at all without one", () =>
    Effect.gen(function* () {
      let ttl = 1000
      const { client, sent } = yield* connectScripted(
        (request) =>
          request.method === "server/discover"
            ? discover({ tools: {}, prompts: {} })
            : request.method === "tools/list"
              ? request.params?.cursor === undefined
                ? {
                    result: {
                      resultType: "complete",
                      tools: [tool("a")],
                      nextCursor: "p2",
                      ttlMs: ttl * 2,
                      cacheScope: "private"
                    }
                  }
                : { result: { resultType: "complete", tools: [tool("b")], ttlMs: ttl, cacheScope: "private" } }
              : { result: { resultType: "complete", prompts: [] } },
        { protocolVersion: "2026-07-28" }
      )
      const listings = () => sent.filter((message) => "method" in message && message.method === "tools/list").length
      expect((yield* client.tools).map((entry) => entry.name)).toStrictEqual(["a", "b"])
      yield* client.tools
      expect(listings()).toBe(2) // two pages, once
      yield* TestClock.adjust("999 millis")
      yield* client.tools
      expect(listings()).toBe(2)
      yield* TestClock.adjust("2 millis")
      ttl = 0
      yield* client.tools
      expect(listings()).toBe(4) // the first page said 2 s, the second 1 s: stale after 1 s
      yield* client.tools
      expect(listings()).toBe(6) // ttlMs 0: never fresh
      const promptsListed = () =>
        sent.filter((message) => "method" in message && message.method === "prompts/list").length
      yield* client.prompts
      yield* client.prompts
      expect(promptsListed()).toBe(2) // no ttlMs: fresh for 0 ms
    }).pipe(Effect.scoped)
  )

  it.effect("a task whose server suggests polling every 1 ms is polled at most every 50 ms", () =>
    Effect.gen(function* () {
      let gets = 0
      const task = (status: string) => ({
        taskId: "t1",
        status,
        createdAt: "2026-11-23T00:00:00Z",
        lastUpdatedAt: "2026-11-23T00:00:00Z",
        ttl: null,
        pollInterval: 1
      })
      const { client } = yield* connectScripted((request) => {
        if (request.method === "initialize")
          return initializeResult({ tools: {}, tasks: { requests: { tools: { call: {} } } } })
        if (request.method === "tools/list")
          return { result: { tools: [tool("job", { execution: { taskSupport: "required" } })] } }
        if (request.method === "tools/call") return { result: { task: task("working") } }
        if (request.method === "tasks/get") {
          gets++
          return { result: task("working") }
        }
        // tasks/result waits for the task's end (never, here): the status comes from the polls.
        if (request.method === "tasks/result") return "silent"
        return { result: {} }
      })
      const run = yield* Effect.fork(client.tasks.run("job", {}))
      yield* TestClock.adjust("1 second")
      // 1 s at one poll per 50 ms, and the first one at once.
      expect(run.unsafePoll()).toBeNull()
      expect(gets).toBeGreaterThan(0)
      expect(gets).toBeLessThanOrEqual(21)
      yield* Fiber.interrupt(run)
    }).pipe(Effect.scoped)
  )

  it.effect("a tools/call answered with a task (the tasks extension) is followed to its result", () =>
    Effect.gen(function* () {
      let gets = 0
      const elicitation = Layer.succeed(Capabilities.Elicitation, {
        form: (params) => Effect.succeed({ action: "accept" as const, content: { answer: params.message } })
      })
      const { client, sent } = yield* connectScripted(
        (request) => {
          const taskId = request.params?.taskId
          if (request.method === "server/discover") return discover({ tools: {} })
          if (request.method === "tools/list") return { result: { resultType: "complete", tools: [tool("job")] } }
          if (request.method === "tools/call")
            return {
              result: {
                resultType: "task",
                taskId: "t1",
                status: "working",
                createdAt: "2026-11-23T00:00:00Z",
                lastUpdatedAt: "2026-11-23T00:00:00Z",
                ttlMs: 60000,
                pollIntervalMs: 500
              }
            }
          if (request.method === "tasks/update" || request.method === "tasks/cancel")
            return { result: { resultType: "complete" } }
          gets++
          const base = { resultType: "complete", taskId }
          if (gets === 1) return { result: { ...base, status: "working" } }
          if (gets === 2)
            return {
              result: {
                ...base,
                status: "input_required",
                inputRequests: {
                  q: {
                    method: "elicitation/create",
                    params: {
                      message: "why?",
                      requestedSchema: { type: "object", properties: { answer: { type: "string" } } }
                    }
                  }
                }
              }
            }
          return {
            result: {
              ...base,
              status: "completed",
              result: { resultType: "complete", content: [{ type: "text", text: "done" }] }
            }
          }
        },
        { protocolVersion: "2026-07-28" },
        elicitation
      )
      const call = yield* Effect.fork(client.callTool("job", {}))
      for (let i = 0; i < 4; i++) {
        yield* TestClock.adjust("500 millis")
        yield* Effect.yieldNow()
      }
      const result = yield* Fiber.join(call)
      expect(result.content).toStrictEqual([{ type: "text", text: "done" }])
      const updates = sent.filter((message) => JsonRpc.isRequest(message) && message.method === "tasks/update")
      expect(
        updates.map((message) => ("params" in message ? message.params?.inputResponses : undefined))
      ).toStrictEqual([{ q: { action: "accept", content: { answer: "why?" } } }])
      const call0 = sent.find((message) => JsonRpc.isRequest(message) && message.method === "tools/call")
      const meta = call0 !== undefined && "params" in call0 ? call0.params?._meta : undefined
      expect(meta).toMatchObject({
        "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } }
      })
    }).pipe(Effect.scoped)
  )

  it.effect("giving up on a call that became a task cancels the task on the server", () =>
    Effect.gen(function* () {
      const { client, sent } = yield* connectScripted(
        (request) =>
          request.method === "server/discover"
            ? discover({ tools: {} })
            : request.method === "tools/list"
              ? { result: { resultType: "complete", tools: [tool("job")] } }
              : request.method === "tools/call"
                ? { result: { resultType: "task", taskId: "t9", status: "working", pollIntervalMs: 1000 } }
                : { result: { resultType: "complete", taskId: "t9", status: "working" } },
        { protocolVersion: "2026-07-28" }
      )
      const call = yield* Effect.fork(client.callTool("job", {}))
      yield* TestClock.adjust("1 second")
      yield* Effect.yieldNow()
      yield* Fiber.interrupt(call)
      for (let i = 0; i < 5; i++) yield* Effect.yieldNow()
      expect(
        sent
          .filter((message) => JsonRpc.isRequest(message) && message.method === "tasks/cancel")
          .map((message) => ("params" in message ? message.params?.taskId : undefined))
      ).toStrictEqual(["t9"])
    }).pipe(Effect.scoped)
  )

  it.scoped("the server info is read from discovery, then from each result that carries it", () =>
    Effect.gen(function* () {
      const { client } = yield* connectScripted(
        (request) =>
          request.method === "server/discover"
            ? discover({ tools: {} })
            : {
                result: {
                  resultType: "complete",
                  tools: [],
                  _meta: { "io.modelcontextprotocol/serverInfo": { name: "modern", version: "2" } }
                }
              },
        { protocolVersion: "2026-07-28" }
      )
      expect(client.serverInfo).toStrictEqual({ name: "modern", version: "1" })
      yield* client.tools
      expect(client.serverInfo).toStrictEqual({ name: "modern", version: "2" })
    })
  )

  it.effect("a read is reused for its ttlMs, until the resource is updated", () =>
    Effect.gen(function* () {
      const { client, sent, server } = yield* connectScripted(
        (request) =>
          request.method === "server/discover"
            ? discover({ resources: {} })
            : {
                result: {
                  resultType: "complete",
                  contents: [{ uri: "file:///a", text: "a" }],
                  ttlMs: 1000,
                  cacheScope: "private"
                }
              },
        { protocolVersion: "2026-07-28" }
      )
      const reads = () => sent.filter((message) => "method" in message && message.method === "resources/read").length
      yield* client.readResource("file:///a")
      yield* client.readResource("file:///a")
      expect(reads()).toBe(1)
      yield* TestClock.adjust("1001 millis")
      yield* client.readResource("file:///a")
      expect(reads()).toBe(2)
      yield* server.send({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: "file:///a" } })
      for (let i = 0; i < 5; i++) yield* Effect.yieldNow()
      yield* client.readResource("file:///a")
      expect(reads()).toBe(3)
    }).pipe(Effect.scoped)
  )

  it.effect("a subscription that broke is opened again after a backoff", () =>
    Effect.gen(function* () {
      let listens = 0
      const { sent } = yield* connectScripted(
        (request) => {
          if (request.method === "server/discover") return discover({ tools: { listChanged: true } })
          if (request.method === "subscriptions/listen") {
            listens++
            return listens === 1 ? { error: { code: -32603, message: "restarting" } } : "silent"
          }
          return { result: { resultType: "complete", tools: [] } }
        },
        { protocolVersion: "2026-07-28" }
      )
      const opened = () => sent.filter((message) => "method" in message && message.method === "subscriptions/listen")
      for (let i = 0; i < 5; i++) yield* Effect.yieldNow()
      expect(opened()).toHaveLength(1)
      yield* TestClock.adjust("1 second")
      for (let i = 0; i < 5; i++) yield* Effect.yieldNow()
      expect(opened()).toHaveLength(2)
    }).pipe(Effect.scoped)
  )

  it.scoped("change notifications come over subscriptions/listen, opened again when subscriptions change", () =>
    Effect.gen(function* () {
      const { client, sent, server } = yield* connectScripted(
        (request) =>
          request.method === "server/discover"
            ? discover({ tools: { listChanged: true }, resources: { subscribe: true } })
            : request.method === "tools/list"
              ? { result: { resultType: "complete", tools: [], ttlMs: 0, cacheScope: "private" } }
              : "silent",
        { protocolVersion: "2026-07-28" }
      )
      expect(client.era).toBe("stateless")
      expect(client.serverInfo.name).toBe("modern")
      const listens = () =>
        sent.filter(
          (message): message is JsonRpc.JSONRPCRequest =>
            JsonRpc.isRequest(message) && message.method === "subscriptions/listen"
        )
      for (let i = 0; i < 5; i++) yield* Effect.yieldNow()
      expect(listens().map((message) => message.params?.notifications)).toStrictEqual([{ toolsListChanged: true }])
      const changed = yield* client.listChanged.pipe(Stream.take(1), Stream.runCollect, Effect.fork)
      yield* Effect.yieldNow()
      const first = listens()[0]
      yield* server.send({
        jsonrpc: "2.0",
        method: "notifications/tools/list_changed",
        params: { _meta: { "io.modelcontextprotocol/subscriptionId": first?.id ?? "" } }
      })
      expect(Array.from(yield* Fiber.join(changed))).toStrictEqual(["tools"])
      yield* client.subscribe("file:///a")
      for (let i = 0; i < 5; i++) yield* Effect.yieldNow()
      expect(listens().map((message) => message.params?.notifications)).toStrictEqual([
        { toolsListChanged: true },
        { toolsListChanged: true, resourceSubscriptions: ["file:///a"] }
      ])
      // The first subscription was cancelled; no resources/subscribe exists in this revision.
      expect(sent).toContainEqual(
        expect.objectContaining({
          method: "notifications/cancelled",
          params: expect.objectContaining({ requestId: first?.id })
        })
      )
      expect(methods(sent)).not.toContain("resources/subscribe")
      // Notifications of the ended subscription are dropped; the current one's arrive.
      const second = listens()[1]
      const next = yield* client.listChanged.pipe(Stream.take(1), Stream.runCollect, Effect.fork)
      yield* Effect.yieldNow()
      const tagged = (id: JsonRpc.RequestId | undefined, method: string) =>
        server.send({
          jsonrpc: "2.0",
          method,
          params: { _meta: { "io.modelcontextprotocol/subscriptionId": id ?? "" } }
        })
      yield* tagged(first?.id, "notifications/prompts/list_changed")
      yield* tagged(second?.id, "notifications/tools/list_changed")
      expect(Array.from(yield* Fiber.join(next))).toStrictEqual(["tools"])
    })
  )
  describe("error tags and words", () => {
    const always = (answer: Reply) => (request: JsonRpc.JSONRPCRequest) =>
      request.method === "server/discover" ? discover({ tools: {} }) : answer

    it.effect("a server that asks for input beyond maxInputRounds fails the call with InputNotGiven", () =>
      Effect.gen(function* () {
        const { client, sent } = yield* connectScripted(
          always({ result: { resultType: "input_required", inputRequests: {}, requestState: "again" } }),
          { protocolVersion: "2026-07-28", maxInputRounds: 3 }
        )
        const error = yield* Effect.flip(client.request("tools/call", { name: "t" }))
        expect(error).toMatchObject({ _tag: "InputNotGiven", server: "scripted", method: "tools/call", rounds: 3 })
        expect(error.message).toBe(
          "scripted: tools/call: the server asked for input 3 times; the limit is 3 rounds (maxInputRounds)"
        )
        expect(methods(sent).filter((method) => method === "tools/call")).toHaveLength(3)
      }).pipe(Effect.scoped)
    )

    it.effect("an input request the client cannot answer (roots, never declared) fails with InputNotGiven", () =>
      Effect.gen(function* () {
        const { client } = yield* connectScripted(
          always({
            result: { resultType: "input_required", inputRequests: { where: { method: "roots/list", params: {} } } }
          }),
          { protocolVersion: "2026-07-28" }
        )
        const error = yield* Effect.flip(client.request("tools/call", { name: "t" }))
        expect(error).toMatchObject({ _tag: "InputNotGiven", method: "tools/call", request: "roots/list" })
        expect(error.message).toBe(
          "scripted: tools/call: the server asked for roots/list (where), which this client could not give: Method not found: roots/list"
        )
      }).pipe(Effect.scoped)
    )

    it.effect("pinning 2026-07-28 against a 2025 server says so plainly, and which revision it offers", () =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(
          connectScripted(
            (request) =>
              request.method === "server/discover"
                ? { error: { code: -32601, message: "Method not found" } }
                : initializeResult({ tools: {} }),
            { protocolVersion: "2026-07-28" }
          ).pipe(Effect.scoped)
        )
        if (!(error instanceof McpError.UnsupportedProtocolVersion)) return expect.unreachable(String(error))
        expect(error).toMatchObject({ requested: "2026-07-28", received: "2025-11-25" })
        expect(error.message).toBe(
          "The server does not speak protocol version 2026-07-28 (server/discover failed with -32601); it offers 2025-11-25"
        )
        // One that does not answer initialize either: said after the probe's time limit, not the request timeout.
        const silent = yield* Effect.fork(
          Effect.flip(
            connectScripted(
              (request) =>
                request.method === "server/discover"
                  ? { error: { code: -32601, message: "Method not found" } }
                  : "silent",
              { protocolVersion: "2026-07-28", probeTimeout: "2 seconds", requestTimeout: "1 minute" }
            ).pipe(Effect.scoped)
          )
        )
        yield* TestClock.adjust("2 seconds")
        const unanswered = yield* Fiber.join(silent)
        if (!(unanswered instanceof McpError.UnsupportedProtocolVersion)) return expect.unreachable(String(unanswered))
        expect(unanswered.message).toBe(
          "The server does not speak protocol version 2026-07-28 (server/discover failed with -32601); it did not say which it speaks"
        )
      })
    )

    it.effect("a timeout at 2026-07-28 reads as the request timeout the caller set, whatever rounds took of it", () =>
      Effect.gen(function* () {
        const { client, sent, server } = yield* connectScripted(always("silent"), {
          protocolVersion: "2026-07-28",
          requestTimeout: "400 millis"
        })
        const calls = () =>
          sent.filter(
            (message): message is JsonRpc.JSONRPCRequest =>
              JsonRpc.isRequest(message) && message.method === "tools/call"
          )
        const idle = yield* Effect.fork(Effect.flip(client.request("tools/call", { name: "t" })))
        // The first round is answered after 100 ms with a request for input; the second is never answered.
        yield* TestClock.adjust("100 millis")
        const first = calls()[0]
        if (first === undefined) return expect.unreachable()
        yield* server.send({
          jsonrpc: "2.0",
          id: first.id,
          result: { resultType: "input_required", inputRequests: {} }
        })
        for (let i = 0; i < 10 && calls().length < 2; i++) yield* Effect.yieldNow()
        expect(calls()).toHaveLength(2)
        yield* TestClock.adjust("300 millis")
        const error = yield* Fiber.join(idle)
        expect(error).toMatchObject({ _tag: "RequestTimeout", kind: "idle", timeout: Duration.millis(400) })
        expect(error.message).toBe("scripted: tools/call got no answer within its timeout of 400ms")
        const total = yield* Effect.fork(
          Effect.flip(
            client.request("tools/call", { name: "t" }, { timeout: "5 seconds", maxTotalTimeout: "2 seconds" })
          )
        )
        yield* TestClock.adjust("2 seconds")
        expect((yield* Fiber.join(total)).message).toBe(
          "scripted: tools/call got no answer within its maximum total time of 2s"
        )
      }).pipe(Effect.scoped)
    )

    it.effect("a transport whose scope ends before the client's closes quietly (no warning)", () => {
      const lines: Array<string> = []
      const logger = Logger.make(({ logLevel, message }) => {
        lines.push(`${logLevel.label} ${String(Array.isArray(message) ? message[0] : message)}`)
      })
      return Effect.gen(function* () {
        const { transport, options } = scriptedLayer(
          (request) =>
            request.method === "server/discover"
              ? discover({ tools: { listChanged: true } })
              : request.method === "subscriptions/listen"
                ? "silent"
                : { result: {} },
          { protocolVersion: "2026-07-28" }
        )
        const transportScope = yield* Scope.make()
        const clientScope = yield* Scope.make()
        const context = yield* Layer.buildWithScope(transport, transportScope)
        yield* Layer.buildWithScope(
          McpClient.layer(options).pipe(Layer.provide(Layer.succeedContext(context))),
          clientScope
        )
        yield* Scope.close(transportScope, Exit.void)
        yield* Scope.close(clientScope, Exit.void)
        expect(lines.filter((line) => line.startsWith("WARN") || line.startsWith("ERROR"))).toStrictEqual([])
        expect(lines).toContain("DEBUG scripted: change notifications ended with the connection")
      }).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, logger)), Logger.withMinimumLogLevel(LogLevel.All))
    })
  })
})

describe("McpClient: progress extends a call's timeout", () => {
  for (const protocolVersion of ["2025-11-25", "2026-07-28"] as const) {
    it.effect(
      `a call that asked for progress lives while progress comes, up to maxTotalTimeout (${protocolVersion})`,
      () =>
        Effect.gen(function* () {
          const { client, sent, server } = yield* connectScripted(
            (request) =>
              request.method === "server/discover"
                ? {
                    result: {
                      resultType: "complete",
                      supportedVersions: ["2026-07-28"],
                      capabilities: { tools: {} },
                      _meta: { "io.modelcontextprotocol/serverInfo": { name: "modern", version: "1" } }
                    }
                  }
                : request.method === "initialize"
                  ? initializeResult({ tools: {} })
                  : "silent",
            { protocolVersion, requestTimeout: "60 seconds" }
          )
          const seen: Array<number> = []
          /** The token of the last tools/call sent. */
          const tokenOf = () => {
            const call = sent
              .filter(
                (message): message is JsonRpc.JSONRPCRequest =>
                  JsonRpc.isRequest(message) && message.method === "tools/call"
              )
              .at(-1)
            const meta = call?.params?._meta
            return typeof meta === "object" && meta !== null && "progressToken" in meta ? meta.progressToken : undefined
          }
          /** A call that hears progress every second for `seconds`; how it ended. */
          const reported = (seconds: number, options: McpClient.CallOptions) =>
            Effect.gen(function* () {
              const call = yield* Effect.fork(
                Effect.either(
                  client.request(
                    "tools/call",
                    { name: "slow" },
                    { onProgress: (p) => Effect.sync(() => seen.push(p.progress)), ...options }
                  )
                )
              )
              const before = tokenOf()
              for (let i = 0; i < 10 && tokenOf() === before; i++) yield* Effect.yieldNow()
              const token = tokenOf()
              if (typeof token !== "string" && typeof token !== "number") return expect.unreachable("no progress token")
              for (let second = 1; second <= seconds && call.unsafePoll() === null; second++) {
                yield* TestClock.adjust("1 second")
                yield* server.send({
                  jsonrpc: "2.0",
                  method: "notifications/progress",
                  params: { progressToken: token, progress: second }
                })
                yield* Effect.yieldNow()
              }
              return call
            })
          // 70 s of progress every second: alive past the 60 s default, answered at the end.
          const alive = yield* reported(70, {})
          expect(alive.unsafePoll()).toBe(null)
          const call = sent
            .filter(
              (message): message is JsonRpc.JSONRPCRequest =>
                JsonRpc.isRequest(message) && message.method === "tools/call"
            )
            .at(-1)
          if (call === undefined) return expect.unreachable()
          yield* server.send({ jsonrpc: "2.0", id: call.id, result: { content: [] } })
          const answered = yield* Fiber.join(alive)
          expect(answered._tag).toBe("Right")
          expect(seen.length).toBe(70)
          // A maximum total time ends it however much progress comes.
          const bounded = yield* reported(70, { timeout: "2 seconds", maxTotalTimeout: "30 seconds" })
          const ended = yield* Fiber.join(bounded)
          if (ended._tag !== "Left") return expect.unreachable("the call outlived its maximum total time")
          expect(ended.left.message).toBe("scripted: tools/call got no answer within its maximum total time of 30s")
          // Turned off, the timeout counts from the start.
          const unreset = yield* reported(5, { timeout: "2 seconds", resetTimeoutOnProgress: false })
          const timedOut = yield* Fiber.join(unreset)
          if (timedOut._tag !== "Left") return expect.unreachable()
          expect(timedOut.left.message).toBe("scripted: tools/call got no answer within its timeout of 2s")
        }).pipe(Effect.scoped)
    )
  }
})

describe("McpError", () => {
  it("every error that crosses a package boundary encodes to JSON and decodes to the same error", () => {
    const roundTrip = <A extends { readonly _tag: string; readonly message: string }, I>(
      schema: Schema.Schema<A, I>,
      error: A
    ) => {
      const wire = JSON.parse(JSON.stringify(Schema.encodeSync(schema)(error)))
      const back = Schema.decodeUnknownSync(schema)(wire)
      expect([back._tag, back.message]).toStrictEqual([error._tag, error.message])
      // Every field survives (status, code, data, timeout, tool, pointer…), not just the words.
      expect(JSON.parse(JSON.stringify(Schema.encodeSync(schema)(back)))).toStrictEqual(wire)
      return back
    }
    const transport = roundTrip(
      McpError.TransportError,
      new McpError.TransportError({ server: "s", reason: "gone", status: 502, cause: new Error("socket hang up") })
    )
    expect(transport).toMatchObject({ server: "s", reason: "gone", status: 502 })
    roundTrip(
      McpError.RpcError,
      new McpError.RpcError({ server: "s", method: "tools/call", code: -32602, errorMessage: "bad", data: { at: 1 } })
    )
    roundTrip(
      McpError.RequestTimeout,
      new McpError.RequestTimeout({ server: "s", method: "ping", timeout: Duration.seconds(5), kind: "idle" })
    )
    roundTrip(
      McpError.CapabilityNotSupported,
      new McpError.CapabilityNotSupported({ server: "s", method: "prompts/list", capability: "prompts" })
    )
    roundTrip(McpError.DecodeError, new McpError.DecodeError({ server: "s", method: "tools/list", issue: "missing" }))
    roundTrip(
      McpError.InvalidInput,
      new McpError.InvalidInput({ server: "s", method: "tools/call", reason: "r", tool: "t", pointer: "/a" })
    )
    roundTrip(McpError.ToolOutputInvalid, new McpError.ToolOutputInvalid({ server: "s", tool: "t", reason: "r" }))
    roundTrip(McpError.SessionUnavailable, new McpError.SessionUnavailable({ server: "s", reason: "closed" }))
    roundTrip(McpError.Overloaded, new McpError.Overloaded({ server: "s", method: "tools/call", limit: 2, queued: 3 }))
    roundTrip(
      McpError.InputNotGiven,
      new McpError.InputNotGiven({ server: "s", method: "tools/call", reason: "r", request: "roots/list", rounds: 2 })
    )
  })
})

describe("RpcError", () => {
  it("names the codes of the 2026-07-28 revision, and resource-not-found in both its forms", () => {
    const kind = (code: number, method = "tools/call") =>
      new McpError.RpcError({ server: "s", method, code, errorMessage: "" }).kind
    expect(kind(-32020)).toBe("HeaderMismatch")
    expect(kind(-32021)).toBe("MissingRequiredClientCapability")
    expect(kind(-32022)).toBe("UnsupportedProtocolVersion")
    expect(kind(-32002, "resources/read")).toBe("ResourceNotFound")
    expect(kind(-32602, "resources/read")).toBe("ResourceNotFound")
    expect(kind(-32602)).toBe("InvalidParams")
    expect(kind(-32001)).toBe("ServerError")
  })
})
