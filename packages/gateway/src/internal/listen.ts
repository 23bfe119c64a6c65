/**
 * `subscriptions/listen` (2026-07-28): the acknowledgement of the filter the gateway honours, then
 * each change of the host's lists it asked for and each update of a resource it subscribed to, all
 * tagged with the subscription's id, for as long as the stream is read. A subscribed resource is
 * held on its server's session while the stream lives (shared with the 2025-11-25 sessions'
 * subscriptions: the session unsubscribes when the last holder lets go; a URI no server lists goes
 * to a server that subscribes to it, `Subscriptions.holdServed`); a URI no server serves, or whose
 * server cannot subscribe now, is left out of the acknowledgement.
 */
import type { McpHost } from "@effect-mcp/host"
import { type JsonRpc, McpSchema } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Mailbox from "effect/Mailbox"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type * as ServerRequests from "./serverRequests.js"
import * as Subscriptions from "./subscriptions.js"

/** The list notifications a filter may ask for, by the host's list names. */
const LISTS = { toolsListChanged: "tools", promptsListChanged: "prompts", resourcesListChanged: "resources" } as const

/** What following a subscription needs. */
export interface ListenContext {
  readonly host: McpHost.McpHostService
  readonly attachments: ServerRequests.AttachmentsService
}

/** Each asked URI held on its server's session while the scope is open: URI → server, those that could be. */
const holdAll = (context: ListenContext, uris: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const held = new Map<string, string>()
    for (const uri of new Set(uris)) {
      const holding = Subscriptions.holdServed(context.host, context.attachments, uri)
      const release = (server: string) =>
        Effect.ignore(Subscriptions.release(context.host, context.attachments, server, uri))
      const server = yield* Effect.option(Effect.acquireRelease(holding, release))
      if (Option.isSome(server)) held.set(uri, server.value)
    }
    return held
  })

/** The subscription `message` opens: its acknowledgement, then what it asked for. */
export const listen = (
  message: JsonRpc.JSONRPCRequest,
  context: ListenContext
): Stream.Stream<JsonRpc.JSONRPCNotification> =>
  Stream.unwrapScoped(
    Effect.gen(function* () {
      const asked = McpSchema.isJsonObject(message.params?.notifications) ? message.params.notifications : {}
      const tag = { [McpSchema.MetaKey.subscriptionId]: message.id }
      const lists = new Set<string>(Object.entries(LISTS).flatMap(([key, list]) => (asked[key] === true ? [list] : [])))
      const uris = Array.isArray(asked.resourceSubscriptions)
        ? asked.resourceSubscriptions.filter((uri): uri is string => typeof uri === "string")
        : []
      const held = yield* holdAll(context, uris)
      const honoured = {
        ...Object.fromEntries(Object.keys(LISTS).flatMap((key) => (asked[key] === true ? [[key, true]] : []))),
        ...(Array.isArray(asked.resourceSubscriptions) ? { resourceSubscriptions: [...held.keys()] } : {})
      }
      const notification = (method: string, params: Record<string, unknown> = {}): JsonRpc.JSONRPCNotification => ({
        jsonrpc: "2.0",
        method,
        params: { ...params, _meta: tag }
      })
      // Everything it follows is heard from before the acknowledgement goes out: nothing that
      // happens after it is missed.
      const heard = yield* Mailbox.make<JsonRpc.JSONRPCNotification>()
      const fanout = yield* context.attachments.fanout(context.host)
      yield* fanout.listen({
        listChanged: (list) =>
          lists.has(list)
            ? Effect.sync(() => heard.unsafeOffer(notification(`notifications/${list}/list_changed`)))
            : Effect.void,
        // A restarted server's new session is subscribed again to what this stream holds.
        ready: (server, client) =>
          Effect.forEach(
            [...held].filter(([, owner]) => owner === server),
            ([uri]) => Effect.ignore(client.subscribe(uri)),
            { discard: true }
          ),
        updated: (server, update) =>
          held.get(update.uri) === server
            ? Effect.sync(() => {
                const { _meta: _, ...params } = update
                heard.unsafeOffer(notification("notifications/resources/updated", params))
              })
            : Effect.void
      })
      const ack = notification("notifications/subscriptions/acknowledged", { notifications: honoured })
      return Stream.concat(Stream.make(ack), Mailbox.toStream(heard))
    })
  )
