/**
 * effect-mcp's `McpClient`, over its Node stdio transport or its Node HTTP transport (requests on
 * node:http with keep-alive; the platform `HttpClient`, node:http with keep-alive too, for DELETE).
 * Pinned to 2025-11-25, the revision the SDK clients speak: the default (`auto`) first probes for
 * 2026-07-28, which over stdio is a second process start (measured in the client's tests).
 * Each transport's modules load when a session needs them, as in a program that uses one of them
 * (the HTTP half brings `@effect/platform-node`'s client with undici: ~100 ms of a cold start).
 */

import { McpClient } from "@effect-mcp/client"
import type { McpSchema } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import type { Client, Target } from "./Session.js"

const transportOf = async (target: Target) => {
  if (target.kind === "stdio") {
    const NodeStdioTransport = await import("@effect-mcp/client/NodeStdioTransport")
    return NodeStdioTransport.layer({ command: target.command, args: target.args, name: "bench" })
  }
  const [NodeHttpTransport, NodeHttpClient] = await Promise.all([
    import("@effect-mcp/client/NodeHttpTransport"),
    import("@effect/platform-node/NodeHttpClient")
  ])
  return NodeHttpTransport.layer({ url: target.url, transport: "http", name: "bench" }).pipe(
    Layer.provide(NodeHttpClient.layerWithoutAgent),
    Layer.provide(NodeHttpClient.makeAgentLayer({ keepAlive: true }))
  )
}

const textLength = (result: McpSchema.CallToolResult) =>
  result.content.reduce((sum, block) => sum + (block.type === "text" ? block.text.length : 0), 0)

/** The effect-mcp client. */
export const client: Client = {
  name: "effect-mcp",
  connect: async (target) => {
    const runtime = ManagedRuntime.make(
      McpClient.layer({
        name: "bench",
        requestTimeout: "120 seconds",
        protocolVersion: "2025-11-25",
        ...(target.maxInFlight === undefined ? {} : { maxInFlight: target.maxInFlight })
      }).pipe(Layer.provide(await transportOf(target)))
    )
    const mcp = await runtime.runPromise(McpClient.McpClient)
    return {
      list: () => runtime.runPromise(Effect.map(mcp.request("tools/list", undefined), (result) => result.tools.length)),
      echo: (message) => runtime.runPromise(Effect.asVoid(mcp.callTool("echo", { message }))),
      blob: (kb) => runtime.runPromise(Effect.map(mcp.callTool("blob", { kb }), textLength)),
      sleep: (ms) => runtime.runPromise(Effect.asVoid(mcp.callTool("sleep", { ms }))),
      close: () => runtime.dispose()
    }
  }
}
