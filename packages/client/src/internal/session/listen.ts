/**
 * Change notifications at 2026-07-28: one long `subscriptions/listen` request for the lists the
 * server says can change and the resources subscribed to, opened again (the old one cancelled)
 * whenever the resource subscriptions change. Its notifications are tagged with its id; those of an
 * earlier subscription are not accepted. A subscription that broke is opened again, a few times,
 * after a growing wait. A server that answers -32601 (it does not serve the method, though it
 * declares list changes) is asked again the same few times, quietly, then never again for the
 * session, with one warning: lists still refresh when used (their `ttlMs`).
 */

import type * as Peer from "@effect-mcp/jsonrpc/Peer"
import { JsonRpc, McpSchema } from "@effect-mcp/protocol"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberHandle from "effect/FiberHandle"
import * as HashSet from "effect/HashSet"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

/** When a subscription that failed is opened again: after 1, 2, 4 and 8 seconds, then no more. */
export const RELISTEN: Schedule.Schedule<unknown> = Schedule.exponential("1 second").pipe(
  Schedule.intersect(Schedule.recurs(4))
)

/** The server does not serve `subscriptions/listen`. */
const notServed = (error: Peer.RequestFailure): boolean =>
  error._tag === "RpcError" && error.code === JsonRpc.ErrorCode.MethodNotFound

/** What listening needs. */
export interface ListenOptions {
  readonly server: () => string
  readonly peer: Peer.Peer
  /** The `_meta` envelope of a request, as it is now. */
  readonly meta: () => Peer.WireObject
  /** What the server declared: which change notifications it can send. */
  readonly capabilities: McpSchema.ServerCapabilities
}

/** The subscription. */
export interface Listening {
  /** Changes the resources subscribed to, and listens again with them (a result of `{}`). */
  readonly resubscribe: (
    change: (uris: HashSet.HashSet<string>) => HashSet.HashSet<string>
  ) => Effect.Effect<Peer.WireObject>
  /** Whether a notification belongs to the current subscription (untagged ones always do). */
  readonly accepts: (notification: JsonRpc.JSONRPCNotification) => boolean
}

/** Listens at once for what the server can send; the subscription ends with the scope. */
export const make = (options: ListenOptions): Effect.Effect<Listening, never, Scope.Scope> =>
  Effect.gen(function* () {
    const { peer, meta } = options
    // subscriptions/listen: one long request; its notifications reach the peer's subscribers,
    // tagged with its id (notifications of an earlier subscription are dropped).
    const listener = yield* FiberHandle.make<void>()
    let listening: { readonly id: JsonRpc.RequestId; readonly asked: Peer.WireObject } | undefined
    const subscriptionOf = (notification: JsonRpc.JSONRPCNotification) => {
      const tag = notification.params?._meta
      return McpSchema.isJsonObject(tag) ? tag[McpSchema.MetaKey.subscriptionId] : undefined
    }
    // The acknowledgement says which of the asked notifications the server will send.
    const acknowledgements = yield* peer.subscribe
    yield* Stream.fromQueue(acknowledgements).pipe(
      Stream.filter(
        (notification) =>
          notification.method === "notifications/subscriptions/acknowledged" &&
          listening !== undefined &&
          subscriptionOf(notification) === listening.id
      ),
      Stream.runForEach((notification) => {
        const honoured = notification.params?.notifications
        const missing = Object.keys(listening?.asked ?? {}).filter(
          (key) => !McpSchema.isJsonObject(honoured) || honoured[key] === undefined
        )
        return missing.length === 0
          ? Effect.void
          : Effect.logWarning(`${options.server()}: the server will not send ${missing.join(", ")}`)
      }),
      Effect.forkScoped
    )
    let resources = HashSet.empty<string>()
    // Set once the server has refused the method (-32601) through every retry: never asked again.
    let unserved = false
    const caps = options.capabilities
    const listen = Effect.suspend(() => {
      if (unserved) return Effect.void
      const notifications = {
        ...(caps.tools?.listChanged === true ? { toolsListChanged: true } : {}),
        ...(caps.prompts?.listChanged === true ? { promptsListChanged: true } : {}),
        ...(caps.resources?.listChanged === true ? { resourcesListChanged: true } : {}),
        ...(caps.resources?.subscribe === true && HashSet.size(resources) > 0
          ? { resourceSubscriptions: Array.from(resources) }
          : {})
      }
      if (Object.keys(notifications).length === 0) return FiberHandle.clear(listener)
      return FiberHandle.run(
        listener,
        peer
          .request(
            "subscriptions/listen",
            { notifications },
            {
              meta: meta(),
              timeout: Duration.infinity,
              onId: (id) => {
                listening = { id, asked: notifications }
              }
            }
          )
          .pipe(
            Effect.tap(() => Effect.logDebug(`${options.server()}: the server ended the subscription`)),
            // The connection ended (closed with the client, or before it): nothing to listen on, nothing to warn about.
            Effect.catchAll((error) =>
              peer.hasEnded()
                ? Effect.logDebug(`${options.server()}: change notifications ended with the connection`)
                : Effect.fail(error)
            ),
            // A subscription that broke (not one the server ended) is opened again, a few times.
            Effect.tapError((error) =>
              notServed(error)
                ? Effect.logDebug(
                    `${options.server()}: subscriptions/listen is not served (-32601); asking again later`
                  )
                : Effect.logWarning(
                    `${options.server()}: change notifications broke (${error.message}); listening again`
                  )
            ),
            Effect.retry(RELISTEN),
            Effect.catchAll((error) =>
              notServed(error)
                ? Effect.zipRight(
                    Effect.sync(() => {
                      unserved = true
                    }),
                    Effect.logWarning(
                      `${options.server()}: the server declares list changes but does not serve subscriptions/listen (-32601); no longer asking: lists refresh when used`
                    )
                  )
                : Effect.logWarning(`${options.server()}: change notifications stopped: ${error.message}`)
            ),
            Effect.asVoid
          )
      )
    })
    yield* listen
    const resubscribe = (change: (uris: HashSet.HashSet<string>) => HashSet.HashSet<string>) =>
      Effect.zipRight(
        Effect.sync(() => {
          resources = change(resources)
        }),
        Effect.as(listen, {})
      )

    return {
      resubscribe,
      accepts: (notification) => {
        const tag = subscriptionOf(notification)
        return tag === undefined || (listening !== undefined && tag === listening.id)
      }
    }
  })
