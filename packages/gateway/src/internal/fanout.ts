/**
 * What the servers behind the gateway send to no one in particular (log messages, resource
 * updates, task statuses, list changes) and their (re)starts, heard once for every connection: one set of fibers
 * per gateway follows the host, and each connection is a listener in a set. A connection costs an
 * entry, not its own subscriptions to the host and to every server.
 */
import type { McpClient } from "@effect-mcp/client"
import type { McpHost } from "@effect-mcp/host"
import type { McpSchema } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as FiberMap from "effect/FiberMap"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

/** A list whose change the clients hear of. */
export type List = "tools" | "resources" | "prompts"

/** What one connection does with what the servers send; each effect is its own (failures are its own to handle). */
export interface Listener {
  /** A server's session is ready (first, or after a restart): the connection applies its standing requests. */
  readonly ready?: (server: string, client: McpClient.McpClientService) => Effect.Effect<void>
  /** A server's log message. */
  readonly log?: (
    server: string,
    message: typeof McpSchema.LoggingMessageNotificationParams.Type,
    /** How many connections were calling that server when it came (0: none). */
    callers: number
  ) => Effect.Effect<void>
  /** A server's update of a resource. */
  readonly updated?: (
    server: string,
    update: typeof McpSchema.ResourceUpdatedNotificationParams.Type
  ) => Effect.Effect<void>
  /** A server's pushed task status (`notifications/tasks/status`). */
  readonly taskStatus?: (server: string, task: McpSchema.Task) => Effect.Effect<void>
  /** A list of the aggregate changed. */
  readonly listChanged?: (list: List) => Effect.Effect<void>
  /** Whether the connection has a call in flight to the server. */
  readonly calling?: (server: string) => boolean
}

/** The gateway's listeners. */
export interface Fanout {
  /** Hears what the servers send while the scope is open. */
  readonly listen: (listener: Listener) => Effect.Effect<void, never, Scope.Scope>
}

/** Follows the host for as long as the scope is open. */
export const make = (host: McpHost.McpHostService): Effect.Effect<Fanout, never, Scope.Scope> =>
  Effect.gen(function* () {
    const listeners = new Set<Listener>()
    const each = (hear: (listener: Listener) => Effect.Effect<void> | undefined) =>
      Effect.forEach(listeners, (listener) => hear(listener) ?? Effect.void, { discard: true })

    // A log message of a server that connections are calling goes to those only (it most likely
    // belongs to their calls: a stdio server cannot say); one sent while none is, to every connection.
    const logTo = (server: string, message: typeof McpSchema.LoggingMessageNotificationParams.Type) =>
      Effect.suspend(() => {
        const callers = [...listeners].filter((listener) => listener.calling?.(server) === true)
        return Effect.forEach(
          callers.length > 0 ? callers : listeners,
          (listener) => listener.log?.(server, message, callers.length) ?? Effect.void,
          {
            discard: true
          }
        )
      })

    // Log messages are relayed as the client dispatches them, before the result of a call they
    // came during reaches its caller: a client that gets the result has had the call's logs.
    const follow = (server: string, client: McpClient.McpClientService) =>
      Effect.gen(function* () {
        yield* each((listener) => listener.ready?.(server, client))
        yield* client.observe("notifications/message", (message) => logTo(server, message))
        yield* Stream.merge(
          Stream.map(client.resourceUpdates, (update) => ({ _tag: "Updated" as const, update })),
          Stream.map(client.tasks.statuses, (task) => ({ _tag: "Task" as const, task }))
        ).pipe(
          Stream.runForEach((event) =>
            event._tag === "Updated"
              ? each((listener) => listener.updated?.(server, event.update))
              : each((listener) => listener.taskStatus?.(server, event.task))
          )
        )
      }).pipe(Effect.scoped)

    const forwarding = yield* FiberMap.make<string>()
    yield* host.statusChanges.pipe(
      Stream.runForEach((event) =>
        event.status._tag === "Ready"
          ? Effect.flatMap(Effect.option(host.client(event.server)), (client) =>
              client._tag === "Some"
                ? FiberMap.run(forwarding, event.server, follow(event.server, client.value))
                : Effect.void
            )
          : FiberMap.remove(forwarding, event.server)
      ),
      Effect.forkScoped
    )
    // A status change changes every list (a server's tools come or go with it).
    yield* host.changes.pipe(
      Stream.mapConcat(
        (change): ReadonlyArray<List> => (change._tag === "List" ? [change.list] : ["tools", "resources", "prompts"])
      ),
      Stream.runForEach((list) => each((listener) => listener.listChanged?.(list))),
      Effect.forkScoped
    )
    return {
      listen: (listener) =>
        Effect.acquireRelease(
          Effect.sync(() => listeners.add(listener)),
          () => Effect.sync(() => listeners.delete(listener))
        )
    }
  })
