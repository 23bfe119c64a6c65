/**
 * The README's example: two MCP servers over stdio, their tools given to Claude through
 * @effect/ai, one turn of the tool loop. Type-checked with the tests; run it with
 * `ANTHROPIC_API_KEY=… npx tsx packages/ai/examples/two-servers.ts`.
 */
import { AnthropicClient, AnthropicLanguageModel } from "@effect/ai-anthropic"
import { NodeContext, NodeHttpClient, NodeRuntime } from "@effect/platform-node"
import { McpToolkit, ToolLoop } from "@effect-mcp/ai"
import { Transports } from "@effect-mcp/client"
import { McpHost } from "@effect-mcp/host"
import { Config, Effect, Layer } from "effect"

const stdio = (...args: Array<string>) => ({ _tag: "Stdio" as const, command: "npx", args: ["-y", ...args], env: {} })
const servers = McpHost.layer({
  servers: [
    { name: "everything", target: stdio("@modelcontextprotocol/server-everything") },
    { name: "files", target: stdio("@modelcontextprotocol/server-filesystem", ".") }
  ]
}).pipe(Layer.provide(Transports.layer))
const claude = AnthropicLanguageModel.layer({ model: "claude-sonnet-4-5" }).pipe(
  Layer.provide(AnthropicClient.layerConfig({ apiKey: Config.redacted("ANTHROPIC_API_KEY") }))
)

ToolLoop.run({ prompt: "Add 2 and 40 with a tool, then list the files here." }).pipe(
  Effect.flatMap((outcome) => Effect.log(outcome.text)),
  Effect.provide(McpToolkit.layer().pipe(Layer.provide(servers))),
  Effect.provide(claude),
  Effect.provide(Layer.merge(NodeContext.layer, NodeHttpClient.layer)),
  NodeRuntime.runMain
)
