/**
 * MCP Apps against a real server: the official SDK v2 with the extension's own server helpers
 * (`registerAppTool`, `registerAppResource`; `fixtures/sdk-v2-apps-server.mjs`) over stdio, at
 * 2025-11-25 and at 2026-07-28. The client declares the extension only when asked (`mcpApps`),
 * at `initialize` or in every request's client capabilities, and each declaration validates
 * against the extension's `schema.json`; a tool's view and visibility are read from `_meta` (the
 * older flat key too), a malformed `_meta.ui` is ignored with a warning, and the view's HTML reads.
 */
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { fileURLToPath } from "node:url"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it } from "@effect/vitest"
import { McpClient, Middleware, StdioTransport } from "@effect-mcp/client"
import { type JsonRpc, McpApps } from "@effect-mcp/protocol"
import { Ajv2020 } from "ajv/dist/2020.js"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"

const appsServer = fileURLToPath(new URL("./fixtures/sdk-v2-apps-server.mjs", import.meta.url))

const schema: unknown = JSON.parse(
  readFileSync(createRequire(import.meta.url).resolve("@modelcontextprotocol/ext-apps/schema.json"), "utf8")
)
const ajv = new Ajv2020({ strict: false })
ajv.addSchema(schema as object, "apps")
const validSettings = ajv.getSchema("apps#/$defs/McpUiClientCapabilities")

type Mode = "legacy" | "modern"
const ERAS: ReadonlyArray<readonly [Mode, string]> = [
  ["legacy", "2025-11-25"],
  ["modern", "2026-07-28"]
]

const isObject = (value: unknown): value is { readonly [key: string]: unknown } =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The client capabilities a request declares: `initialize`'s, or a 2026-07-28 request's `_meta`. */
const declaredIn = (message: JsonRpc.JSONRPCMessage): unknown => {
  if (!("method" in message) || !isObject(message.params)) return undefined
  if (message.method === "initialize") return message.params.capabilities
  const meta = message.params._meta
  return isObject(meta) ? meta["io.modelcontextprotocol/clientCapabilities"] : undefined
}

/** Connects to the fixture; every outbound message's declared capabilities, and the warnings logged, are kept. */
const connect = (mode: Mode, options: McpClient.McpClientOptions) =>
  Effect.gen(function* () {
    const declared: Array<unknown> = []
    const warnings: Array<string> = []
    const recorder: Middleware.Interceptor = {
      outbound: (message, next) =>
        Effect.suspend(() => {
          const capabilities = declaredIn(message)
          if (capabilities !== undefined) declared.push(capabilities)
          return next(message)
        })
    }
    const transport = StdioTransport.layer({
      command: process.execPath,
      args: [appsServer, mode],
      name: `apps-${mode}`,
      shutdown: { afterStdin: "500 millis", afterTerm: "1 second" }
    }).pipe(Layer.provide(NodeContext.layer))
    const layer = McpClient.layer({ requestTimeout: "30 seconds", ...options }).pipe(
      Layer.provide(transport),
      Layer.provide(Middleware.layer(recorder))
    )
    const client = Context.get(yield* Layer.build(layer), McpClient.McpClient)
    return { client, declared, warnings }
  })

const warningsTo = (warnings: Array<string>) =>
  Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ logLevel, message }) => {
      if (logLevel._tag === "Warning") warnings.push(JSON.stringify(message))
    })
  )

const extensionOf = (capabilities: unknown): unknown =>
  isObject(capabilities) && isObject(capabilities.extensions) ? capabilities.extensions[McpApps.EXTENSION] : undefined

describe("MCP Apps against an SDK v2 server with ext-apps", () => {
  for (const [mode, version] of ERAS) {
    describe(version, () => {
      it.live("declares the extension when asked, valid by the extension's schema.json; reads the server's", () => {
        const warnings: Array<string> = []
        return Effect.scoped(
          Effect.gen(function* () {
            const { client, declared } = yield* connect(mode, { mcpApps: true })
            expect(client.protocolVersion).toBe(version)
            expect(client.serverCapabilities.extensions?.[McpApps.EXTENSION]).toStrictEqual({})
            const answer = yield* client.callTool("ui-capability", {})
            if (mode === "legacy")
              expect(answer.content).toStrictEqual([
                { type: "text", text: JSON.stringify({ mimeTypes: [McpApps.MIME_TYPE] }) }
              ])
            expect(declared.length).toBeGreaterThan(0)
            for (const capabilities of declared) {
              const settings = extensionOf(capabilities)
              expect(settings).toStrictEqual({ mimeTypes: [McpApps.MIME_TYPE] })
              expect(validSettings?.(settings), JSON.stringify(validSettings?.errors)).toBe(true)
            }
          }).pipe(Effect.provide(warningsTo(warnings)))
        )
      })

      it.live("declares nothing of it by default", () =>
        Effect.scoped(
          Effect.gen(function* () {
            const { client, declared } = yield* connect(mode, {})
            yield* client.callTool("plain", {})
            expect(declared.length).toBeGreaterThan(0)
            for (const capabilities of declared) expect(extensionOf(capabilities)).toBeUndefined()
          }).pipe(Effect.provide(warningsTo([])))
        )
      )

      it.live("types each tool's view and visibility; a malformed _meta.ui is ignored with a warning", () => {
        const warnings: Array<string> = []
        return Effect.scoped(
          Effect.gen(function* () {
            const { client } = yield* connect(mode, { mcpApps: true })
            const tools = yield* client.tools
            const ui = Object.fromEntries(tools.map((tool) => [tool.name, tool.ui]))
            expect(ui).toStrictEqual({
              weather: { resourceUri: "ui://weather/view.html", visibility: ["model", "app"] },
              refresh: { resourceUri: "ui://weather/view.html", visibility: ["app"] },
              forecast: { resourceUri: "ui://weather/view.html", visibility: ["model"] },
              broken: undefined,
              plain: undefined,
              "ui-capability": undefined
            })
            expect(warnings.filter((line) => line.includes("tool broken has a malformed _meta.ui"))).toHaveLength(1)
            // The tool with the malformed view is still listed and callable.
            const result = yield* client.callTool("broken", {})
            expect(result.content).toStrictEqual([{ type: "text", text: "still callable" }])
          }).pipe(Effect.provide(warningsTo(warnings)))
        )
      })

      it.live("reads the view's HTML and its declared CSP", () =>
        Effect.scoped(
          Effect.gen(function* () {
            const { client } = yield* connect(mode, { mcpApps: true })
            const listed = yield* client.resources
            expect(listed.map((resource) => [resource.uri, resource.mimeType])).toStrictEqual([
              ["ui://weather/view.html", McpApps.MIME_TYPE]
            ])
            const read = yield* client.readResource("ui://weather/view.html")
            const [content] = read.contents
            expect(content?.mimeType).toBe(McpApps.MIME_TYPE)
            expect(content !== undefined && "text" in content ? content.text : "").toContain("<h1>weather view</h1>")
            expect(content?._meta?.ui).toStrictEqual({
              csp: { connectDomains: ["https://api.weather.example"], resourceDomains: ["https://cdn.example"] },
              permissions: { clipboardWrite: {} },
              prefersBorder: true
            })
          })
        )
      )
    })
  }
})
