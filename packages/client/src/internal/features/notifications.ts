/**
 * The server's notifications as the client offers them: each method's decoded params as a
 * `Stream`, and list changes (which invalidate the cached lists first) as one.
 */
import { type JsonRpc, Methods } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as PubSub from "effect/PubSub"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { ListKind } from "../api.js"
import type { SessionService } from "../session/types.js"

/** Whether a notification belongs to the session's current subscriptions. */
export type Accepts = (notification: JsonRpc.JSONRPCNotification) => boolean

/**
 * One notification method's decoded params, from the moment the stream runs (undecodable ones are
 * skipped). Described when first run: a client holds its streams whether or not anyone reads them.
 */
export const notificationsOf = <M extends Methods.NotificationMethodName>(
  session: Pick<SessionService, "notifications" | "established">,
  method: M,
  accepts: Accepts = () => true
) =>
  Stream.suspend(() =>
    session.notifications.pipe(
      Stream.filter((notification) => notification.method === method && accepts(notification)),
      Stream.filterMap((notification) =>
        Either.getRight(
          Methods.decodeNotificationParams(method, notification.params ?? {}, session.established().protocolVersion)
        )
      )
    )
  )

/**
 * Runs `f` on one notification method's decoded params as each is dispatched, for as long as the
 * scope is open: in order, before any stream sees it, and before a response the server sent after
 * it reaches its caller (undecodable ones are skipped).
 */
export const observeOf =
  (session: Pick<SessionService, "observe" | "established">, accepts: Accepts) =>
  <M extends Methods.NotificationMethodName>(
    method: M,
    f: (params: Methods.NotificationParamsOf<M>) => Effect.Effect<void>
  ): Effect.Effect<void, never, Scope.Scope> =>
    session.observe((notification) => {
      if (notification.method !== method || !accepts(notification)) return Effect.void
      const decoded = Methods.decodeNotificationParams(
        method,
        notification.params ?? {},
        session.established().protocolVersion
      )
      return Either.isRight(decoded) ? f(decoded.right) : Effect.void
    })

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
  session: Pick<SessionService, "observe">,
  accepts: Accepts,
  invalidate: Readonly<Record<ListKind, Effect.Effect<void>>>
): Effect.Effect<Stream.Stream<ListKind>, never, Scope.Scope> =>
  Effect.gen(function* () {
    // Published to whoever runs the stream at the time: the hub is made when the stream first
    // runs (until then nobody could hear) and shut down with the scope; a reader after that
    // finds the stream ended, as a reader of a shut-down hub does.
    let changed: PubSub.PubSub<ListKind> | undefined
    let ended = false
    yield* Effect.addFinalizer(() =>
      Effect.suspend(() => {
        ended = true
        return changed === undefined ? Effect.void : PubSub.shutdown(changed)
      })
    )
    // Observed as it is dispatched: no fiber, and the cache is dropped before the next message.
    yield* session.observe((notification) => {
      const kind = Object.hasOwn(LIST_CHANGED, notification.method) ? LIST_CHANGED[notification.method] : undefined
      if (kind === undefined || !accepts(notification)) return Effect.void
      const listening = changed
      return listening === undefined
        ? invalidate[kind]
        : Effect.zipRight(invalidate[kind], Effect.asVoid(PubSub.publish(listening, kind)))
    })
    return Stream.suspend(() => {
      if (ended) return Stream.empty
      changed ??= Effect.runSync(PubSub.unbounded<ListKind>())
      return Stream.fromPubSub(changed)
    })
  })
