/**
 * The stateless dialect's reads that said how long they stay fresh (2026-07-28 `ttlMs` > 0 on a
 * `resources/read` answered at once), by URI. An update of the resource ends its entry; a changed
 * resource list ends them all.
 */
import type * as Peer from "@effect-mcp/jsonrpc/Peer"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

/** The cache. */
export interface ReadCache {
  /** Keeps a read's raw result for its `ttlMs`, when it has one (any other request: nothing). */
  readonly store: (method: string, wire: Peer.WireObject | undefined, raw: Peer.WireObject) => Effect.Effect<void>
  /** The raw result of a read of `uri` still fresh at `now` (an expired one is dropped). */
  readonly fresh: (uri: string, now: number) => Peer.WireObject | undefined
}

/** A cache following the peer's notifications for as long as the scope lasts. */
export const make = (peer: Peer.Peer): Effect.Effect<ReadCache, never, Scope.Scope> =>
  Effect.gen(function* () {
    const reads = new Map<string, { readonly raw: Peer.WireObject; readonly expiresAt: number }>()
    const updates = yield* peer.subscribe
    yield* Stream.fromQueue(updates).pipe(
      Stream.runForEach((notification) =>
        Effect.sync(() => {
          if (notification.method === "notifications/resources/updated") reads.delete(String(notification.params?.uri))
          if (notification.method === "notifications/resources/list_changed") reads.clear()
        })
      ),
      Effect.forkScoped
    )
    const store: ReadCache["store"] = (method, wire, raw) =>
      method !== "resources/read" || typeof wire?.uri !== "string" || typeof raw.ttlMs !== "number" || raw.ttlMs <= 0
        ? Effect.void
        : Effect.map(Clock.currentTimeMillis, (now) => {
            reads.set(String(wire.uri), { raw, expiresAt: now + Number(raw.ttlMs) })
          })
    const fresh: ReadCache["fresh"] = (uri, now) => {
      const cached = reads.get(uri)
      if (cached === undefined) return undefined
      if (now < cached.expiresAt) return cached.raw
      reads.delete(uri)
      return undefined
    }
    return { store, fresh }
  })
