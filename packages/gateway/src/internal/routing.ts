/**
 * Which server behind the gateway a host-wide name or a URI belongs to (for relating a server's
 * messages to the client's request, and for completion and subscriptions, which the host does not route).
 */
import { Aggregate, type McpHost } from "@effect-mcp/host"
import * as Effect from "effect/Effect"

/** The server of a host-wide tool name. */
export const serverOfTool = (host: McpHost.McpHostService, name: string): Effect.Effect<string | undefined> =>
  Effect.map(host.tools, (tools) => tools.find((entry) => entry.name === name)?.server)

/** The server of a host-wide prompt name, and the prompt's own name there. */
export const promptOf = (host: McpHost.McpHostService, name: string) =>
  Effect.map(host.prompts, (prompts) => prompts.find((entry) => entry.name === name))

/** The server that serves `uri`: the one that lists it, else the first whose template matches it. */
export const serverOfUri = (host: McpHost.McpHostService, uri: string): Effect.Effect<string | undefined> =>
  Effect.gen(function* () {
    const listed = (yield* host.resources).find((entry) => entry.resource.uri === uri)
    if (listed !== undefined) return listed.server
    const templates = yield* host.resourceTemplates
    return templates.find((entry) => Aggregate.templateMatches(entry.template.uriTemplate, uri))?.server
  })
