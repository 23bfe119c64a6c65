/**
 * Which server behind the gateway a host-wide name or a URI belongs to (for relating a server's
 * messages to the client's request, and for completion and subscriptions, which the host does not
 * route), and which servers may serve a URI that none lists.
 */
import { Aggregate, type McpHost } from "@effect-mcp/host"
import type { JsonRpcFailure } from "@effect-mcp/jsonrpc/PeerError"
import { JsonRpc, McpApps } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { VIEW_META_KEY } from "./views.js"
import { failure } from "./wire.js"

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

/**
 * The key under which a view of the host (`guardedHost.ts`) says whether its current caller may
 * reach a URI on a server though none of the lists it shows has it. A symbol-keyed member: it is
 * kept by a copy of the view (`{ ...host }`). A host without one hides no URI.
 */
export const UriVisibility: unique symbol = Symbol.for("@effect-mcp/gateway/UriVisibility")

/** What a view of the host keeps under {@link UriVisibility}. */
export interface UriGuarded {
  readonly [UriVisibility]?: (server: string, uri: string) => Effect.Effect<boolean>
}

/** Whether the caller `host` is for may reach the unlisted `uri` on `server`. */
const reaches = (host: McpHost.McpHostService, server: string, uri: string): Effect.Effect<boolean> =>
  (host as McpHost.McpHostService & UriGuarded)[UriVisibility]?.(server, uri) ?? Effect.succeed(true)

/**
 * The servers that may serve a URI no server lists and no template matches, in configuration
 * order: the ready ones that declare resources (to subscribe: resource subscriptions), of those
 * the caller may reach it on. They are asked in turn (`firstThatHas`).
 */
export const serversForUnlisted = (
  host: McpHost.McpHostService,
  uri: string,
  need: "read" | "subscribe"
): Effect.Effect<ReadonlyArray<string>> =>
  Effect.flatMap(host.servers, (servers) =>
    Effect.filter(
      servers.flatMap((server) => (server.status._tag === "Ready" ? [server.name] : [])),
      (server) =>
        Effect.flatMap(Effect.option(host.client(server)), (client) => {
          const resources = Option.isSome(client) ? client.value.serverCapabilities.resources : undefined
          if (resources === undefined || (need === "subscribe" && resources.subscribe !== true)) {
            return Effect.succeed(false)
          }
          return reaches(host, server, uri)
        })
    )
  )

/**
 * Whether a server's error says it has no such resource: -32002 (before 2026-07-28) or -32602
 * (2026-07-28, SEP-2164, and what SDK v1 servers answer for a URI they do not serve).
 */
export const isNotFound = (error: JsonRpcFailure): boolean =>
  error.code === JsonRpc.ErrorCode.ResourceNotFound || error.code === JsonRpc.ErrorCode.InvalidParams

/**
 * The server and answer of the first of `servers` whose answer to `ask` is other than "not found";
 * `notFound` (the revision's own error) when none has it.
 */
export const firstThatHas = <A>(
  servers: ReadonlyArray<string>,
  ask: (server: string) => Effect.Effect<A, JsonRpcFailure>,
  notFound: JsonRpcFailure
): Effect.Effect<readonly [server: string, answer: A], JsonRpcFailure> => {
  const [server, ...after] = servers
  if (server === undefined) return Effect.fail(notFound)
  return Effect.catchIf(
    Effect.map(ask(server), (answer) => [server, answer] as const),
    isNotFound,
    () => firstThatHas(after, ask, notFound)
  )
}

/**
 * The host-wide name of a tool a client calls, perhaps for a view (`view`: the server of the view the
 * request says it comes from). A host-wide name is itself. A view calls its tools by the names its
 * own server gives them: such a bare name is the tool of that name on the view's server, or, when
 * the request does not say which view, on the one server whose views may call a tool of that name
 * (several: refused, naming them). A view's call must reach its own server and a tool its views may
 * call (visibility `app`). Any other name is left for the host to refuse.
 */
export const toolOfView = (
  host: McpHost.McpHostService,
  name: string,
  view: string | undefined
): Effect.Effect<string, JsonRpcFailure> =>
  Effect.flatMap(host.tools, (tools) => {
    const named = tools.find((entry) => entry.name === name)
    const candidates =
      named !== undefined
        ? [named]
        : tools.filter(
            (entry) =>
              entry.tool.name === name &&
              (view === undefined ? McpApps.visibleToApp(entry.tool.ui) : entry.server === view)
          )
    const [found, ...others] = candidates
    if (found === undefined || view === undefined) {
      if (others.length === 0) return Effect.succeed(found?.name ?? name)
      const servers = candidates.map((entry) => entry.server).join(", ")
      return failure(
        JsonRpc.ErrorCode.InvalidParams,
        `tools/call: ${name} is a tool of several servers' views (${servers}); say which view calls it with _meta["${VIEW_META_KEY}"]`
      )
    }
    if (found.server !== view) {
      return failure(
        JsonRpc.ErrorCode.InvalidParams,
        `tools/call: ${name} is a tool of ${found.server}, not of ${view}, the server of the view that calls it`
      )
    }
    if (!McpApps.visibleToApp(found.tool.ui)) {
      return failure(
        JsonRpc.ErrorCode.InvalidParams,
        `tools/call: ${found.tool.name} of ${view} is not for its views to call (its visibility lacks app)`
      )
    }
    return Effect.succeed(found.name)
  })
