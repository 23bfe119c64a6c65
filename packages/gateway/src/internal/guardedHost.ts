/**
 * The host as the current principal (`CurrentPrincipal`) may use it: its lists show only what the
 * policy lets that principal see (on top of the host's own allow and deny lists), a call, read or
 * get of a hidden item fails as the host fails an unknown one ("Unknown tool"), a server of which
 * nothing is visible is unknown, and each tool call takes one use of the principal's limits on that
 * tool. One value serves every connection: the principal is read at each use, so the catalog,
 * routing, tool search, tasks and subscriptions all see the same view without being told.
 *
 * A refused call fails with the JSON-RPC error {@link RATE_LIMITED}, its `data` saying when to
 * retry (`retryAfter` seconds, `retryAfterMs`), as a server's own error would reach the client.
 */
import { Aggregate, HostError, type McpHost } from "@effect-mcp/host"
import { RpcError } from "@effect-mcp/jsonrpc/PeerError"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import type * as Policy from "./policy.js"
import * as Principal from "./principal.js"
import * as RateLimit from "./rateLimit.js"
import { serverOfUri, type UriGuarded, UriVisibility } from "./routing.js"

/** The JSON-RPC error code of a call refused by a rate limit or quota. */
export const RATE_LIMITED = -32029

/** The principal's limits on calls of `tool` of `server`: each limit takes one use, the first refusal fails the call. */
export const takeToolLimits = (
  limiter: RateLimit.Limiter,
  principal: Principal.Principal,
  access: Policy.Access,
  tool: Aggregate.HostTool
): Effect.Effect<void, RpcError> =>
  Effect.forEach(
    access.tools.filter((limit) => limit.covers(tool.server, tool.tool.name)),
    (limit) =>
      Effect.flatMap(
        limiter.take(`${Principal.binding(principal)}\u0000tool\u0000${limit.index}\u0000${tool.name}`, limit.limit),
        Option.match({
          onNone: () => Effect.void,
          onSome: (wait) =>
            Effect.fail(
              new RpcError({
                server: tool.server,
                method: "tools/call",
                code: RATE_LIMITED,
                errorMessage: `Rate limit exceeded for ${tool.name}: retry in ${RateLimit.seconds(wait)} s`,
                data: { retryAfter: RateLimit.seconds(wait), retryAfterMs: Duration.toMillis(wait) }
              })
            )
        })
      ),
    { discard: true }
  )

/** `host` as each principal may use it under `policy`, its tool calls limited by `limiter`. */
export const make = (
  host: McpHost.McpHostService,
  policy: Policy.Policy,
  limiter: RateLimit.Limiter
): McpHost.McpHostService & UriGuarded => {
  const current = Effect.map(FiberRef.get(Principal.CurrentPrincipal), (principal) => ({
    principal,
    access: policy.accessOf(principal)
  }))
  const filtered = <A>(
    list: Effect.Effect<ReadonlyArray<A>>,
    visible: (access: Policy.Access, entry: A) => boolean
  ): Effect.Effect<ReadonlyArray<A>> =>
    Effect.flatMap(current, ({ access }) => Effect.map(list, (entries) => entries.filter((e) => visible(access, e))))
  const tools = filtered(host.tools, (access, entry) => access.visible("tools", entry.server, entry.tool.name))

  /** The tool a call names, once it is visible and within the caller's limits (unknown: left for the host). */
  const admitTool = (name: string) =>
    Effect.gen(function* () {
      const { principal, access } = yield* current
      const entry = (yield* host.tools).find((tool) => tool.name === name)
      if (entry === undefined) return
      if (!access.visible("tools", entry.server, entry.tool.name)) {
        return yield* new HostError.NotFound({ kind: "tool", name })
      }
      yield* takeToolLimits(limiter, principal, access, entry)
    })

  /**
   * Whether the principal may reach `uri` on `server` though no list it sees has it: the URI is
   * visible there, and the server neither lists it nor has a template that matches it (such a URI
   * is that entry's, hidden with it). A view of a view hides what either hides.
   */
  const reaches = (server: string, uri: string) =>
    Effect.gen(function* () {
      const { access } = yield* current
      if (!access.visible("resources", server, uri)) return false
      const listed = (yield* host.resources).some((entry) => entry.server === server && entry.resource.uri === uri)
      const templated = (yield* host.resourceTemplates).some(
        (entry) => entry.server === server && Aggregate.templateMatches(entry.template.uriTemplate, uri)
      )
      if (listed || templated) return false
      const inner = (host as McpHost.McpHostService & UriGuarded)[UriVisibility]
      return inner === undefined ? true : yield* inner(server, uri)
    })

  return {
    ...host,
    [UriVisibility]: reaches,
    tools,
    resources: filtered(host.resources, (access, entry) =>
      access.visible("resources", entry.server, entry.resource.uri)
    ),
    resourceTemplates: filtered(host.resourceTemplates, (access, entry) =>
      access.visible("resources", entry.server, entry.template.uriTemplate)
    ),
    prompts: filtered(host.prompts, (access, entry) => access.visible("prompts", entry.server, entry.prompt.name)),
    skills: filtered(host.skills, (access, entry) => !access.hidesServer(entry.server)),
    callTool: (name, args, options) => Effect.zipRight(admitTool(name), host.callTool(name, args, options)),
    callToolAsTask: (name, args, options) => Effect.zipRight(admitTool(name), host.callToolAsTask(name, args, options)),
    readResource: (uri, options) =>
      Effect.gen(function* () {
        const { access } = yield* current
        const server = yield* serverOfUri(host, uri)
        if (server !== undefined && !access.visible("resources", server, uri)) {
          return yield* new HostError.NotFound({ kind: "resource", name: uri })
        }
        return yield* host.readResource(uri, options)
      }),
    getPrompt: (name, args, options) =>
      Effect.gen(function* () {
        const { access } = yield* current
        const entry = (yield* host.prompts).find((prompt) => prompt.name === name)
        if (entry !== undefined && !access.visible("prompts", entry.server, entry.prompt.name)) {
          return yield* new HostError.NotFound({ kind: "prompt", name })
        }
        return yield* host.getPrompt(name, args, options)
      }),
    loadSkill: (server, nameOrUri, options) =>
      Effect.flatMap(current, ({ access }) =>
        access.hidesServer(server)
          ? Effect.fail(new HostError.ServerUnavailable({ server, reason: "unknown server" }))
          : host.loadSkill(server, nameOrUri, options)
      ),
    client: (server) =>
      Effect.flatMap(current, ({ access }) =>
        access.hidesServer(server)
          ? Effect.flatMap(host.servers, (servers) =>
              Effect.fail(
                new HostError.UnknownServer({
                  server,
                  known: servers.map((entry) => entry.name).filter((name) => !access.hidesServer(name))
                })
              )
            )
          : host.client(server)
      )
  }
}
