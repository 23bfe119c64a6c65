/**
 * The router: the aggregated view of the registry's servers (namespaced names), and calls by
 * host-wide name or URI sent to the server that offers them, once it is ready and within its
 * concurrency limit. It only reads the registry.
 */
import type { McpClient } from "@effect-mcp/client"
import { spanWhenTraced as traced } from "@effect-mcp/jsonrpc/Tracing"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Ref from "effect/Ref"
import * as Aggregate from "../Aggregate.js"
import { NotFound, ServerUnavailable, ToolNotAllowed, UnknownServer } from "../HostError.js"
import * as AggregateView from "./aggregateView.js"
import * as Registry from "./registry.js"
import * as ResultBudget from "./resultBudget.js"
import type { CallOptions, McpHostService } from "./types.js"

const DEFAULT_TIMEOUT = Duration.seconds(60)

/** The time a request waits for its server to be ready: the call's, the server's, or 60 seconds. */
const timeoutOf = (entry: Registry.Entry, call: CallOptions | undefined) =>
  Duration.decode(call?.timeout ?? entry.config.options?.requestTimeout ?? DEFAULT_TIMEOUT)

/** A tool's result cut to its server's result budget, when it has one. */
const budgeted = <E>(
  entry: Registry.Entry,
  tool: Aggregate.HostTool["tool"] | undefined,
  called: Effect.Effect<McpClient.CallToolResult, E>
): Effect.Effect<McpClient.CallToolResult, E> => {
  const maxBytes = entry.config.options?.maxResultBytes
  return maxBytes === undefined
    ? called
    : Effect.map(called, (result) => ResultBudget.cut(result, maxBytes, tool?.outputSchema !== undefined))
}

/** The router's part of the host service. */
export type Router = Pick<
  McpHostService,
  | "aggregate"
  | "tools"
  | "resources"
  | "resourceTemplates"
  | "prompts"
  | "skills"
  | "callTool"
  | "callToolAsTask"
  | "taskResult"
  | "readResource"
  | "getPrompt"
  | "loadSkill"
  | "client"
> & {
  /** The entry of a server, or `UnknownServer` naming the known ones. */
  readonly lookup: (server: string) => Effect.Effect<Registry.Entry, UnknownServer>
}

/** A router over the registry. */
export const make = (registry: Ref.Ref<Registry.Registry>, namespace: Aggregate.Namespace): Router => {
  const lookup = (server: string) =>
    Effect.flatMap(registry.get, (current) =>
      Option.match(Registry.get(current, server), {
        onNone: () => Effect.fail(new UnknownServer({ server, known: [...current.order] })),
        onSome: Effect.succeed
      })
    )

  const { skills, snapshot } = AggregateView.make(registry, namespace)

  const entryOf = (server: string) =>
    Effect.mapError(lookup(server), () => new ServerUnavailable({ server, reason: "the server was removed" }))

  /** Runs a request on a server's client once it is ready (the client bounds its requests in flight). */
  const routed = <A, E, E2 = never>(
    server: string,
    method: string,
    call: CallOptions | undefined,
    use: (client: McpClient.McpClientService, entry: Registry.Entry) => Effect.Effect<A, E>,
    check: (entry: Registry.Entry) => Effect.Effect<void, E2> = () => Effect.void
  ): Effect.Effect<A, E | E2 | ServerUnavailable> =>
    Effect.flatMap(entryOf(server), (entry) =>
      Effect.zipRight(
        check(entry),
        call?.session !== undefined && call.session.server === server
          ? use(call.session.client, entry)
          : Effect.flatMap(entry.supervisor.ready(timeoutOf(entry, call), method), (client) => use(client, entry))
      )
    )

  /** Runs a request for a host-wide tool on its server, if the server's allow and deny lists let it. */
  const toolRoute = <A, E>(
    name: string,
    method: string,
    call: CallOptions | undefined,
    use: (client: McpClient.McpClientService, entry: Registry.Entry, found: Aggregate.HostTool) => Effect.Effect<A, E>
  ) =>
    Effect.gen(function* () {
      const found = (yield* snapshot).tools.find((tool) => tool.name === name)
      if (found === undefined) return yield* new NotFound({ kind: "tool", name })
      return yield* routed(
        found.server,
        method,
        call,
        (client, entry) => use(client, entry, found),
        (entry) =>
          Aggregate.allowed(found.tool.name, entry.config.options ?? {})
            ? Effect.void
            : Effect.fail(new ToolNotAllowed({ server: found.server, tool: found.tool.name }))
      )
    })

  return {
    lookup,
    aggregate: snapshot,
    tools: Effect.map(snapshot, (view) => view.tools),
    resources: Effect.map(snapshot, (view) => view.resources),
    resourceTemplates: Effect.map(snapshot, (view) => view.resourceTemplates),
    prompts: Effect.map(snapshot, (view) => view.prompts),
    skills,
    callTool: (name, args, call) =>
      toolRoute(name, "tools/call", call, (client, entry, found) =>
        budgeted(entry, found.tool, client.callTool(found.tool.name, args, call))
      ).pipe(traced("McpHost.callTool", { attributes: { "mcp.tool": name }, captureStackTrace: false })),
    callToolAsTask: (name, args, options) =>
      toolRoute(name, "tools/call", options, (client, _, found) =>
        Effect.map(client.tasks.callTool(found.tool.name, args, options), (task) => ({
          server: found.server,
          tool: found.tool.name,
          task
        }))
      ).pipe(traced("McpHost.callToolAsTask", { attributes: { "mcp.tool": name }, captureStackTrace: false })),
    taskResult: (started, options) =>
      // The server's readiness is waited for as for any request; the options are the result's own.
      routed(started.server, "tasks/result", undefined, (client, entry) =>
        Effect.flatMap(
          Effect.map(snapshot, (view) =>
            view.tools.find((tool) => tool.server === started.server && tool.tool.name === started.tool)
          ),
          (listed) => budgeted(entry, listed?.tool, client.tasks.result(started.tool, started.task.taskId, options))
        )
      ).pipe(
        traced("McpHost.taskResult", {
          attributes: { "mcp.server": started.server, "mcp.tool": started.tool },
          captureStackTrace: false
        })
      ),
    readResource: (uri, call) =>
      Effect.gen(function* () {
        const view = yield* snapshot
        const server =
          view.resources.find((entry) => entry.resource.uri === uri)?.server ??
          view.resourceTemplates.find((entry) => Aggregate.templateMatches(entry.template.uriTemplate, uri))?.server
        if (server === undefined) return yield* new NotFound({ kind: "resource", name: uri })
        return yield* routed(server, "resources/read", call, (client) => client.readResource(uri, call))
      }),
    getPrompt: (name, args, call) =>
      Effect.gen(function* () {
        const found = (yield* snapshot).prompts.find((prompt) => prompt.name === name)
        if (found === undefined) return yield* new NotFound({ kind: "prompt", name })
        return yield* routed(found.server, "prompts/get", call, (client) =>
          client.getPrompt(found.prompt.name, args, call)
        )
      }),
    loadSkill: (server, nameOrUri, call) =>
      routed(server, "resources/read", call, (client) => client.skills.load(nameOrUri, call)).pipe(
        traced("McpHost.loadSkill", {
          attributes: { "mcp.server": server, "mcp.skill": nameOrUri },
          captureStackTrace: false
        })
      ),
    client: (server) => Effect.flatMap(lookup(server), (entry) => entry.supervisor.ready(timeoutOf(entry, undefined)))
  }
}
