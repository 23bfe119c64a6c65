/**
 * The client against tmcp (`fixtures/tmcp-server.mjs`), an independent implementation of MCP
 * (not the official SDK) that speaks 2026-07-28, over stdio and Streamable HTTP on 127.0.0.1.
 * What the official SDK never sends: a tool whose `outputSchema` is not an object schema (a
 * string output), and its URL-mode elicitation as an input request. After each test no fiber
 * is left, and no process (stdio) or connection (HTTP).
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Capabilities, McpClient, StdioTransport } from "@effect-mcp/client"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as StreamableHttpTransport from "../src/internal/transport/streamableHttpTransport.js"
import { noFibersLeft } from "./support/fibers.js"
import { keepAliveHttpClient } from "./support/httpClient.js"
import { connectionsTo } from "./support/httpServers.js"
import { children } from "./support/processes.js"
import { type RunningSdkV2, startHttpFixture, tmcpServer } from "./support/sdkV2Server.js"

let http: RunningSdkV2 | undefined
beforeAll(async () => {
  http = await startHttpFixture(tmcpServer, ["http"], "the tmcp server (http)")
}, 30_000)
afterAll(async () => {
  await http?.stop()
})

const running = (): RunningSdkV2 => {
  if (http === undefined) throw new Error("the tmcp server (http) is not running")
  return http
}

type Over = "stdio" | "http"

const transportOf = (over: Over) =>
  over === "stdio"
    ? StdioTransport.layer({
        command: process.execPath,
        args: [tmcpServer, "stdio"],
        name: "tmcp",
        shutdown: { afterStdin: "500 millis", afterTerm: "1 second" }
      }).pipe(Layer.provide(NodeContext.layer))
    : StreamableHttpTransport.layer({ url: running().url, name: "tmcp-http" }).pipe(Layer.provide(keepAliveHttpClient))

/** A client over `over` whose URL elicitations are recorded and accepted. */
const connect = (over: Over) =>
  Effect.gen(function* () {
    const urls: Array<string> = []
    const elicitation = Layer.succeed(Capabilities.Elicitation, {
      url: (params) =>
        Effect.sync(() => urls.push(`${params.message} ${params.url}`)).pipe(Effect.as({ action: "accept" as const }))
    })
    const layer = McpClient.layer({ requestTimeout: "30 seconds" }).pipe(
      Layer.provide(transportOf(over)),
      Layer.provide(elicitation)
    )
    const client = Context.get(yield* Layer.build(layer), McpClient.McpClient)
    return { client, urls }
  })

const nothingLeft = (over: Over) =>
  Effect.sync(() => {
    if (over === "stdio") expect(children().filter((line) => line.includes(`${tmcpServer} stdio`))).toStrictEqual([])
    else expect(connectionsTo(running().port)).toBe(0)
  })

const textOf = (result: McpClient.CallToolResult) =>
  result.content.map((block) => (block.type === "text" ? block.text : block.type)).join("\n")

for (const over of ["stdio", "http"] as const) {
  describe(`tmcp over ${over}, client on auto`, () => {
    const scenario = (name: string, body: () => Effect.Effect<void, unknown, never>) =>
      it.live(name, () => noFibersLeft(body()).pipe(Effect.zipRight(nothingLeft(over))))

    scenario("speaks 2026-07-28 and lists every tool, the one with a string outputSchema too", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const { client } = yield* connect(over)
          expect(client.protocolVersion).toBe("2026-07-28")
          expect(client.serverInfo).toMatchObject({ name: "tmcp-fixture", version: "1.0.0" })
          const tools = yield* client.tools
          expect(tools.map((tool) => tool.name)).toStrictEqual(["echo", "shout", "login"])
          expect(tools.find((tool) => tool.name === "shout")?.outputSchema).toMatchObject({ type: "string" })
        })
      )
    )

    scenario("calls a tool whose structured output is a string, checked against its outputSchema", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const { client } = yield* connect(over)
          expect(textOf(yield* client.callTool("echo", { message: "hi" }))).toBe("echo: hi")
          const shouted = yield* client.callTool("shout", { message: "hey" })
          expect(shouted.structuredContent).toBe("HEY")
          expect(textOf(shouted)).toBe("HEY")
        })
      )
    )

    scenario("a URL-mode elicitation (an input request) reaches the url handler; the tool gets the answer", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const { client, urls } = yield* connect(over)
          expect(textOf(yield* client.callTool("login", {}))).toBe("login accept")
          expect(urls).toStrictEqual(["Sign in to continue https://example.com/login"])
        })
      )
    )
  })
}
