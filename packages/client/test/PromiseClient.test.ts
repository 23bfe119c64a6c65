/**
 * The client for Promise programs: against the reference server over Streamable HTTP (every call
 * takes its effect), and against scripted servers that misbehave (typed rejections, aborts, and
 * every case whose executor does more than the peer). Calls started with no fiber over a transport
 * that writes at once, Node's stdio, are tested in `@effect-mcp/node` (`test/PromiseClient.test.ts`).
 */

import { getEventListeners } from "node:events"
import { describe, expect, it, vi } from "@effect/vitest"
import { InMemoryTransport, type McpClient, McpError, PlainForm, PromiseClient, Transport } from "@effect-mcp/client"
import { JsonRpc } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as TestContext from "effect/TestContext"
import * as Tracer from "effect/Tracer"
import * as StreamableHttpTransport from "../src/internal/transport/streamableHttpTransport.js"
import { counted, Starts } from "./support/fiberStarts.js"
import { keepAliveHttpClient } from "./support/httpClient.js"
import { connectionsTo, startEverything } from "./support/httpServers.js"
import { type Reply, scriptedLayer } from "./support/scriptedServer.js"

describe("PromiseClient against the reference server (Streamable HTTP)", () => {
  it("every call takes its effect (the transport does not write at once), with the same typed outcomes", async () => {
    const running = await startEverything("streamableHttp")
    const starts = new Starts()
    try {
      const layer = StreamableHttpTransport.layer({ url: `${running.origin}/mcp`, name: "everything-http" }).pipe(
        Layer.provide(keepAliveHttpClient)
      )
      const mcp = await PromiseClient.connect(counted(layer, starts), {
        name: "everything-http",
        protocolVersion: "2025-11-25"
      })
      try {
        await mcp.callTool("echo", { message: "warm" })
        const before = starts.count
        await expect(mcp.callTool("echo", { message: "over http" })).resolves.toMatchObject({
          content: [{ type: "text", text: "Echo: over http" }]
        })
        expect(starts.count).toBeGreaterThan(before)
        await expect(mcp.request("prompts/get", { name: "no-such-prompt" })).rejects.toMatchObject({
          _tag: "RpcError",
          method: "prompts/get"
        })
      } finally {
        await mcp.close()
      }
      expect(connectionsTo(running.port)).toBe(0)
    } finally {
      await running.stop()
    }
  })
})

const tool = {
  name: "weather",
  inputSchema: { type: "object", properties: { city: { type: "string" } } },
  outputSchema: { type: "object", properties: { degrees: { type: "number" } }, required: ["degrees"] }
}

/** A server with one tool whose calls `answer` decides (it answers ping, so a ping is a barrier). */
const scripted = (answer: (request: JsonRpc.JSONRPCRequest) => Reply, options: McpClient.McpClientOptions = {}) => {
  const {
    transport,
    options: clientOptions,
    sent
  } = scriptedLayer((request) => {
    if (request.method === "initialize") {
      return {
        result: {
          protocolVersion: "2025-11-25",
          capabilities: { tools: {} },
          serverInfo: { name: "scripted", version: "0" }
        }
      }
    }
    if (request.method === "tools/list") return { result: { tools: [tool] } }
    if (request.method === "ping") return { result: {} }
    return answer(request)
  }, options)
  return { layer: transport, options: clientOptions, sent }
}

const warm = { result: { content: [], structuredContent: { degrees: 20 } } } as const

/** A script that answers the first tools/call (the warm-up) and leaves every later one unanswered. */
const answersFirstCallOnly = () => {
  let calls = 0
  return (): Reply => (++calls === 1 ? warm : "silent")
}

/**
 * A server over an in-memory pair whose transport refuses the second `tools/call` as an HTTP
 * transport refuses a request of a session the server forgot (a `SessionExpired` item, 404), and
 * says its sessions may expire. It records the methods it received.
 */
const forgetfulServer = (options: {
  readonly holdSecondInitialize: boolean
  /** Keep the in-memory `send`'s plain form and say nothing of expiring sessions: nothing recovers. */
  readonly writesAtOnce?: boolean
}) => {
  const sent: Array<string> = []
  let calls = 0
  let refused = false
  // With `holdSecondInitialize`, the re-initialization waits for `release()`; `reinitializing` says it began.
  let began: () => void = () => {}
  const reinitializing = new Promise<void>((resolve) => {
    began = resolve
  })
  let release: () => void = () => {}
  const released = new Promise<void>((resolve) => {
    release = resolve
  })
  const serve = (end: InMemoryTransport.End) =>
    Transport.incoming(end).pipe(
      Stream.runForEach((item) => {
        if (item._tag !== "Message") return Effect.void
        const message = item.message
        if (!("method" in message)) return Effect.void
        sent.push(message.method)
        if (!JsonRpc.isRequest(message)) return Effect.void
        const second = message.method === "initialize" && sent.filter((method) => method === "initialize").length === 2
        if (second) began()
        const result =
          message.method === "initialize"
            ? { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "s", version: "0" } }
            : message.method === "tools/list"
              ? { tools: [tool] }
              : warm.result
        const answer = Effect.ignore(end.send({ jsonrpc: "2.0", id: message.id, result }))
        return second && options.holdSecondInitialize
          ? Effect.asVoid(
              Effect.forkScoped(
                Effect.zipRight(
                  Effect.promise(() => released),
                  answer
                )
              )
            )
          : answer
      }),
      Effect.forkScoped
    )
  const transport = Layer.scoped(
    Transport.Transport,
    Effect.gen(function* () {
      const [client, server] = yield* InMemoryTransport.makePair("forgetful")
      yield* serve(server)
      let deliver: ((item: Transport.Incoming) => void) | undefined
      // The second tools/call (and, when it writes at once, every later one) meets a forgotten session.
      const refuses = (message: JsonRpc.JSONRPCMessage): message is JsonRpc.JSONRPCRequest =>
        JsonRpc.isRequest(message) &&
        message.method === "tools/call" &&
        (++calls === 2 || (options.writesAtOnce === true && calls > 2)) &&
        deliver !== undefined
      const refuse = (message: JsonRpc.JSONRPCRequest) => {
        refused = true
        deliver?.({ _tag: "Failed", id: message.id, error: new McpError.SessionExpired({ server: "forgetful" }) })
        return undefined
      }
      const send = (message: JsonRpc.JSONRPCMessage) =>
        Effect.suspend(() => (refuses(message) ? Effect.sync(() => refuse(message)) : client.send(message)))
      const writeNow = PlainForm.of(client.send)
      return {
        ...client,
        run: (to: (item: Transport.Incoming) => void) => {
          deliver = to
          return client.run(to)
        },
        ...(options.writesAtOnce === true && writeNow !== undefined
          ? {
              send: PlainForm.attach(send, (message: JsonRpc.JSONRPCMessage) =>
                refuses(message) ? refuse(message) : writeNow(message)
              )
            }
          : { send, expiresSessions: true })
      } satisfies Transport.TransportService
    })
  )
  const clientOptions: McpClient.McpClientOptions = { name: "forgetful", protocolVersion: "2025-11-25" }
  return { layer: transport, options: clientOptions, sent, refused: () => refused, reinitializing, release }
}

/** A promise's outcome, to compare a call started with no fiber with its effect. */
const settled = <A>(promise: Promise<A>) =>
  promise.then(
    (value) => ({ ok: value }),
    (error: unknown) => ({ error })
  )

describe("PromiseClient against scripted servers", () => {
  it("structured content that does not match the outputSchema rejects with ToolOutputInvalid, begun or not", async () => {
    const { layer, options } = scripted(() => ({ result: { content: [], structuredContent: { degrees: "warm" } } }))
    const starts = new Starts()
    const mcp = await PromiseClient.connect(counted(layer, starts), options)
    try {
      await expect(mcp.callTool("weather", { city: "Oslo" })).rejects.toMatchObject({ _tag: "ToolOutputInvalid" })
      const before = starts.count
      await expect(mcp.callTool("weather", { city: "Oslo" })).rejects.toMatchObject({
        _tag: "ToolOutputInvalid",
        tool: "weather",
        reason: expect.stringContaining("/degrees")
      })
      expect(starts.count).toBe(before)
    } finally {
      await mcp.close()
    }
  })

  it("an aborted call leaves the client's map and is cancelled on the server", async () => {
    const { layer, options, sent } = scripted(answersFirstCallOnly())
    const starts = new Starts()
    const mcp = await PromiseClient.connect(counted(layer, starts), options)
    try {
      // The first call lists the tools and loads the JSON Schema engine: the next one is begun.
      await mcp.callTool("weather", { city: "Oslo" })
      const controller = new AbortController()
      const before = starts.count
      const call = mcp.callTool("weather", { city: "Oslo" }, { signal: controller.signal })
      expect(starts.count).toBe(before)
      expect(await mcp.run((client) => client.stats)).toMatchObject({ pending: 1 })
      controller.abort("stop")
      await expect(call).rejects.toBe("stop")
      expect(await mcp.run((client) => client.stats)).toMatchObject({ pending: 0 })
      await mcp.request("ping")
      const request = sent.filter((message) => JsonRpc.isRequest(message) && message.method === "tools/call").at(-1)
      expect(request).toBeDefined()
      expect(
        sent.filter((message) => "method" in message && message.method === "notifications/cancelled")
      ).toMatchObject([{ params: { requestId: request !== undefined && "id" in request ? request.id : -1 } }])
    } finally {
      await mcp.close()
    }
  })

  it("a begun call times out on the client's clock with its own timeout, and is cancelled on the server", async () => {
    const { layer, options, sent } = scripted(answersFirstCallOnly())
    const starts = new Starts()
    const mcp = await PromiseClient.connect(
      counted(Layer.provideMerge(layer, TestContext.TestContext), starts),
      options
    )
    try {
      await mcp.callTool("weather", { city: "Oslo" })
      const before = starts.count
      const call = mcp.callTool("weather", { city: "Bergen" }, { timeout: "5 seconds" })
      expect(starts.count).toBe(before)
      const timedOut = expect(call).rejects.toMatchObject({
        _tag: "RequestTimeout",
        method: "tools/call",
        kind: "idle"
      })
      await mcp.run(() => TestClock.adjust("5 seconds"))
      await timedOut
      await mcp.request("ping")
      expect(
        sent.filter((message) => "method" in message && message.method === "notifications/cancelled")
      ).toHaveLength(1)
    } finally {
      await mcp.close()
    }
  })

  it("a call that meets an expired session initializes it again and is retried, as its effect would be", async () => {
    const forgetful = forgetfulServer({ holdSecondInitialize: false })
    const mcp = await PromiseClient.connect(forgetful.layer, forgetful.options)
    try {
      await mcp.callTool("weather", { city: "Oslo" })
      await expect(mcp.callTool("weather", { city: "Bergen" })).resolves.toMatchObject({
        structuredContent: { degrees: 20 }
      })
      expect(forgetful.refused()).toBe(true)
      expect(forgetful.sent).toStrictEqual([
        "initialize",
        "notifications/initialized",
        "tools/list",
        "tools/call",
        "initialize",
        "notifications/initialized",
        "tools/call"
      ])
    } finally {
      await mcp.close()
    }
  })

  it("a call started with no fiber meets an expired session as its effect does: a TransportError (404)", async () => {
    const forgetful = forgetfulServer({ holdSecondInitialize: false, writesAtOnce: true })
    const starts = new Starts()
    const mcp = await PromiseClient.connect(counted(forgetful.layer, starts), forgetful.options)
    try {
      await mcp.callTool("weather", { city: "Oslo" })
      const before = starts.count
      const direct = await settled(mcp.callTool("weather", { city: "Bergen" }))
      expect(starts.count).toBe(before)
      const effect = await settled(mcp.run((client) => client.callTool("weather", { city: "Bergen" })))
      expect(direct).toMatchObject({ error: { _tag: "TransportError", status: 404 } })
      expect(effect).toMatchObject({ error: { _tag: "TransportError", status: 404 } })
    } finally {
      await mcp.close()
    }
  })

  it("aborted while its expired session is initialized again, the call stops there; the re-initialization completes", async () => {
    const forgetful = forgetfulServer({ holdSecondInitialize: true })
    const mcp = await PromiseClient.connect(forgetful.layer, forgetful.options)
    try {
      await mcp.callTool("weather", { city: "Oslo" })
      const controller = new AbortController()
      const call = mcp.callTool("weather", { city: "Bergen" }, { signal: controller.signal })
      await forgetful.reinitializing
      controller.abort("stop")
      await expect(call).rejects.toBe("stop")
      // The re-initialization is the session's, not the call's: it goes on and is answered.
      forgetful.release()
      await vi.waitFor(() =>
        expect(forgetful.sent.filter((method) => method === "notifications/initialized")).toHaveLength(2)
      )
      await mcp.request("ping")
      expect(await mcp.run((client) => client.stats)).toMatchObject({ pending: 0, violations: { "unknown-id": 0 } })
      // The call given up is not sent again.
      expect(forgetful.sent.filter((method) => method === "tools/call")).toHaveLength(1)
    } finally {
      await mcp.close()
    }
  })

  it("closed while a call's expired session is initialized again, the call rejects with a tagged error", async () => {
    const forgetful = forgetfulServer({ holdSecondInitialize: true })
    const mcp = await PromiseClient.connect(forgetful.layer, forgetful.options)
    await mcp.callTool("weather", { city: "Oslo" })
    const call = mcp.callTool("weather", { city: "Bergen" })
    await forgetful.reinitializing
    await mcp.close()
    const error: unknown = await call.then(
      () => undefined,
      (reason: unknown) => reason
    )
    expect(error).toBeInstanceOf(McpError.SessionUnavailable)
    expect(error).toMatchObject({ server: "forgetful", reason: "the client was closed" })
  })

  it("arguments JSON cannot carry reject with the defect and hold nothing; a closed client refuses with its own error", async () => {
    for (const bound of [{}, { maxInFlight: 1 }]) {
      const { layer, options } = scripted(() => warm, bound)
      const starts = new Starts()
      const mcp = await PromiseClient.connect(counted(layer, starts), options)
      try {
        await mcp.callTool("weather", { city: "Oslo" })
        const before = starts.count
        // Started with no fiber (under the bound too, a slot being free): the write itself throws.
        await expect(mcp.callTool("weather", { city: "Oslo", at: 1n })).rejects.toThrow(TypeError)
        expect(starts.count).toBe(before)
        expect(await mcp.run((client) => client.stats)).toMatchObject({ pending: 0 })
        // The only slot under maxInFlight: 1 was given back.
        await expect(mcp.callTool("weather", { city: "Oslo" })).resolves.toMatchObject({
          structuredContent: { degrees: 20 }
        })
      } finally {
        await mcp.close()
      }
    }
    const { layer, options } = scripted(() => warm)
    const mcp = await PromiseClient.connect(layer, options)
    await mcp.close()
    await expect(mcp.callTool("weather", { city: "Oslo" })).rejects.toMatchObject({
      _tag: "SessionUnavailable",
      reason: "the client was closed"
    })
    await expect(mcp.listTools()).rejects.toMatchObject({ _tag: "SessionUnavailable" })
    await expect(mcp.request("ping")).rejects.toMatchObject({ _tag: "SessionUnavailable" })
  })

  it("a signal shared by many calls keeps no listener once they are settled", async () => {
    const { layer, options } = scripted(() => warm)
    const mcp = await PromiseClient.connect(layer, options)
    try {
      await mcp.callTool("weather", { city: "Oslo" })
      const controller = new AbortController()
      await Promise.all(
        Array.from({ length: 5 }, () => mcp.callTool("weather", { city: "Oslo" }, { signal: controller.signal }))
      )
      // One settled within its own start (its write throws): no listener is added for it.
      await expect(mcp.callTool("weather", { city: "Oslo", at: 1n }, { signal: controller.signal })).rejects.toThrow(
        TypeError
      )
      expect(getEventListeners(controller.signal, "abort")).toHaveLength(0)
    } finally {
      await mcp.close()
    }
  })

  it("a retry policy or a tracer take the effect's way (a bound with a free slot does not), with the same answer", async () => {
    const native = Effect.runSync(Effect.tracer)
    const spans: Array<string> = []
    const tracer = Tracer.make({
      span: (name, ...rest) => {
        spans.push(name)
        return native.span(name, ...rest)
      },
      context: native.context
    })
    const traced = scripted(() => warm)
    const retried = scripted(() => warm, { retry: { tools: { times: 2 } } })
    const bounded = scripted(() => warm, { maxInFlight: 1 })
    const plain = scripted(() => warm)
    for (const [layer, options, fibers] of [
      [retried.layer, retried.options, "some"],
      [traced.layer.pipe(Layer.provideMerge(Layer.setTracer(tracer))), traced.options, "some"],
      [bounded.layer, bounded.options, "none"],
      [plain.layer, plain.options, "none"]
    ] as const) {
      const starts = new Starts()
      const mcp = await PromiseClient.connect(counted(layer, starts), options)
      try {
        await mcp.callTool("weather", { city: "Oslo" })
        const before = starts.count
        await expect(mcp.callTool("weather", { city: "Oslo" })).resolves.toMatchObject({
          structuredContent: { degrees: 20 }
        })
        expect(starts.count > before).toBe(fibers === "some")
      } finally {
        await mcp.close()
      }
    }
    expect(spans).toContain("mcp.request tools/call")
  })

  it("under maxInFlight a call started with no fiber holds its slot until it settles or is given up", async () => {
    let calls = 0
    const { layer, options } = scripted(() => (++calls === 2 ? "silent" : warm), { maxInFlight: 1 })
    const starts = new Starts()
    const mcp = await PromiseClient.connect(counted(layer, starts), options)
    try {
      await mcp.callTool("weather", { city: "Oslo" })
      const controller = new AbortController()
      const before = starts.count
      const held = mcp.callTool("weather", { city: "Oslo" }, { signal: controller.signal })
      expect(starts.count).toBe(before)
      // The slot is held: this call takes its effect and waits for it (a ping would too: the bound is on every request).
      const waiting = mcp.callTool("weather", { city: "Bergen" })
      expect(starts.count).toBeGreaterThan(before)
      controller.abort("stop")
      await expect(held).rejects.toBe("stop")
      await expect(waiting).resolves.toMatchObject({ structuredContent: { degrees: 20 } })
      expect(calls).toBe(3)
    } finally {
      await mcp.close()
    }
  })
})
