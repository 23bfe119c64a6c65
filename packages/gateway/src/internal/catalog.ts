/**
 * What the gateway serves from the host: the aggregated lists under host-wide names, and each call
 * routed to the server that offers it. Progress reaches the client under its own token, and the
 * logs a server relates to a call reach that call's client alone; a client's cancellation
 * interrupts the handler, which cancels the call on the server.
 */
import { Capabilities, type McpClient, type McpError } from "@effect-mcp/client"
import { type Aggregate, HostError, type McpHost } from "@effect-mcp/host"
import type * as Peer from "@effect-mcp/jsonrpc/Peer"
import type { JsonRpcFailure } from "@effect-mcp/jsonrpc/PeerError"
import { JsonRpc, McpApps, McpSchema, type Methods, type ProtocolVersion } from "@effect-mcp/protocol"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { type InFlight, relatedTo } from "./inflight.js"
import type { Lane } from "./lanes.js"
import type * as LogRelay from "./logRelay.js"
import * as Observe from "./observe.js"
import * as Propagation from "./propagation.js"
import { firstThatHas, promptOf, serverOfTool, serverOfUri, serversForUnlisted, toolOfView } from "./routing.js"
import type { Subscriptions } from "./subscriptions.js"
import * as Tasks from "./tasks.js"
import * as ToolSearch from "./toolSearch.js"
import * as Views from "./views.js"
import { type BehindFailure, behind, decodedHandler, failure, handler, toFailure, written } from "./wire.js"

/** What serving the catalog needs. */
export interface CatalogContext {
  readonly host: McpHost.McpHostService
  /** The revision the client speaks: params are decoded and results encoded with its definitions. */
  readonly version: ProtocolVersion.ProtocolVersion
  /** Sends a notification to the client (progress; sent related to the request it is about). */
  readonly notify: (method: string, params: Peer.WireObject) => Effect.Effect<void>
  /** The client's standing requests (stateful revisions only: subscriptions and the log level). */
  readonly subscriptions?: Subscriptions
  /** The tasks the client started (clients that can create tasks only: 2025-11-25). */
  readonly tasks?: Tasks.SessionTasks
  readonly inFlight: InFlight
  /** Tool search (`toolSearch.ts`): `tools/list` answers the search and call tools instead of every tool. */
  readonly toolSearch?: boolean
  /**
   * The client's capabilities, passed on to 2026-07-28 servers with every request made for it
   * (`Capabilities.OnBehalfOf`): such a server asks only for input this client can give.
   */
  readonly clientCapabilities: McpSchema.ClientCapabilities
  /**
   * A 2026-07-28 server's round this request continues (its client answered the server's input
   * requests): the call goes to that server only, with the answers and the server's own state.
   */
  readonly continues?: Continued
  /** Where the logs of the client's calls go, and the level it asked of the servers. */
  readonly logs: LogRelay.Own
  /** The longest a call made for the client may take on `server`, progress or not (none: no bound). */
  readonly maxCallTime?: (server: string) => Duration.DurationInput | undefined
  /** Which session of a server the client's calls go over (`lanes.ts`; none: the shared one). */
  readonly lane?: Lane
}

/** Runs `use` with the options of a call over the session the client's call to `server` goes over. */
const overLane =
  (context: CatalogContext, server: string | undefined, options: McpHost.CallOptions) =>
  <A, R>(use: (options: McpHost.CallOptions) => Effect.Effect<A, JsonRpcFailure, R>) =>
    context.lane === undefined
      ? use(options)
      : context.lane.run(server)((session) => use(session === undefined ? options : { ...options, session }))

/** A 2026-07-28 server's round continued in a new request. */
export interface Continued {
  readonly server: string
  readonly answering: NonNullable<McpClient.CallOptions["answering"]>
}

/** The catalog's handlers by method. */
export type Handlers = ReadonlyMap<string, Peer.RequestHandler>

/** The client's progress token, when its request asked for progress. */
const progressToken = (request: Peer.InboundRequest): string | number | undefined => {
  const meta = request.params?._meta
  const token = McpSchema.isJsonObject(meta) ? meta.progressToken : undefined
  return typeof token === "string" || typeof token === "number" ? token : undefined
}

/**
 * Options that send the server's progress on to the client, under the client's token: as part of
 * the request's answer, or (a task's, which goes on after its request is answered) on its own.
 */
const progressTo = (
  context: CatalogContext,
  request: Peer.InboundRequest,
  related = true
): Pick<McpClient.CallOptions, "onProgress"> => {
  const token = progressToken(request)
  // Progress is asked for every call, so that the server's reports keep it alive; the client
  // hears of it only when it asked.
  if (token === undefined) return { onProgress: () => Effect.void }
  return {
    onProgress: (progress) =>
      context
        .notify("notifications/progress", { progressToken: token, ...progress })
        .pipe(relatedTo(related ? request.id : undefined))
  }
}

/**
 * Options that send the logs the server relates to the call to its client alone, at the client's
 * level (a client that asked for none hears none of them), and ask a 2026-07-28 server for that level.
 */
const logsTo = (
  context: CatalogContext,
  request: Peer.InboundRequest,
  server: string
): Pick<McpClient.CallOptions, "onLog" | "logLevel"> => {
  const level = context.logs.level()
  return { onLog: context.logs.send(server, request.id), ...(level === undefined ? {} : { logLevel: level }) }
}

/**
 * The options of a call for the client's request to `server`: its progress and logs relayed, and
 * the answers of the server's round it continues; continuing another server's round is refused.
 */
const callOptions = (
  context: CatalogContext,
  request: Peer.InboundRequest,
  server: string | undefined
): Effect.Effect<McpClient.CallOptions, JsonRpcFailure> => {
  const max = server === undefined ? undefined : context.maxCallTime?.(server)
  const relayed: McpClient.CallOptions = {
    ...progressTo(context, request),
    ...(server === undefined ? {} : logsTo(context, request, server)),
    // The client's own request governs how long it waits (it cancels, or goes); the gateway's
    // client does not cut it at its default timeout, only at the server's maximum, when it has one.
    timeout: Duration.infinity,
    ...(max === undefined ? {} : { maxTotalTimeout: max })
  }
  const continues = context.continues
  if (continues === undefined) return Effect.succeed(relayed)
  if (continues.server !== server) {
    return failure(JsonRpc.ErrorCode.InvalidParams, "Invalid requestState (another server's round)", {
      reason: "invalid_request_state"
    })
  }
  return Effect.succeed({ ...relayed, answering: continues.answering })
}

/** The first entry of each key (a URI two servers list is listed once, for the first). */
const firstOf = <A>(entries: ReadonlyArray<A>, key: (entry: A) => string): Array<A> => {
  const seen = new Set<string>()
  return entries.filter((entry) => !seen.has(key(entry)) && seen.add(key(entry)) !== undefined)
}

/** The server and the server's own reference behind a completion's host-wide reference. */
const completionTarget = (host: McpHost.McpHostService, ref: Methods.RequestParamsOf<"completion/complete">["ref"]) =>
  Effect.gen(function* () {
    if (ref.type === "ref/prompt") {
      const prompt = yield* promptOf(host, ref.name)
      if (prompt === undefined) return yield* failure(JsonRpc.ErrorCode.InvalidParams, `Unknown prompt: ${ref.name}`)
      return { server: prompt.server, ref: { ...ref, name: prompt.prompt.name } }
    }
    const templates = yield* host.resourceTemplates
    const template = templates.find((entry) => entry.template.uriTemplate === ref.uri)
    if (template !== undefined) return { server: template.server, ref }
    const resources = yield* host.resources
    const resource = resources.find((entry) => entry.resource.uri === ref.uri)
    if (resource !== undefined) return { server: resource.server, ref }
    return yield* failure(JsonRpc.ErrorCode.InvalidParams, `Unknown resource template: ${ref.uri}`)
  })

/**
 * The result for arguments the tool's `inputSchema` refuses: a tool execution error naming the tool
 * and where they are wrong, as the specification asks of input validation, so a model can correct
 * its call (a JSON-RPC error would end it).
 */
const invalidArguments = (tool: string, error: McpError.InvalidInput): Methods.ResultOf<"tools/call"> => ({
  content: [{ type: "text", text: `Invalid arguments for tool ${tool}: ${error.reason}` }],
  isError: true
})

/**
 * A host-wide tool called for the client's request: its progress relayed, its calls tracked as the
 * request's. A tool that requires a task is run as one for a client that cannot create tasks.
 */
const callFor =
  (context: CatalogContext, request: Peer.InboundRequest, throughSearch = false) =>
  (called: string, args: { readonly [key: string]: unknown } | undefined) =>
    // A view's call may name the tool as its own server does (`toolOfView`).
    Effect.flatMap(toolOfView(context.host, called, Views.viewServer(request)), (name) =>
      Effect.flatMap(serverOfTool(context.host, name), (server) =>
        Effect.flatMap(callOptions(context, request, server), (relayed) =>
          overLane(
            context,
            server,
            relayed
          )((options) => {
            const result = Effect.catchTag(context.host.callTool(name, args, options), "InvalidInput", (error) =>
              Effect.succeed(invalidArguments(name, error))
            )
            // Through call_tool no client can ask for a task: a tool that requires one is run as one.
            return behind(
              Tasks.canCreate(context.version) && !throughSearch
                ? result
                : Effect.catchTag(result, "TaskRequired", () =>
                    Tasks.runFor(context.host, name, args, progressTo(context, request))
                  )
            )
          })
        ).pipe(
          Effect.map((result) => (server === undefined ? result : Views.result(server, result))),
          context.inFlight.track(request.id, server)
        )
      )
    )

/** A read of `uri` on `server`, over the session the options say when it is that server's. */
const readOn = (host: McpHost.McpHostService, server: string, uri: string, options: McpHost.CallOptions) =>
  options.session !== undefined && options.session.server === server
    ? options.session.client.readResource(uri, options)
    : Effect.flatMap(host.client(server), (client) => client.readResource(uri, options))

/**
 * A read for the client's request, its view addresses rewritten for the server it comes from. A view
 * address the gateway gave reaches the server it names alone, with the address that server gave; a
 * `ui://` address it did not give reaches none. Any other URI goes to the server that lists it (or
 * whose template matches), else to the servers that may serve it unlisted (`serversForUnlisted`):
 * the first whose answer is other than "not found". A request that says which view it comes from
 * reads that view's server only, and one that continues a server's round that server only.
 */
const readFor = (context: CatalogContext, uri: string, request: Peer.InboundRequest) => {
  const { host, version } = context
  const target = Views.origin(uri)
  const view = Views.viewServer(request)
  const notFound = new HostError.NotFound({ kind: "resource", name: uri })
  /** A read for `server` (none: no server has the URI), its progress, logs and calls the request's. */
  const readAt = (
    server: string | undefined,
    read: (options: McpHost.CallOptions) => Effect.Effect<Methods.ResultOf<"resources/read">, BehindFailure>
  ) =>
    Effect.flatMap(callOptions(context, request, server), (relayed) =>
      overLane(context, server, relayed)((options) => behind(read(options), version))
    ).pipe(
      Effect.map((result) => (server === undefined ? result : Views.read(server, result))),
      context.inFlight.track(request.id, server)
    )
  /** A URI no server lists: asked of each server that may serve it, in turn. */
  const unlisted = Effect.flatMap(serversForUnlisted(host, uri, "read"), (servers) =>
    firstThatHas(
      servers.filter(
        (server) =>
          (view === undefined || server === view) &&
          (context.continues === undefined || server === context.continues.server)
      ),
      (server) => readAt(server, (options) => readOn(host, server, uri, options)),
      toFailure(notFound, version)
    ).pipe(Effect.map(([, result]) => result))
  )
  const located =
    target !== undefined
      ? Effect.succeed(target.server)
      : McpApps.isUiUri(uri)
        ? Effect.succeed(undefined)
        : serverOfUri(host, uri)
  return Effect.flatMap(located, (server) => {
    if (server === undefined && target === undefined && !McpApps.isUiUri(uri)) return unlisted
    if (view !== undefined && server !== view) {
      return failure(
        JsonRpc.ErrorCode.InvalidParams,
        `resources/read: ${uri} is not a resource of ${view}, the server of the view that asked`
      )
    }
    return readAt(server, (options) =>
      target !== undefined
        ? Effect.catchTag(readOn(host, target.server, target.uri, options), "UnknownServer", () =>
            Effect.fail(notFound)
          )
        : server === undefined
          ? Effect.fail(notFound)
          : host.readResource(uri, options)
    )
  })
}

/** The servers of `tools` that run tool calls as tasks (they declare `tasks.requests.tools.call`). */
const taskServers = (host: McpHost.McpHostService, tools: ReadonlyArray<Aggregate.HostTool>) =>
  Effect.map(
    Effect.filter(new Set(tools.map((entry) => entry.server)), (server) =>
      host.client(server).pipe(
        Effect.map((client) => client.serverCapabilities.tasks?.requests?.tools?.call !== undefined),
        Effect.orElseSucceed(() => false)
      )
    ),
    (servers) => new Set(servers)
  )

/** `tools/list` and `tools/call`: the host's tools, or under tool search the search and call tools. */
const toolHandlers = (context: CatalogContext): Array<readonly [string, Peer.RequestHandler]> => {
  const { host, version } = context
  // A client that cannot create tasks calls every tool plainly (one that requires a task is run as
  // one for it), so it is not told how tools support tasks; nor is any client, of a server that
  // runs no tool tasks (the gateway declares tasks for all its servers).
  const plain = ({ tool: { execution: _, ...tool }, name }: Aggregate.HostTool) => ({ ...tool, name })
  // Views as the client may see them: their addresses rewritten, or none for a client without MCP Apps.
  const views = Views.declared(context.clientCapabilities)
  const shown = (tools: ReadonlyArray<Aggregate.HostTool>) => tools.flatMap((entry) => Views.tool(entry, views) ?? [])
  const listed = (tools: ReadonlyArray<Aggregate.HostTool>) =>
    context.toolSearch === true
      ? Effect.succeed(ToolSearch.tools)
      : Tasks.canCreate(version)
        ? Effect.map(taskServers(host, tools), (runsTasks) =>
            tools.map((entry) => (runsTasks.has(entry.server) ? { ...entry.tool, name: entry.name } : plain(entry)))
          )
        : Effect.succeed(tools.map(plain))
  const call = (params: Methods.RequestParamsOf<"tools/call">, request: Peer.InboundRequest) => {
    if (context.toolSearch !== true) return callFor(context, request)(params.name, params.arguments)
    switch (params.name) {
      case ToolSearch.SEARCH:
        return Effect.map(host.tools, (tools) => ToolSearch.search(tools, params.arguments))
      case ToolSearch.CALL:
        return Effect.flatMap(host.tools, (tools) =>
          ToolSearch.call(tools, params.arguments, callFor(context, request, true))
        )
      default:
        return callFor(context, request)(params.name, params.arguments)
    }
  }
  return [
    [
      "tools/list",
      handler("tools/list", version, () =>
        Effect.map(Effect.flatMap(Effect.map(host.tools, shown), listed), (tools) => ({ tools }))
      )
    ],
    [
      "tools/call",
      decodedHandler("tools/call", version, (params, request) =>
        params.task !== undefined && context.tasks !== undefined
          ? context.toolSearch === true && (params.name === ToolSearch.SEARCH || params.name === ToolSearch.CALL)
            ? Effect.fail(failure(JsonRpc.ErrorCode.MethodNotFound, `${params.name} cannot be called as a task`))
            : Tasks.create(host, context.tasks, params, progressTo(context, request, false))
          : Effect.flatMap(call(params, request), (result) => written("tools/call", version, result))
      )
    ]
  ]
}

/** The catalog's handlers: the host's lists and calls, and the client's standing requests when it has them. */
export const handlers = (context: CatalogContext): Handlers => {
  const { host, version, subscriptions, inFlight } = context
  const views = Views.declared(context.clientCapabilities)
  const entries: Array<readonly [string, Peer.RequestHandler]> = [
    ...toolHandlers(context),
    [
      "resources/list",
      handler("resources/list", version, () =>
        // Once each, by the address the client sees (two servers' views differ there).
        Effect.map(host.resources, (resources) => ({
          resources: firstOf(
            resources.flatMap((entry) => Views.resource(entry, views) ?? []),
            (resource) => resource.uri
          )
        }))
      )
    ],
    [
      "resources/templates/list",
      handler("resources/templates/list", version, () =>
        Effect.map(host.resourceTemplates, (templates) => ({
          resourceTemplates: firstOf(
            templates.flatMap((entry) => Views.template(entry, views) ?? []),
            (template) => template.uriTemplate
          )
        }))
      )
    ],
    ["resources/read", handler("resources/read", version, (params, request) => readFor(context, params.uri, request))],
    [
      "prompts/list",
      handler("prompts/list", version, () =>
        Effect.map(host.prompts, (prompts) => ({
          prompts: prompts.map((entry) => ({ ...entry.prompt, name: entry.name }))
        }))
      )
    ],
    [
      "prompts/get",
      handler("prompts/get", version, (params, request) =>
        Effect.flatMap(promptOf(host, params.name), (prompt) =>
          Effect.flatMap(callOptions(context, request, prompt?.server), (relayed) =>
            overLane(
              context,
              prompt?.server,
              relayed
            )((options) => behind(host.getPrompt(params.name, params.arguments, options)))
          ).pipe(inFlight.track(request.id, prompt?.server))
        )
      )
    ],
    [
      "completion/complete",
      handler("completion/complete", version, (params) =>
        Effect.gen(function* () {
          const target = yield* completionTarget(host, params.ref)
          const server = yield* behind(host.client(target.server))
          const completion = yield* behind(server.complete({ ...params, ref: target.ref }))
          return { completion }
        })
      )
    ]
  ]
  if (context.tasks !== undefined) entries.push(...Tasks.handlers({ ...context, tasks: context.tasks }))
  if (subscriptions !== undefined) {
    entries.push(
      [
        "resources/subscribe",
        handler("resources/subscribe", version, (params) => Effect.as(subscriptions.add(params.uri), {}))
      ],
      [
        "resources/unsubscribe",
        handler("resources/unsubscribe", version, (params) => Effect.as(subscriptions.remove(params.uri), {}))
      ],
      [
        "logging/setLevel",
        handler("logging/setLevel", version, (params) => Effect.as(subscriptions.setLevel(params.level), {}))
      ]
    )
  }
  const onBehalfOf = context.clientCapabilities
  return new Map(
    entries.map(
      ([method, serve]) =>
        [
          method,
          (request: Peer.InboundRequest) =>
            Effect.provideService(
              serve(request).pipe(Observe.request(host, method, request)),
              Capabilities.OnBehalfOf,
              onBehalfOf
            ).pipe(Propagation.within(request))
        ] as const
    )
  )
}

/** Serves the handlers on a peer, each request's run inside `around(request)`. */
export const register = (
  peer: Peer.Peer,
  served: Handlers,
  around: (request: Peer.InboundRequest) => <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
): Effect.Effect<void> =>
  Effect.forEach(served, ([method, serve]) => peer.handle(method, (request) => around(request)(serve(request))), {
    discard: true
  })
