/**
 * The session's resource subscriptions, remembered so that a session established again (after an
 * HTTP server forgot it) subscribes to them again.
 */
import * as Effect from "effect/Effect"
import * as HashSet from "effect/HashSet"
import * as Ref from "effect/Ref"
import type { RequestError } from "../../McpError.js"

/** The subscriptions. */
export interface Subscriptions {
  readonly add: (uri: string) => Effect.Effect<void>
  readonly remove: (uri: string) => Effect.Effect<void>
  /** Subscribes to each again; one that fails is logged, not fatal. */
  readonly restore: Effect.Effect<void>
}

/** Subscriptions restored with `subscribe` (which must not itself recover: it runs within recovery). */
export const make = (
  server: () => string,
  subscribe: (uri: string) => Effect.Effect<unknown, RequestError>
): Subscriptions => {
  const uris = Ref.unsafeMake(HashSet.empty<string>())
  return {
    add: (uri) => Ref.update(uris, HashSet.add(uri)),
    remove: (uri) => Ref.update(uris, HashSet.remove(uri)),
    restore: Effect.flatMap(Ref.get(uris), (all) =>
      Effect.forEach(
        all,
        (uri) =>
          subscribe(uri).pipe(
            Effect.catchAll((error) =>
              Effect.logWarning(`${server()}: could not subscribe to ${uri} again: ${error.message}`)
            )
          ),
        { discard: true }
      )
    )
  }
}
