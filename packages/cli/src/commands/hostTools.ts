/** Finding a tool in a host by its namespaced name, and saying why one cannot be found. */
import type { McpHost } from "@effect-mcp/host"
import { ServerStatus } from "@effect-mcp/host"
import * as Effect from "effect/Effect"
import { UsageError } from "../CliError.js"
import { closest } from "../internal/closest.js"

/**
 * Why no ready server offers `name`: the server it names is not ready (and why), or the
 * closest tool names.
 */
export const whyNot = (host: McpHost.McpHostService, name: string) =>
  Effect.gen(function* () {
    const servers = yield* host.servers
    const owner = servers
      .filter((server) => name.startsWith(`${server.name}__`))
      .sort((a, b) => b.name.length - a.name.length)[0]
    if (owner !== undefined && owner.status._tag !== "Ready")
      return yield* new UsageError({
        server: owner.name,
        method: "tools/call",
        reason: `"${name}" cannot be called: ${owner.name} is not ready (${ServerStatus.describe(owner.status)})`
      })
    const close = closest(
      name,
      (yield* host.tools).map((entry) => entry.name)
    )
    return yield* new UsageError({
      method: "tools/call",
      reason: `no ready server offers "${name}"${close.length === 0 ? " (see effect-mcp host tools)" : ` (did you mean ${close.join(", ")}?)`}`
    })
  })
