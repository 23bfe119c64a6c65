/**
 * The client against the official TypeScript SDK v2 server (`@modelcontextprotocol/server`
 * 2.4.0, `fixtures/sdk-v2-server.mjs`), a real and independent implementation of 2026-07-28,
 * over stdio and over Streamable HTTP on 127.0.0.1, serving 2026-07-28 only (`modern`),
 * 2025-11-25 and older only (`legacy`), or both. The client runs on `auto` unless a test pins a
 * revision. After each test no fiber is left, and no process (stdio) or connection (HTTP).
 * Also: a legacy server that dies on any request before `initialize` (the era probe must not
 * cost the session), and how long `auto` takes to connect compared with a pinned revision.
 */

import * as NodeContext from "@effect/platform-node/NodeContext"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import {
  Capabilities,
  HttpTransport,
  McpClient,
  type McpError,
  StdioTransport,
  type Transport
} from "@effect-mcp/client"
import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as StreamableHttpTransport from "../src/internal/transport/streamableHttpTransport.js"
import { noFibersLeft } from "./support/fibers.js"
import { keepAliveHttpClient } from "./support/httpClient.js"
import { connectionsTo } from "./support/httpServers.js"
import { children, everythingServer } from "./support/processes.js"
import {
  exitsBeforeInitialize,
  type RunningSdkV2,
  type SdkV2Mode,
  sdkV2Server,
  startSdkV2Http
} from "./support/sdkV2Server.js"

const MODES: ReadonlyArray<SdkV2Mode> = ["modern", "legacy", "both"]

const servers: Partial<Record<SdkV2Mode, RunningSdkV2>> = {}
beforeAll(async () => {
  await Promise.all(
    MODES.map(async (mode) => {
      servers[mode] = await startSdkV2Http(mode)
    })
  )
}, 30_000)
afterAll(async () => {
  await Promise.all(MODES.map((mode) => servers[mode]?.stop()))
})

const httpServer = (mode: SdkV2Mode): RunningSdkV2 => {
  const running = servers[mode]
  if (running === undefined) throw new Error(`the SDK v2 server (http ${mode}) is not running`)
  return running
}

/** A server to connect to: the fixture over a transport in a mode. */
interface Target {
  readonly transport: "stdio" | "http"
  readonly mode: SdkV2Mode
}

const stdioLayer = (args: ReadonlyArray<string>, name: string) =>
  StdioTransport.layer({
    command: process.execPath,
    args,
    name,
    shutdown: { afterStdin: "500 millis", afterTerm: "1 second" }
  }).pipe(Layer.provide(NodeContext.layer))

const transportLayer = (target: Target): Layer.Layer<Transport.Transport, McpError.TransportError> =>
  target.transport === "stdio"
    ? stdioLayer([sdkV2Server, "stdio", target.mode], `sdk-v2-${target.mode}`)
    : StreamableHttpTransport.layer({ url: httpServer(target.mode).url, name: `sdk-v2-${target.mode}-http` }).pipe(
        Layer.provide(keepAliveHttpClient)
      )

/** What the host's handlers saw. */
interface Seen {
  readonly elicitations: Array<string>
  readonly urls: Array<string>
  /** The round's requestState each form elicitation came with (2026-07-28). */
  readonly states: Array<string | undefined>
}

/**
 * The host's elicitation handler: answers every form with the name "Ada"; with `entered`, it
 * signals it and never answers (a user who does not respond).
 */
const elicitation = (seen: Seen, entered?: Deferred.Deferred<void>) =>
  Layer.succeed(Capabilities.Elicitation, {
    url: (params) =>
      Effect.sync(() => seen.urls.push(`${params.message} ${params.url}`)).pipe(
        Effect.as({ action: "accept" as const })
      ),
    form: (params, context) =>
      Effect.sync(() => {
        seen.elicitations.push(params.message)
        seen.states.push(context.requestState)
        return { action: "accept" as const, content: { name: "Ada" } }
      }).pipe(
        Effect.zipLeft(
          entered === undefined ? Effect.void : Effect.zipRight(Deferred.succeed(entered, undefined), Effect.never)
        )
      )
  })

/** Connects a client (with the elicitation handler) to the target; the session ends with the scope. */
const connect = (
  target: Target,
  options: McpClient.McpClientOptions = {},
  transport: Layer.Layer<Transport.Transport, McpError.TransportError> = transportLayer(target),
  entered?: Deferred.Deferred<void>
) =>
  Effect.gen(function* () {
    const seen: Seen = { elicitations: [], urls: [], states: [] }
    const layer = McpClient.layer({ requestTimeout: "30 seconds", maxInputRounds: 3, ...options }).pipe(
      Layer.provide(transport),
      Layer.provide(elicitation(seen, entered))
    )
    const client = Context.get(yield* Layer.build(layer), McpClient.McpClient)
    return { client, seen }
  })

/** Nothing of the target is left: no fixture process (stdio), no connection to it (HTTP). */
const nothingLeft = (target: Target) =>
  Effect.sync(() => {
    if (target.transport === "stdio") {
      expect(children().filter((line) => line.includes(`${sdkV2Server} stdio`))).toStrictEqual([])
    } else {
      expect(connectionsTo(httpServer(target.mode).port)).toBe(0)
    }
  })

/** A live test that owns a scope, leaves no fiber, and leaves nothing of the target behind. */
const scenario = <E>(
  name: string,
  target: Target,
  body: () => Effect.Effect<void, E, Scope.Scope>,
  options: { readonly fails?: boolean } = {}
) =>
  (options.fails === true ? it.live.fails : it.live)(name, () =>
    noFibersLeft(Effect.scoped(body())).pipe(Effect.zipRight(nothingLeft(target)))
  )

const textOf = (result: { readonly content: ReadonlyArray<{ readonly type: string }> }) =>
  result.content.map((block) => ("text" in block ? String(block.text) : block.type)).join("\n")

const versionOf = (mode: SdkV2Mode) => (mode === "legacy" ? "2025-11-25" : "2026-07-28")

const TARGETS: ReadonlyArray<Target> = MODES.flatMap((mode) =>
  (["stdio", "http"] as const).map((transport) => ({ transport, mode }))
)

for (const target of TARGETS) {
  const version = versionOf(target.mode)
  const stateless = version === "2026-07-28"
  describe(`SDK v2 server, ${target.mode}, over ${target.transport}, client on auto`, () => {
    scenario(`speaks ${version}; server info, capabilities and instructions; ping`, target, () =>
      Effect.gen(function* () {
        const { client } = yield* connect(target)
        expect(client.protocolVersion).toBe(version)
        expect(client.serverInfo).toMatchObject({
          name: "sdk-v2-fixture",
          version: "2.4.0-test",
          title: "SDK v2 fixture"
        })
        expect(client.serverCapabilities).toMatchObject({ tools: {}, prompts: {}, resources: {}, logging: {} })
        expect(client.instructions).toMatchObject({ _tag: "Some", value: "A fixture for effect-mcp." })
        expect((yield* client.state)._tag).toBe("Ready")
        yield* client.ping()
      })
    )

    scenario(
      stateless
        ? target.transport === "http"
          ? "lists tools without the one whose x-mcp-header is invalid"
          : "lists tools (2026-07-28 over stdio: the invalid x-mcp-header tool is left out too)"
        : "lists every tool, x-mcp-header annotations play no part before 2026-07-28",
      target,
      () =>
        Effect.gen(function* () {
          const { client } = yield* connect(target)
          const names = (yield* client.tools).map((tool) => tool.name)
          const valid = ["echo", "add", "greet", "login", "forever", "region"]
          // The spec lets clients on other transports than HTTP ignore the annotations; this
          // client leaves the tool out in the whole 2026-07-28 era (internal/tools.ts, callableIn).
          expect([...names].sort()).toStrictEqual((stateless ? valid : [...valid, "bad-header"]).sort())
        })
    )

    scenario("calls tools: text, and structuredContent checked against the outputSchema", target, () =>
      Effect.gen(function* () {
        const { client } = yield* connect(target)
        expect(textOf(yield* client.callTool("echo", { message: "hi" }))).toBe("echo: hi")
        const sum = yield* client.callTool("add", { a: 2, b: 3 })
        expect(sum.structuredContent).toStrictEqual({ sum: 5 })
        expect(sum.isError).not.toBe(true)
        // The arguments are checked against the inputSchema before anything is sent.
        const wrong = yield* Effect.either(client.callTool("add", { a: "two", b: 3 }))
        expect(wrong._tag === "Left" && wrong.left._tag).toBe("InvalidInput")
      })
    )

    scenario("a URL-mode elicitation inside a tool call reaches the url handler, and its answer the tool", target, () =>
      Effect.gen(function* () {
        const { client, seen } = yield* connect(target)
        expect(textOf(yield* client.callTool("login", {}))).toBe("login accept")
        expect(seen.urls).toStrictEqual(["Sign in to continue https://example.com/login"])
      })
    )

    scenario("log messages at the level the client set reach logMessages", target, () =>
      Effect.gen(function* () {
        const { client } = yield* connect(target)
        yield* client.setLoggingLevel("debug")
        const messages = yield* client.logMessages.pipe(
          Stream.take(1),
          Stream.runCollect,
          Effect.timeout("10 seconds"),
          Effect.fork
        )
        yield* Effect.yieldNow()
        yield* client.callTool("echo", { message: "logged" })
        const received = Chunk.toReadonlyArray(yield* Fiber.join(messages))
        expect(received).toMatchObject([{ level: "info", logger: "echo", data: { echoed: "logged" } }])
      })
    )

    scenario(
      target.transport === "http"
        ? "a call's own log messages go to its onLog, not to the client's (the server relates them to the call)"
        : "over stdio no log message can be told a call's own: it goes to the client's, not to onLog",
      target,
      () =>
        Effect.gen(function* () {
          const { client } = yield* connect(target)
          const own: Array<unknown> = []
          const clients: Array<unknown> = []
          // Observed as dispatched: what came before a result is here when the call returns.
          yield* client.observe("notifications/message", (message) =>
            Effect.sync(() => void clients.push(message.data))
          )
          const onLog = (message: McpClient.LogMessage) => Effect.sync(() => void own.push(message.data))
          // The client set no level: at 2026-07-28 the call's own asks for its logs.
          yield* client.callTool("echo", { message: "mine" }, { onLog, logLevel: "info" })
          expect(target.transport === "http" ? own : clients).toStrictEqual([{ echoed: "mine" }])
          expect(target.transport === "http" ? clients : own).toStrictEqual([])
          if (stateless) {
            // A call that asks for no level gets no log message at all.
            yield* client.callTool("echo", { message: "unasked" }, { onLog })
            expect([...own, ...clients]).toStrictEqual([{ echoed: "mine" }])
          }
        })
    )

    scenario("gets a prompt with an argument", target, () =>
      Effect.gen(function* () {
        const { client } = yield* connect(target)
        expect((yield* client.prompts).map((prompt) => prompt.name)).toStrictEqual(["greeting"])
        const prompt = yield* client.getPrompt("greeting", { name: "Ada" })
        expect(prompt.messages).toMatchObject([{ role: "user", content: { type: "text", text: "Please greet Ada." } }])
      })
    )

    scenario("lists and reads a resource, and one through a template", target, () =>
      Effect.gen(function* () {
        const { client } = yield* connect(target)
        expect((yield* client.resources).map((resource) => resource.uri)).toStrictEqual(["fixture://readme"])
        const readme = yield* client.readResource("fixture://readme")
        expect(readme.contents).toMatchObject([{ uri: "fixture://readme", text: "the fixture's readme" }])
        const templates = yield* client.resourceTemplates
        expect(templates.map((template) => template.uriTemplate)).toStrictEqual(["fixture://items/{id}"])
        const item = yield* client.readResource("fixture://items/7")
        expect(item.contents).toMatchObject([{ uri: "fixture://items/7", text: "item 7" }])
      })
    )

    scenario(
      stateless
        ? "input_required: the Elicitation handler answers; the call completes with the answer"
        : "the SDK's legacy shim elicits for real; the Elicitation handler answers; the call completes",
      target,
      () =>
        Effect.gen(function* () {
          const { client, seen } = yield* connect(target)
          // A 2026-07-28 session keeps its subscriptions/listen request open: nothing else may be.
          const baseline = (yield* client.stats).pending
          const result = yield* client.callTool("greet")
          expect(textOf(result)).toContain("hello, Ada")
          // 2026-07-28: the second round echoed the server's requestState exactly.
          if (stateless) expect(textOf(result)).toBe("hello, Ada (state asked-once)")
          expect(seen.elicitations).toStrictEqual(["What is your name?"])
          expect((yield* client.stats).pending).toBe(baseline)
        })
    )

    scenario(
      stateless
        ? "a tool that asks for input forever fails, typed, after maxInputRounds (3)"
        : "a tool that asks for input forever ends with the SDK shim's own bound (an isError result)",
      target,
      () =>
        Effect.gen(function* () {
          const { client, seen } = yield* connect(target)
          // A 2026-07-28 session keeps its subscriptions/listen request open: nothing else may be.
          const baseline = (yield* client.stats).pending
          const outcome = yield* Effect.either(client.callTool("forever"))
          if (stateless) {
            expect(outcome._tag).toBe("Left")
            if (outcome._tag === "Left") {
              expect(outcome.left).toMatchObject({ _tag: "InputNotGiven", method: "tools/call", rounds: 3 })
              expect(outcome.left.message).toContain(
                "tools/call: the server asked for input 3 times; the limit is 3 rounds (maxInputRounds)"
              )
            }
            // Rounds 1 and 2 were answered; the third asked again and hit the bound.
            expect(seen.elicitations).toStrictEqual(["round 1", "round 2"])
          } else {
            expect(outcome._tag === "Right" && outcome.right.isError).toBe(true)
            expect(seen.elicitations.length).toBeGreaterThan(1)
          }
          expect((yield* client.stats).pending).toBe(baseline)
        })
    )

    if (stateless) {
      scenario("a handler sees the round's requestState; a call answering that round continues it", target, () =>
        Effect.gen(function* () {
          const { client, seen } = yield* connect(target)
          yield* client.callTool("greet")
          expect(seen.states).toStrictEqual(["asked-once"])
          // What a relay does when its own client answered later: the answers and the state go with the call.
          const answering = {
            inputResponses: { name: { action: "accept", content: { name: "Grace" } } },
            requestState: "asked-once"
          }
          const continued = yield* client.callTool("greet", {}, { answering })
          expect(textOf(continued)).toBe("hello, Grace (state asked-once)")
          expect(seen.elicitations).toStrictEqual(["What is your name?"])
        })
      )
    }

    scenario("interrupting a call while the host is still answering its input request leaves nothing", target, () =>
      Effect.gen(function* () {
        const entered = yield* Deferred.make<void>()
        const { client, seen } = yield* connect(target, {}, transportLayer(target), entered)
        // A 2026-07-28 session keeps its subscriptions/listen request open: nothing else may be.
        const baseline = (yield* client.stats).pending
        const call = yield* Effect.fork(client.callTool("greet"))
        yield* Deferred.await(entered).pipe(Effect.timeout("10 seconds"))
        yield* Fiber.interrupt(call)
        expect(seen.elicitations).toStrictEqual(["What is your name?"])
        expect((yield* client.stats).pending).toBe(baseline)
        // The session goes on.
        expect(textOf(yield* client.callTool("echo", { message: "after" }))).toBe("echo: after")
      })
    )

    const headers = stateless && target.transport === "http"
    scenario(
      headers
        ? "x-mcp-header: the argument reaches the server as Mcp-Param-Region (plain and Base64)"
        : "x-mcp-header: no Mcp-Param header outside 2026-07-28 over HTTP; the call works",
      target,
      () =>
        Effect.gen(function* () {
          const { client } = yield* connect(target)
          const plain = textOf(yield* client.callTool("region", { region: "us-west1" }))
          expect(plain).toBe(`region us-west1; header ${headers ? "us-west1" : "none"}`)
          // Not plain ASCII: sent in the spec's Base64 sentinel, which the SDK checks against the body.
          const encoded = textOf(yield* client.callTool("region", { region: "zürich" }))
          expect(encoded).toBe(`region zürich; header ${headers ? `=?base64?${btoa("z\xc3\xbcrich")}?=` : "none"}`)
        })
    )
  })
}

describe("SDK v2 server, pinned revisions", () => {
  for (const transport of ["stdio", "http"] as const) {
    const modern: Target = { transport, mode: "modern" }
    const legacy: Target = { transport, mode: "legacy" }
    const both: Target = { transport, mode: "both" }

    scenario(`2026-07-28 pinned against a modern server over ${transport}`, modern, () =>
      Effect.gen(function* () {
        const { client } = yield* connect(modern, { protocolVersion: "2026-07-28" })
        expect(client.protocolVersion).toBe("2026-07-28")
        expect(client.serverInfo.name).toBe("sdk-v2-fixture")
        expect(textOf(yield* client.callTool("echo", { message: "pinned" }))).toBe("echo: pinned")
      })
    )

    scenario(`2025-11-25 pinned against a legacy server over ${transport}`, legacy, () =>
      Effect.gen(function* () {
        const { client } = yield* connect(legacy, { protocolVersion: "2025-11-25" })
        expect(client.protocolVersion).toBe("2025-11-25")
        expect(textOf(yield* client.callTool("echo", { message: "pinned" }))).toBe("echo: pinned")
      })
    )

    scenario(`2025-11-25 pinned against a server of both eras over ${transport}`, both, () =>
      Effect.gen(function* () {
        const { client } = yield* connect(both, { protocolVersion: "2025-11-25" })
        expect(client.protocolVersion).toBe("2025-11-25")
        expect(textOf(yield* client.callTool("echo", { message: "pinned" }))).toBe("echo: pinned")
      })
    )

    scenario(`2026-07-28 pinned against a legacy-only server over ${transport} fails, typed`, legacy, () =>
      Effect.gen(function* () {
        const outcome = yield* Effect.either(connect(legacy, { protocolVersion: "2026-07-28" }))
        expect(outcome._tag).toBe("Left")
        if (outcome._tag === "Left") {
          expect(outcome.left._tag).toBe("UnsupportedProtocolVersion")
          expect(outcome.left.message).toContain("2026-07-28")
        }
      })
    )

    // Over HTTP the SDK answers the initialize POST with 400 and a JSON-RPC -32022 body naming the
    // revisions it supports: that body is the answer (an RpcError), not a sign of a legacy server.
    scenario(
      `2025-11-25 pinned against a modern-only server over ${transport} fails with the server's -32022`,
      modern,
      () =>
        Effect.gen(function* () {
          const outcome = yield* Effect.either(connect(modern, { protocolVersion: "2025-11-25" }))
          expect(outcome._tag).toBe("Left")
          if (outcome._tag === "Left") {
            expect(outcome.left).toMatchObject({
              _tag: "RpcError",
              code: -32022,
              data: { supported: ["2026-07-28"] }
            })
          }
        })
    )
  }
})

describe("SDK v2 server over the HttpTransport (auto transport), client on auto", () => {
  for (const mode of MODES) {
    const target: Target = { transport: "http", mode }
    scenario(`${mode}: speaks ${versionOf(mode)}, calls tools, elicits`, target, () =>
      Effect.gen(function* () {
        const transport = HttpTransport.layer({ url: httpServer(mode).url, name: `sdk-v2-${mode}-auto` }).pipe(
          Layer.provide(keepAliveHttpClient)
        )
        const { client, seen } = yield* connect(target, {}, transport)
        expect(client.protocolVersion).toBe(versionOf(mode))
        expect(textOf(yield* client.callTool("echo", { message: "auto" }))).toBe("echo: auto")
        expect(textOf(yield* client.callTool("greet"))).toContain("hello, Ada")
        expect(seen.elicitations).toStrictEqual(["What is your name?"])
      })
    )
  }
})

describe("a legacy server that exits on any request before initialize", () => {
  const layer = (options: McpClient.McpClientOptions) =>
    McpClient.layer(options).pipe(Layer.provide(stdioLayer([exitsBeforeInitialize], "exits-before-initialize")))

  it.live("auto still connects (the server exits on the probe, is started again), speaks 2025-11-25", () =>
    noFibersLeft(
      Effect.scoped(
        Effect.gen(function* () {
          const client = Context.get(yield* Layer.build(layer({})), McpClient.McpClient)
          expect(client.protocolVersion).toBe("2025-11-25")
          expect(client.serverInfo.name).toBe("exits-before-initialize")
          expect(textOf(yield* client.callTool("echo", { message: "still here" }))).toBe("echo: still here")
          expect((yield* client.state)._tag).toBe("Ready")
        })
      )
    ).pipe(
      Effect.zipRight(
        Effect.sync(() => expect(children().filter((line) => line.includes(exitsBeforeInitialize))).toStrictEqual([]))
      )
    )
  )
})

describe("connect time, auto vs pinned (measured and logged, not asserted)", () => {
  const connectMillis = (args: ReadonlyArray<string>, options: McpClient.McpClientOptions) =>
    Effect.scoped(
      Effect.gen(function* () {
        const layer = McpClient.layer(options).pipe(Layer.provide(stdioLayer(args, "timed")))
        const start = performance.now()
        const client = Context.get(yield* Layer.build(layer), McpClient.McpClient)
        const elapsed = performance.now() - start
        return { elapsed, version: client.protocolVersion }
      })
    )

  const measure = (label: string, args: ReadonlyArray<string>) =>
    it.live(
      `${label}: auto vs 2025-11-25 pinned`,
      () =>
        Effect.gen(function* () {
          // Three rounds give a median for the log; the assertions (both settle on 2025-11-25) need one.
          const rounds = 3
          const auto: Array<number> = []
          const pinned: Array<number> = []
          // Interleaved, after one warm-up of each, so both see the same machine.
          yield* connectMillis(args, {})
          yield* connectMillis(args, { protocolVersion: "2025-11-25" })
          for (let round = 0; round < rounds; round++) {
            const a = yield* connectMillis(args, {})
            const p = yield* connectMillis(args, { protocolVersion: "2025-11-25" })
            expect(a.version).toBe("2025-11-25")
            expect(p.version).toBe("2025-11-25")
            auto.push(a.elapsed)
            pinned.push(p.elapsed)
          }
          const median = (values: Array<number>) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]
          const show = (values: Array<number>) => values.map((value) => value.toFixed(0)).join(", ")
          console.info(
            `connect time against ${label} (ms): auto [${show(auto)}] median ${median(auto)?.toFixed(0)}; ` +
              `2025-11-25 pinned [${show(pinned)}] median ${median(pinned)?.toFixed(0)}`
          )
        }),
      60_000
    )

  measure("the reference server (server-everything, stdio)", [everythingServer, "stdio"])
  measure("the SDK v2 legacy fixture (stdio)", [sdkV2Server, "stdio", "legacy"])
  measure("the server that exits before initialize (stdio)", [exitsBeforeInitialize])
})

describe("closing over HTTP at 2026-07-28", () => {
  it.live("a transport whose scope ends before the client's ends the subscription quietly (no warning)", () => {
    const lines: Array<string> = []
    const logger = Logger.make(({ logLevel, message }) => {
      lines.push(`${logLevel.label} ${String(Array.isArray(message) ? message[0] : message)}`)
    })
    return Effect.gen(function* () {
      const transportScope = yield* Scope.make()
      const clientScope = yield* Scope.make()
      const transport = yield* Layer.buildWithScope(
        transportLayer({ transport: "http", mode: "modern" }),
        transportScope
      )
      const built = yield* Layer.buildWithScope(
        McpClient.layer({ protocolVersion: "2026-07-28" }).pipe(Layer.provide(Layer.succeedContext(transport))),
        clientScope
      )
      const client = Context.get(built, McpClient.McpClient)
      expect(client.era).toBe("stateless")
      // The subscription (subscriptions/listen) is outstanding before the transport goes.
      const pending = yield* client.stats.pipe(
        Effect.delay("10 millis"),
        Effect.repeat({ until: (stats) => stats.pending >= 1 }),
        Effect.timeout("10 seconds")
      )
      expect(pending.pending).toBe(1)
      yield* Scope.close(transportScope, Exit.void)
      // The session has seen the connection end (and the subscription's failure with it) before the client closes.
      yield* client.stateChanges.pipe(
        Stream.takeUntil((state) => state._tag === "Failed"),
        Stream.runDrain
      )
      yield* Effect.sleep("100 millis")
      yield* Scope.close(clientScope, Exit.void)
      expect(lines.filter((line) => line.startsWith("WARN") || line.startsWith("ERROR"))).toStrictEqual([])
      expect(lines).toContain("DEBUG sdk-v2-fixture: change notifications ended with the connection")
    }).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, logger)), Logger.withMinimumLogLevel(LogLevel.All))
  })
})
