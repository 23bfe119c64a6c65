/**
 * effect-mcp's `McpClient` as an Effect program imports it (its modules, not the one-file
 * bundle that `promise.ts` measures), over its Node stdio transport or its Node HTTP transport (requests and
 * event streams on node:http with keep-alive; the context's `HttpClient` serves only the closing
 * DELETE and OAuth, so the platform's fetch client does: it loads in ~10 ms where
 * `@effect/platform-node`'s, with undici, takes ~100). Pinned to 2025-11-25, the revision the SDK
 * clients speak: the default (`auto`) first probes for 2026-07-28, which over stdio is a second
 * process start (measured in the client's tests). Each transport's modules load when a session
 * needs them (`prepare`), as in a program that uses one of them.
 */

import { McpClient } from "@effect-mcp/client"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import type { Client, Session, Target } from "./Client.js"

const loadStdio = () => import("@effect-mcp/node/NodeStdioTransport")
const loadHttp = () =>
  Promise.all([import("@effect-mcp/node/NodeHttpTransport"), import("@effect/platform/FetchHttpClient")])

const transportOf = async (target: Target) => {
  if (target.kind === "stdio") {
    const NodeStdioTransport = await loadStdio()
    return NodeStdioTransport.layer({ command: target.command, args: target.args, name: "bench" })
  }
  const [NodeHttpTransport, FetchHttpClient] = await loadHttp()
  return NodeHttpTransport.layer({ url: target.url, transport: "http", name: "bench" }).pipe(
    Layer.provide(FetchHttpClient.layer)
  )
}

const textLength = (result: McpClient.CallToolResult) =>
  result.content.reduce((sum, block) => sum + (block.type === "text" ? block.text.length : 0), 0)

/** `McpClient.layer` over the target's Node transport, as the benchmark configures every client. */
export const layerOf = async (target: Target) =>
  McpClient.layer({
    name: "bench",
    requestTimeout: "120 seconds",
    protocolVersion: "2025-11-25",
    ...(target.maxInFlight === undefined ? {} : { maxInFlight: target.maxInFlight })
  }).pipe(Layer.provide(await transportOf(target)))

/** Loads the target's transport modules. */
export const prepare = async (target: Target) => {
  await (target.kind === "stdio" ? loadStdio() : loadHttp())
}

/** A session of the client in a runtime of its own, each call run with `runtime.runPromise`, and what it runs on. */
export const connectRuntime = async (target: Target) => {
  const runtime = ManagedRuntime.make(await layerOf(target))
  const mcp = await runtime.runPromise(McpClient.McpClient)
  const session: Session = {
    list: () => runtime.runPromise(Effect.map(mcp.request("tools/list", undefined), (result) => result.tools.length)),
    echo: (message) => runtime.runPromise(Effect.asVoid(mcp.callTool("echo", { message }))),
    blob: (kb) => runtime.runPromise(Effect.map(mcp.callTool("blob", { kb }), textLength)),
    sleep: (ms) => runtime.runPromise(Effect.asVoid(mcp.callTool("sleep", { ms }))),
    close: () => runtime.dispose()
  }
  return { runtime, mcp, session }
}

/** The effect-mcp client run from Promise code one effect at a time (`runtime.runPromise` per call). */
export const effectClient: Client = {
  name: "effect-mcp (runPromise)",
  prepare,
  connect: async (target) => (await connectRuntime(target)).session
}
