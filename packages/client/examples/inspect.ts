/**
 * An overview of an MCP server, then one tool call, with @effect-mcp/client.
 *
 *   npx tsx --conditions=@effect-mcp/source packages/client/examples/inspect.ts                      the bundled reference server over stdio
 *   npx tsx --conditions=@effect-mcp/source packages/client/examples/inspect.ts http://127.0.0.1:3001/mcp   any server over HTTP (auto: Streamable HTTP or legacy SSE)
 */
import { createRequire } from "node:module"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { HttpTransport, McpClient, StdioTransport } from "@effect-mcp/client"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"

const url = process.argv[2]
const referenceServer = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js")

const transport =
  url === undefined
    ? StdioTransport.layer({ command: process.execPath, args: [referenceServer, "stdio"], name: "everything" }).pipe(
        Layer.provide(NodeContext.layer)
      )
    : // node:http with a keep-alive agent (NodeHttpClient.layer's own agent opens a connection per request)
      HttpTransport.layer({ url }).pipe(
        Layer.provide(NodeHttpClient.layerWithoutAgent),
        Layer.provide(NodeHttpClient.makeAgentLayer({ keepAlive: true }))
      )

const short = (text: string | undefined, width = 72) => {
  const flat = (text ?? "").replace(/\s+/g, " ").trim()
  return flat.length > width ? `${flat.slice(0, width - 1)}…` : flat
}

const program = Effect.gen(function* () {
  const client = yield* McpClient.McpClient
  const info = client.serverInfo
  yield* Console.log(`${info.title ?? info.name} ${info.version} — protocol ${client.protocolVersion}`)
  yield* Console.log(`capabilities: ${Object.keys(client.serverCapabilities).join(", ")}`)
  if (Option.isSome(client.instructions)) yield* Console.log(`instructions: ${short(client.instructions.value)}`)

  const caps = client.serverCapabilities
  if (caps.tools !== undefined) {
    const tools = yield* client.tools
    yield* Console.log(`\ntools (${tools.length})`)
    for (const tool of tools) yield* Console.log(`  ${tool.name.padEnd(32)} ${short(tool.description, 60)}`)
  }
  if (caps.resources !== undefined) {
    const resources = yield* client.resources
    const templates = yield* client.resourceTemplates
    yield* Console.log(`\nresources (${resources.length}), templates (${templates.length})`)
    for (const resource of resources.slice(0, 5)) yield* Console.log(`  ${resource.uri}`)
    for (const template of templates) yield* Console.log(`  ${template.uriTemplate}`)
  }
  if (caps.prompts !== undefined) {
    const prompts = yield* client.prompts
    yield* Console.log(`\nprompts (${prompts.length})`)
    for (const prompt of prompts) yield* Console.log(`  ${prompt.name.padEnd(32)} ${short(prompt.description, 60)}`)
  }

  const tools = caps.tools === undefined ? [] : yield* client.tools
  if (tools.some((tool) => tool.name === "echo")) {
    const result = yield* client.callTool("echo", { message: "hello from effect-mcp" })
    const text = result.content.map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join(" ")
    yield* Console.log(`\ncalled echo → ${text}`)
  }
})

program.pipe(
  Effect.provide(McpClient.layer({ name: url ?? "everything" })),
  Effect.provide(transport),
  NodeRuntime.runMain
)
