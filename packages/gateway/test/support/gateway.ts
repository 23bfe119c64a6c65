/**
 * An in-process gateway for tests: a host over Node's transports with the gateway's handlers,
 * and connections to it made of an in-memory transport pair, `McpGateway.serve` on one end and
 * our own client on the other.
 */
import { createRequire } from "node:module"
import { fileURLToPath } from "node:url"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Capabilities, McpClient, type McpError } from "@effect-mcp/client"
import { McpHost, type ServerEntry } from "@effect-mcp/host"
import * as InMemoryTransport from "@effect-mcp/jsonrpc/InMemoryTransport"
import { Transport } from "@effect-mcp/jsonrpc/Transport"
import * as NodeTransports from "@effect-mcp/node/NodeTransports"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Scope from "effect/Scope"
import { McpGateway } from "../../src/index.js"

const require = createRequire(import.meta.url)

/** A Node script (with arguments) as a stdio server. */
export const stdio = (...args: ReadonlyArray<string>): ServerEntry.StdioTarget => ({
  _tag: "Stdio",
  command: process.execPath,
  args,
  env: {}
})

/** The reference server over stdio. */
export const everything = stdio(require.resolve("@modelcontextprotocol/server-everything/dist/index.js"), "stdio")

/** The SDK v1 fault server (`fixtures/faultServer.mjs`). */
export const faultServer = stdio(fileURLToPath(new URL("../fixtures/faultServer.mjs", import.meta.url)))
/** The fault-injecting mini server of the client's tests, in `mode`. */
export const miniServer = (mode: string) =>
  stdio(fileURLToPath(new URL("../../../client/test/fixtures/mini-server.mjs", import.meta.url)), mode)
/** A 2026-07-28 server on SDK v2 whose `book` asks for a name and `starts` counts its fresh starts (`fixtures/roundServer.ts`). */
export const roundServer = stdio(
  "--import",
  "tsx",
  fileURLToPath(new URL("../fixtures/roundServer.ts", import.meta.url))
)
/** The official SDK's task server (`compute`, a task reporting progress steps when asked). */
export const taskServer = stdio("--import", "tsx", fileURLToPath(new URL("../fixtures/taskServer.ts", import.meta.url)))

/**
 * The host with the gateway's handlers, on Node's transports, and the attachments its handlers
 * and every connection share. The host's own logs (restarts, violations) are dropped.
 */
export const gatewayHost = (options: McpHost.HostOptions) =>
  McpHost.layer(options).pipe(
    Layer.provide(McpGateway.handlers),
    Layer.provide(NodeTransports.layer),
    Layer.provide(Layer.merge(NodeContext.layer, NodeHttpClient.layer)),
    Layer.provideMerge(McpGateway.layerAttachments),
    Layer.provide(Logger.remove(Logger.defaultLogger))
  )

/** What a connection to the gateway gives a test. */
export interface Connection {
  readonly client: McpClient.McpClientService
  /** The gateway's `serve` for this connection. */
  readonly served: Fiber.RuntimeFiber<void>
  /** Our client's end of the connection (`close` drops the connection, as a client process dying would). */
  readonly end: InMemoryTransport.End
}

/** The gateway's name as our client knows it. */
export const GATEWAY = "gateway"

/** Our client's handler of the server's elicitation requests. */
export type ElicitationHandler = Context.Tag.Service<Capabilities.Elicitation>

/** How to connect. */
export interface ConnectOptions {
  /** Our client's handler of elicitation requests; without one, it does not declare the capability. */
  readonly elicitation?: ElicitationHandler
  /** Where our client and its end of the connection live (default: the scope of the test). */
  readonly clientScope?: Scope.Scope
  /** How the gateway serves this connection. */
  readonly gateway?: McpGateway.Options
  /** Our client's handler of sampling requests; without one, it does not declare the capability. */
  readonly sampling?: Context.Tag.Service<Capabilities.Sampling>
  /** The roots our client lists; without them, it does not declare the capability. */
  readonly roots?: ReadonlyArray<{ readonly uri: string }>
  /** The revision our client speaks (default: 2025-11-25). */
  readonly protocolVersion?: "2026-07-28" | "2025-11-25" | "2025-06-18" | "2025-03-26"
  /** Whether our client checks a call's arguments before sending it (default: true, as the client does). */
  readonly validateToolInput?: boolean
}

/**
 * A connection to the gateway: `serve` on one end of a pair, forked in the scope, and our client
 * (pinned to 2025-11-25 unless told) on the other end, which ends with `clientScope`.
 */
export const connect = (
  options: ConnectOptions = {}
): Effect.Effect<
  Connection,
  McpError.InitializeError,
  Scope.Scope | McpHost.McpHost | Context.Tag.Identifier<typeof McpGateway.Attachments>
> =>
  Effect.gen(function* () {
    const clientScope = options.clientScope ?? (yield* Effect.scope)
    const [clientEnd, serverEnd] = yield* Scope.extend(InMemoryTransport.makePair(GATEWAY), clientScope)
    const served = yield* Effect.forkScoped(McpGateway.serve(serverEnd, options.gateway))
    const make = McpClient.make({
      name: GATEWAY,
      protocolVersion: options.protocolVersion ?? "2025-11-25",
      ...(options.validateToolInput === undefined ? {} : { validateToolInput: options.validateToolInput })
    }).pipe(Effect.provideService(Transport, clientEnd))
    const handler = options.elicitation
    const roots = options.roots
    const sampled =
      options.sampling === undefined ? make : Effect.provideService(make, Capabilities.Sampling, options.sampling)
    const withRoots =
      roots === undefined
        ? sampled
        : Effect.provideService(sampled, Capabilities.Roots, { list: Effect.succeed(roots) })
    const client = yield* Scope.extend(
      handler === undefined ? withRoots : Effect.provideService(withRoots, Capabilities.Elicitation, handler),
      clientScope
    )
    return { client, served, end: clientEnd }
  })

/** Elicitation answered with `answer`, each request recorded (with who asked) in `asked`. */
export const elicitation = (asked: Array<string>, answer: { readonly [key: string]: string }): ElicitationHandler => ({
  form: (params, context) =>
    Effect.sync(() => {
      asked.push(`${context.server}: ${params.message}`)
      return { action: "accept" as const, content: answer }
    })
})

/** The text of a tool result's text blocks. */
export const textOf = (result: { readonly content: ReadonlyArray<{ readonly type: string }> }) =>
  result.content.map((block) => ("text" in block ? String(block.text) : block.type)).join("\n")
