/**
 * The host's servers as the page sees them: each one's view (status, what it is, what it
 * declared), its lists, and the actions on it. Every status change publishes the servers whole.
 */
import type { McpClient } from "@effect-mcp/client"
import { type McpHost, ServerEntry, ServerStatus } from "@effect-mcp/host"
import * as Effect from "effect/Effect"
import * as PubSub from "effect/PubSub"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as Api from "../Api.js"

/** A word of a command line as a shell would need it. */
const quoted = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`)

/** The command line exactly as it runs (environment values masked), or the URL. */
export const describeTarget = (target: ServerEntry.Target): string =>
  target._tag === "Stdio"
    ? [...Object.keys(target.env).map((name) => `${name}=…`), ...[target.command, ...target.args].map(quoted)].join(" ")
    : target.url

const statusWord = (status: ServerStatus.ServerStatus): Api.Status =>
  ServerStatus.ServerStatus.$match(status, {
    Connecting: () => "connecting" as const,
    Ready: () => "ready" as const,
    Failed: () => "failed" as const,
    Reconnecting: () => "reconnecting" as const,
    Stopped: () => "stopped" as const
  })

/** One server's view; a ready one's capabilities come from its client. */
export const view = (host: McpHost.McpHostService, info: McpHost.ServerInfo): Effect.Effect<Api.ServerView> =>
  Effect.gen(function* () {
    const status = info.status
    const base: Api.ServerView = {
      name: info.name,
      transport: ServerEntry.transportOf(info.config.target),
      target: describeTarget(info.config.target),
      enabled: info.enabled,
      status: statusWord(status),
      detail: ServerStatus.describe(status)
    }
    if (status._tag === "Failed" || status._tag === "Reconnecting") return { ...base, error: status.cause.message }
    if (status._tag !== "Ready") return base
    const client = yield* Effect.option(host.client(info.name))
    return {
      ...base,
      serverInfo: { name: status.serverInfo.name, version: status.serverInfo.version },
      protocolVersion: status.protocolVersion,
      ...(status.pid === undefined ? {} : { pid: status.pid }),
      ...(client._tag === "None"
        ? {}
        : {
            capabilities: client.value.serverCapabilities,
            ...(client.value.instructions._tag === "Some" ? { instructions: client.value.instructions.value } : {})
          })
    }
  })

/** Every server's view, in configuration order. */
export const views = (host: McpHost.McpHostService) =>
  Effect.flatMap(host.servers, (servers) => Effect.forEach(servers, (info) => view(host, info)))

/** Publishes the servers on every status change, and a `ListChanged` on every list change, until the scope closes. */
export const follow = (
  host: McpHost.McpHostService,
  events: PubSub.PubSub<Api.Event>
): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function* () {
    yield* host.statusChanges.pipe(
      Stream.runForEach(() =>
        Effect.flatMap(views(host), (servers) => PubSub.publish(events, { _tag: "Servers", servers }))
      ),
      Effect.forkScoped
    )
    yield* host.changes.pipe(
      Stream.runForEach((change) =>
        change._tag === "List" ? PubSub.publish(events, { _tag: "ListChanged", server: change.server }) : Effect.void
      ),
      Effect.forkScoped
    )
  })

const has = (client: McpClient.McpClientService, capability: "tools" | "resources" | "prompts") =>
  client.serverCapabilities[capability] !== undefined

/** A server's lists; one the server did not declare is empty, one that fails has its error. */
export const lists = (client: McpClient.McpClientService): Effect.Effect<Api.Lists> =>
  Effect.gen(function* () {
    const errors: Record<string, string> = {}
    const list = <A>(
      name: string,
      capability: "tools" | "resources" | "prompts",
      effect: Effect.Effect<ReadonlyArray<A>, { readonly message: string }>
    ) =>
      has(client, capability)
        ? Effect.catchAll(effect, (error) =>
            Effect.sync(() => {
              errors[name] = error.message
              return [] as ReadonlyArray<A>
            })
          )
        : Effect.succeed([] as ReadonlyArray<A>)
    const [tools, resources, resourceTemplates, prompts] = yield* Effect.all(
      [
        list("tools", "tools", client.tools),
        list("resources", "resources", client.resources),
        list("resourceTemplates", "resources", client.resourceTemplates),
        list("prompts", "prompts", client.prompts)
      ],
      { concurrency: "unbounded" }
    )
    return { tools, resources, resourceTemplates, prompts, errors }
  })

/** Runs an action on a server. */
export const act = (
  host: McpHost.McpHostService,
  server: string,
  action: "connect" | "disconnect" | "restart" | "remove"
) => {
  switch (action) {
    case "connect":
      return host.enable(server)
    case "disconnect":
      return host.disable(server)
    case "restart":
      return Effect.zipRight(host.disable(server), host.enable(server))
    case "remove":
      return host.remove(server)
  }
}
