/**
 * The server's notifications as the client offers them: each method's decoded params as a
 * `Stream`, and list changes (which invalidate the cached lists first) as one.
 */
import { type JsonRpc, Methods } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Mailbox from "effect/Mailbox"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { ListKind } from "../../McpClient.js"
import type * as Peer from "../../Peer.js"

/** Whether a notification belongs to the session's current subscriptions. */
export type Accepts = (notification: JsonRpc.JSONRPCNotification) => boolean

/** One notification method's decoded params, from the moment the stream runs (undecodable ones are skipped). */
export const notificationsOf = <M extends Methods.NotificationMethodName>(
  peer: Peer.Peer,
  method: M,
  accepts: Accepts = () => true
) =>
  peer.notifications.pipe(
    Stream.filter((notification) => notification.method === method && accepts(notification)),
    Stream.filterMap((notification) =>
      Either.getRight(Methods.decodeNotificationParams(method, notification.params ?? {}))
    )
  )

const LIST_CHANGED: Readonly<Record<string, ListKind>> = {
  "notifications/tools/list_changed": "tools",
  "notifications/resources/list_changed": "resources",
  "notifications/prompts/list_changed": "prompts"
}

/**
 * Follows list-changed notifications from now on: each invalidates its list's cache, then is
 * published on the returned stream (which any number of readers may run).
 */
export const listChanges = (
  peer: Peer.Peer,
  accepts: Accepts,
  invalidate: Readonly<Record<ListKind, Effect.Effect<void>>>
): Effect.Effect<Stream.Stream<ListKind>, never, Scope.Scope> =>
  Effect.gen(function* () {
    const changed = yield* Mailbox.make<ListKind>()
    const hub = yield* Stream.broadcastDynamic(Mailbox.toStream(changed), { capacity: "unbounded" })
    const subscription = yield* peer.subscribe
    yield* Stream.fromQueue(subscription).pipe(
      Stream.runForEach((notification: JsonRpc.JSONRPCNotification) => {
        const kind = LIST_CHANGED[notification.method]
        return kind === undefined || !accepts(notification)
          ? Effect.void
          : Effect.zipRight(invalidate[kind], changed.offer(kind))
      }),
      Effect.forkScoped
    )
    return hub
  })
