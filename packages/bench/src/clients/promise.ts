/**
 * effect-mcp as a Promise program uses it: `@effect-mcp/node/NodePromiseClient`, the one-file
 * bundle (its `PromiseClient` over `NodeStdioTransport` or `NodeHttpTransport`). Pinned to
 * 2025-11-25, the revision the SDK clients speak, as in `effect.ts`.
 */
import type { McpClient } from "@effect-mcp/client"
import type { Client, Target } from "./Client.js"

const load = () => import("@effect-mcp/node/NodePromiseClient")

const textLength = (result: McpClient.CallToolResult) =>
  result.content.reduce((sum, block) => sum + (block.type === "text" ? block.text.length : 0), 0)

const serverOf = (target: Target) =>
  target.kind === "stdio"
    ? { command: target.command, args: target.args, name: "bench" }
    : { url: target.url, transport: "http" as const, name: "bench" }

/** The effect-mcp client from Promise code: `NodePromiseClient.connect`. */
export const client: Client = {
  name: "effect-mcp",
  prepare: async () => {
    await load()
  },
  connect: async (target) => {
    const NodePromiseClient = await load()
    const mcp = await NodePromiseClient.connect(serverOf(target), {
      name: "bench",
      requestTimeout: "120 seconds",
      protocolVersion: "2025-11-25",
      ...(target.maxInFlight === undefined ? {} : { maxInFlight: target.maxInFlight })
    })
    return {
      list: () => mcp.request("tools/list", undefined).then((result) => result.tools.length),
      echo: (message) => mcp.callTool("echo", { message }).then(() => undefined),
      blob: (kb) => mcp.callTool("blob", { kb }).then(textLength),
      sleep: (ms) => mcp.callTool("sleep", { ms }).then(() => undefined),
      close: () => mcp.close()
    }
  }
}
