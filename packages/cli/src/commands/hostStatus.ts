/** A host's servers as people see them: the status table's rows. */
import type { McpHost } from "@effect-mcp/host"
import { ServerEntry, ServerStatus } from "@effect-mcp/host"

/** One row per server: its name, transport and status (a failure with its reason). */
export const statusRows = (
  servers: ReadonlyArray<McpHost.ServerInfo>
): ReadonlyArray<readonly [string, string, string]> =>
  servers.map((server) => [
    server.name,
    ServerEntry.transportOf(server.config.target),
    ServerStatus.describe(server.status)
  ])
