/** A host's servers as people see them: the status table's rows, and the ones that failed. */
import type { McpHost } from "@effect-mcp/host"
import { ServerEntry, ServerStatus } from "@effect-mcp/host"
import * as Effect from "effect/Effect"
import { ServersFailed } from "../CliError.js"
import { table } from "../Output.js"

/** One row per server: its name, transport and status (a failure with its reason). */
export const statusRows = (
  servers: ReadonlyArray<McpHost.ServerInfo>
): ReadonlyArray<readonly [string, string, string]> =>
  servers.map((server) => [
    server.name,
    ServerEntry.transportOf(server.config.target),
    ServerStatus.describe(server.status)
  ])

/** A server's row of `host status` on one line (name, transport, status), as a log says it. */
export const statusLine = (server: McpHost.ServerInfo): string =>
  table(statusRows([server]), Number.POSITIVE_INFINITY, "").join(" ")

/** The servers that failed to start, each with why (its error's message, without the server's name before it). */
export const failuresOf = (
  servers: ReadonlyArray<McpHost.ServerInfo>
): ReadonlyArray<{ readonly server: string; readonly why: string }> =>
  servers.flatMap((server) => {
    if (server.status._tag !== "Failed") return []
    const message = server.status.cause.message
    const prefix = `${server.name}: `
    return [{ server: server.name, why: message.startsWith(prefix) ? message.slice(prefix.length) : message }]
  })

/**
 * Fails with {@link ServersFailed} when a server failed (after what worked has been printed);
 * `listed`: the command has shown each reason already.
 */
export const failIfAnyFailed = (host: McpHost.McpHostService, listed: boolean) =>
  Effect.flatMap(host.servers, (servers) => {
    const failed = failuresOf(servers).map(({ server, why }) => ({ server, reason: `${server}: ${why}` }))
    return failed.length === 0 ? Effect.void : Effect.fail(new ServersFailed({ failed, total: servers.length, listed }))
  })
