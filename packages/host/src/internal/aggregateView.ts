/**
 * The aggregated view of the registry's servers: one read of the registry gives the namespaced
 * tools, resources, templates and prompts of its ready (or reconnecting) servers, built again only
 * when a server's lists changed; and the skills of its ready servers, listed on each read.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Ref from "effect/Ref"
import * as SubscriptionRef from "effect/SubscriptionRef"
import * as Aggregate from "../Aggregate.js"
import * as Registry from "./registry.js"
import type { Live } from "./supervisor.js"

/** The views a router reads. */
export interface AggregateView {
  /** The view of one version of the registry. */
  readonly snapshot: Effect.Effect<Aggregate.Aggregate>
  /** The skills of every ready server that declares the extension. */
  readonly skills: Effect.Effect<ReadonlyArray<Aggregate.HostSkill>>
}

/** A ready server's skills; none when it does not declare the extension or its listing fails (logged). */
const skillsOf = (server: string, live: Live): Effect.Effect<ReadonlyArray<Aggregate.HostSkill>> =>
  live.status._tag !== "Ready" || Option.isNone(live.connected)
    ? Effect.succeed([])
    : live.connected.value.client.skills.list.pipe(
        Effect.map((skills) => skills.map((skill) => ({ server, skill }))),
        Effect.catchAll((error) =>
          error._tag === "CapabilityNotSupported"
            ? Effect.succeed([])
            : Effect.as(Effect.logWarning(`${server}: cannot list skills: ${error.message}`), [])
        )
      )

/** The aggregated views over the registry, named with the host's namespace. */
export const make = (registry: Ref.Ref<Registry.Registry>, namespace: Aggregate.Namespace): AggregateView => {
  // The view of the lists read last. A server's lists are replaced, never mutated, when they change:
  // the same lists give the same view, so a call (which looks its name up) does not build it again.
  let last: { readonly lists: ReadonlyArray<Aggregate.ServerLists>; readonly view: Aggregate.Aggregate } | undefined
  const viewOf = (lists: ReadonlyArray<Aggregate.ServerLists>): Aggregate.Aggregate => {
    if (last !== undefined && last.lists.length === lists.length && last.lists.every((old, i) => old === lists[i])) {
      return last.view
    }
    const view = Aggregate.aggregate(lists, namespace)
    last = { lists, view }
    return view
  }

  // One read of the registry: the view is of one version of it.
  const snapshot = Effect.flatMap(registry.get, (current) =>
    Effect.forEach(Registry.entries(current), (entry) => SubscriptionRef.get(entry.supervisor.live))
  ).pipe(
    Effect.map((lives) =>
      viewOf(
        lives
          .filter((live) => live.status._tag === "Ready" || live.status._tag === "Reconnecting")
          .map((live) => live.lists)
      )
    )
  )

  const skills = Effect.flatMap(registry.get, (current) =>
    Effect.forEach(
      Registry.entries(current),
      (entry) =>
        Effect.flatMap(SubscriptionRef.get(entry.supervisor.live), (live) => skillsOf(entry.config.name, live)),
      { concurrency: "unbounded" }
    )
  ).pipe(Effect.map((perServer) => perServer.flat()))

  return { snapshot, skills }
}
