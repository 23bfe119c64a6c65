/**
 * MCP Apps through the host: `mcpApps` declares the extension to every server (the SDK v2 server
 * with ext-apps' helpers reads it back with `getUiCapability`), nothing is declared without it,
 * and the host's tools carry each view.
 */
import { fileURLToPath } from "node:url"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it } from "@effect/vitest"
import { Transports } from "@effect-mcp/client"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import { keepAliveHttpClient } from "../../client/test/support/httpClient.js"
import { McpHost } from "../src/index.js"
import { stdio } from "./support/targets.js"

const appsServer = fileURLToPath(new URL("../../client/test/fixtures/sdk-v2-apps-server.mjs", import.meta.url))

const hostWith = (options: Pick<McpHost.HostOptions, "mcpApps">) =>
  McpHost.layer({ servers: [{ name: "apps", target: stdio(appsServer, "legacy") }], ...options }).pipe(
    Layer.provide(Transports.layer),
    Layer.provide(Layer.merge(NodeContext.layer, keepAliveHttpClient))
  )

const declared = Effect.flatMap(McpHost.McpHost, (host) =>
  Effect.map(host.callTool("apps__ui-capability", {}), (result) => result.content)
)

describe("MCP Apps through the host", () => {
  it.live("mcpApps declares the extension to the servers; the tools carry their views", () =>
    Effect.gen(function* () {
      expect(yield* declared).toStrictEqual([{ type: "text", text: '{"mimeTypes":["text/html;profile=mcp-app"]}' }])
      const tools = yield* Effect.flatMap(McpHost.McpHost, (host) => host.tools)
      expect(tools.find((entry) => entry.name === "apps__weather")?.tool.ui).toStrictEqual({
        resourceUri: "ui://weather/view.html",
        visibility: ["model", "app"]
      })
    }).pipe(Effect.provide(hostWith({ mcpApps: true })), Effect.provide(Logger.remove(Logger.defaultLogger)))
  )

  it.live("nothing is declared by default", () =>
    Effect.gen(function* () {
      expect(yield* declared).toStrictEqual([{ type: "text", text: "null" }])
    }).pipe(Effect.provide(hostWith({})), Effect.provide(Logger.remove(Logger.defaultLogger)))
  )
})
