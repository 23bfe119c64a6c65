/**
 * What the supervisor asks of one server's client: the options it connects with (the host's
 * per-server settings as the client's options), and its lists, filtered by the server's policy.
 */
import type { McpClient, McpError } from "@effect-mcp/client"
import type { McpSchema, ProtocolVersion } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Aggregate from "../Aggregate.js"
import type { ServerConfig } from "./types.js"

/** A list a server may say changed. */
export type ListName = "tools" | "resources" | "prompts"

/** A server's keepalive: its own, else the host's for a server reached over HTTP; none when turned off. */
export const keepAliveOf = (
  config: ServerConfig,
  hostWide: McpClient.KeepAliveOptions | undefined
): McpClient.KeepAliveOptions | undefined => {
  const own = config.options?.keepAlive
  if (own === false) return undefined
  return own ?? (config.target._tag === "Http" ? hostWide : undefined)
}

/**
 * The client's options for a server: `verdict` is the era it spoke last time (a restart speaks it
 * again without probing); `keepAlive` the host-wide keepalive.
 */
export const clientOptions = (
  name: string,
  config: ServerConfig,
  clientInfo: McpSchema.Implementation | undefined,
  verdict: ProtocolVersion.ProtocolVersion | undefined,
  keepAlive?: McpClient.KeepAliveOptions,
  mcpApps?: McpClient.McpClientOptions["mcpApps"]
): McpClient.McpClientOptions & { readonly inheritEnv?: "safe" | "all" } => {
  const pinned = config.options?.protocolVersion
  const keeping = keepAliveOf(config, keepAlive)
  return {
    name,
    protocolVersion: pinned === undefined || pinned === "auto" ? (verdict ?? "auto") : pinned,
    ...(clientInfo === undefined ? {} : { clientInfo }),
    ...(config.options?.requestTimeout === undefined ? {} : { requestTimeout: config.options.requestTimeout }),
    ...(config.options?.inheritEnv === undefined ? {} : { inheritEnv: config.options.inheritEnv }),
    // The host's per-server limit is the client's own bound on requests in flight.
    ...(config.options?.concurrency === undefined ? {} : { maxInFlight: config.options.concurrency }),
    ...(config.options?.retry === undefined ? {} : { retry: config.options.retry }),
    ...(config.options?.serveStaleLists === undefined ? {} : { serveStaleLists: config.options.serveStaleLists }),
    ...(keeping === undefined ? {} : { keepAlive: keeping }),
    ...(mcpApps === undefined ? {} : { mcpApps })
  }
}

/** One list of a server's, fetched again (empty when it cannot be listed, with a warning). */
export const fetch = (name: string, config: ServerConfig, client: McpClient.McpClientService, list: ListName) =>
  Effect.gen(function* () {
    const caps = client.serverCapabilities
    const orEmpty = <A>(what: string, effect: Effect.Effect<ReadonlyArray<A>, McpError.RequestError>) =>
      effect.pipe(
        Effect.catchAll((error) => Effect.as(Effect.logWarning(`${name}: cannot list ${what}: ${error.message}`), []))
      )
    const policy = config.options ?? {}
    const update: Partial<Aggregate.ServerLists> =
      list === "tools"
        ? {
            tools:
              caps.tools === undefined
                ? []
                : (yield* orEmpty("tools", client.tools)).filter((tool) => Aggregate.allowed(tool.name, policy))
          }
        : list === "prompts"
          ? { prompts: caps.prompts === undefined ? [] : yield* orEmpty("prompts", client.prompts) }
          : caps.resources === undefined
            ? { resources: [], resourceTemplates: [] }
            : {
                resources: yield* orEmpty("resources", client.resources),
                resourceTemplates: yield* orEmpty("resource templates", client.resourceTemplates)
              }
    return update
  })
