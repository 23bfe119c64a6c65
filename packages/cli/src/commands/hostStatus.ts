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

/**
 * Why a server failed, without its name (the caller says it): the error's `detail`; the protocol's
 * errors name no server, and say it in their message.
 */
const whyOf = (cause: ServerStatus.FailureCause): string =>
  cause._tag === "UnsupportedProtocolVersion" || cause._tag === "UnrepresentableMessage" ? cause.message : cause.detail

/** The servers that failed to start, each with why (its error's words, without the server's name). */
export const failuresOf = (
  servers: ReadonlyArray<McpHost.ServerInfo>
): ReadonlyArray<{ readonly server: string; readonly why: string }> =>
  servers.flatMap((server) =>
    server.status._tag === "Failed" ? [{ server: server.name, why: whyOf(server.status.cause) }] : []
  )

/**
 * Fails with {@link ServersFailed} when a server failed (after what worked has been printed);
 * `listed`: the command has shown each reason already.
 */
export const failIfAnyFailed = (host: McpHost.McpHostService, listed: boolean) =>
  Effect.flatMap(host.servers, (servers) => {
    const failed = failuresOf(servers).map(({ server, why }) => ({ server, reason: `${server}: ${why}` }))
    return failed.length === 0 ? Effect.void : Effect.fail(new ServersFailed({ failed, total: servers.length, listed }))
  })
