/**
 * The stateful handshake from the server's side: `initialize` answered with the revision both
 * sides speak (the client's when the gateway speaks it, else the newest stateful one, which the
 * client may refuse), the gateway's capabilities and its identity.
 */
import { type JsonRpc, McpSchema, ProtocolVersion } from "@effect-mcp/protocol"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Tasks from "./tasks.js"

/** The name and version the gateway gives by default. */
export const defaultServerInfo: McpSchema.Implementation = { name: "effect-mcp-gateway", version: "0.1.0" }

/** What the gateway knows of a client once it has initialized. */
export interface Negotiated {
  readonly version: ProtocolVersion.StatefulVersion
  readonly capabilities: McpSchema.ClientCapabilities
  readonly clientInfo: McpSchema.Implementation
}

/**
 * What the gateway offers a stateful client: {@link capabilities}, tool tasks when it can create
 * them, and the extensions its servers offer (`extensions`: MCP Apps when one of them has it).
 */
export const capabilitiesAt = (
  version: ProtocolVersion.StatefulVersion,
  extensions?: McpSchema.ServerCapabilities["extensions"]
): McpSchema.ServerCapabilities => ({
  ...capabilities,
  ...(Tasks.canCreate(version) ? { tasks: Tasks.capability } : {}),
  ...(extensions === undefined ? {} : { extensions })
})

/** What the gateway offers every client: everything the host aggregates. */
export const capabilities: McpSchema.ServerCapabilities = {
  tools: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  completions: {},
  logging: {}
}

const decodeParams = Schema.decodeUnknownEither(McpSchema.InitializeRequestParams)
const encodeResult = Schema.encodeEither(McpSchema.InitializeResult)

/** The answer to `initialize`, and what was agreed; or why the params are not an `initialize`'s. */
export const initialize = (
  params: JsonRpc.JSONRPCRequest["params"],
  serverInfo: McpSchema.Implementation,
  instructions: string | undefined,
  extensions?: McpSchema.ServerCapabilities["extensions"]
): Either.Either<
  { readonly result: typeof McpSchema.InitializeResult.Encoded; readonly negotiated: Negotiated },
  string
> =>
  Either.flatMap(
    Either.mapLeft(decodeParams(params ?? {}), (error) => ParseResult.TreeFormatter.formatErrorSync(error)),
    (hello) => {
      const version = ProtocolVersion.isStateful(hello.protocolVersion)
        ? hello.protocolVersion
        : ProtocolVersion.LATEST_STATEFUL
      const result = encodeResult({
        protocolVersion: version,
        capabilities: capabilitiesAt(version, extensions),
        serverInfo,
        ...(instructions === undefined ? {} : { instructions })
      })
      return Either.mapBoth(result, {
        onLeft: (error) => ParseResult.TreeFormatter.formatErrorSync(error),
        onRight: (encoded) => ({
          result: encoded,
          negotiated: { version, capabilities: hello.capabilities, clientInfo: hello.clientInfo }
        })
      })
    }
  )
