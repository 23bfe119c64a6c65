/**
 * The page's server in this process for tests: a host over Node's transports (the reference
 * server over stdio and HTTP, or whatever servers a test gives), a scripted model when a test
 * gives one, the conversation kept in a directory of the test's, and the HTTP server on a free
 * loopback port. `stop` closes everything (servers, connections, fibers).
 */
import { createServer } from "node:http"
import { createRequire } from "node:module"
import { fileURLToPath } from "node:url"
import type * as LanguageModel from "@effect/ai/LanguageModel"
import * as HttpServer from "@effect/platform/HttpServer"
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { McpHost } from "@effect-mcp/host"
import { NodeTransports } from "@effect-mcp/node"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as WebUi from "../../src/WebUi.js"

/** The built page (`npm run build:page -w @effect-mcp/web`). */
export const pageDir = fileURLToPath(new URL("../../dist/page", import.meta.url))

/** The reference server's entry point. */
export const everything = createRequire(import.meta.url).resolve(
  "@modelcontextprotocol/server-everything/dist/index.js"
)

export interface StartOptions {
  readonly servers: ReadonlyArray<McpHost.ServerConfig>
  readonly model?: Layer.Layer<LanguageModel.LanguageModel>
  readonly stateDir: string
  readonly maxToolCalls?: number
  readonly secrets?: ReadonlyArray<string>
  /** Serve the MCP Apps sandbox proxy on a second free port (views drawn). Default: false. */
  readonly apps?: boolean
  /** The server that plays a recording added from the page back (`POST /api/replay`). Default: refused. */
  readonly replay?: WebUi.WebUiOptions<never, never>["replay"]
}

export interface Started extends WebUi.WebUi {
  readonly origin: string
  readonly stop: () => Promise<void>
}

/** Starts the page's server. */
export const start = async (options: StartOptions): Promise<Started> => {
  const scope = Effect.runSync(Scope.make())
  const platform = Layer.mergeAll(
    NodeContext.layer,
    NodeHttpServer.layer(() => createServer(), { host: "127.0.0.1", port: 0 }),
    KeyValueStore.layerFileSystem(options.stateDir).pipe(Layer.provide(NodeContext.layer))
  )
  const program = Effect.gen(function* () {
    const context = yield* Layer.build(platform)
    const sandbox =
      options.apps === true
        ? Context.get(
            yield* Layer.build(NodeHttpServer.layer(() => createServer(), { host: "127.0.0.1", port: 0 })),
            HttpServer.HttpServer
          )
        : undefined
    return yield* WebUi.make({
      ...(sandbox === undefined ? {} : { sandbox }),
      pageDir,
      chat: {
        model: Option.fromNullable(options.model).pipe(Option.map((layer) => ({ layer, name: "scripted model" }))),
        hint: "set ANTHROPIC_API_KEY or OPENAI_API_KEY",
        ...(options.maxToolCalls === undefined ? {} : { maxToolCalls: options.maxToolCalls })
      },
      secrets: options.secrets ?? [],
      ...(options.replay === undefined ? {} : { replay: options.replay }),
      roots: [{ uri: "file:///tmp", name: "tmp" }],
      host: (parts) =>
        McpHost.layer({
          servers: options.servers,
          restart: McpHost.defaultRestart,
          awaitServers: parts.awaitServers,
          ...(parts.mcpApps === undefined ? {} : { mcpApps: parts.mcpApps })
        }).pipe(
          Layer.provide(parts.handlers),
          Layer.provide(parts.authorizer),
          Layer.provide(parts.transports),
          Layer.provide(NodeTransports.layer),
          Layer.provide(NodeHttpClient.layerUndici),
          Layer.provide(NodeContext.layer)
        )
    }).pipe(Effect.provide(context))
  })
  const page = await Effect.runPromise(Scope.extend(program, scope))
  return {
    ...page,
    origin: `http://127.0.0.1:${page.port}`,
    stop: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

/** The reference server over stdio. */
export const everythingStdio = (name = "everything"): McpHost.ServerConfig => ({
  name,
  target: { _tag: "Stdio", command: process.execPath, args: [everything, "stdio"], env: {} }
})

/** A server over Streamable HTTP. */
export const http = (name: string, url: string, headers: Record<string, string> = {}): McpHost.ServerConfig => ({
  name,
  target: { _tag: "Http", url, transport: "http", headers }
})
