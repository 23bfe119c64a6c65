/**
 * Tool tasks through the gateway (2025-11-25). A client's task-augmented `tools/call` starts the
 * task on the server behind the tool; the client sees it under a gateway-wide id (the server's name
 * and its own id), and `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel` reach that
 * server. A connection knows only the tasks it started: another connection's id is unknown to it.
 * A client that cannot use tasks (an older revision, or 2026-07-28, where tasks are an extension the
 * gateway does not serve) still calls a tool that requires one: the gateway runs it as a task for it.
 */
import type { McpHost } from "@effect-mcp/host"
import type * as Peer from "@effect-mcp/jsonrpc/Peer"
import type { JsonRpcFailure } from "@effect-mcp/jsonrpc/PeerError"
import { JsonRpc, McpSchema, type Methods, ProtocolVersion } from "@effect-mcp/protocol"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type { InFlight } from "./inflight.js"
import * as Views from "./views.js"
import { behind, failure, handler } from "./wire.js"

/** Whether a client at `version` can create tasks itself. */
export const canCreate = (version: ProtocolVersion.ProtocolVersion): boolean =>
  ProtocolVersion.isStateful(version) && ProtocolVersion.isAtLeast(version, "2025-11-25")

/** The `tasks` capability the gateway declares to clients that can create tasks. */
export const capability: NonNullable<McpSchema.ServerCapabilities["tasks"]> = {
  list: {},
  cancel: {},
  requests: { tools: { call: {} } }
}

/** The id a client sees for a server's task: unique across the servers behind the gateway. */
const gatewayId = (server: string, taskId: string) => `${encodeURIComponent(server)}:${taskId}`

/** One connection's tasks, by the id it knows them by (the newest {@link KEPT}). */
export interface SessionTasks {
  readonly started: Map<string, McpHost.HostTask>
}

/** How many of its tasks a connection keeps track of; the oldest are forgotten first. */
export const KEPT = 1000

/** A connection with no tasks yet. */
export const make = (): SessionTasks => ({ started: new Map() })

/** Whether the server has stopped keeping a task (its `ttl` after its creation has passed). */
const expired = (started: McpHost.HostTask, now: number) => {
  const { createdAt, ttl } = started.task
  return ttl !== null && Date.parse(createdAt) + ttl < now
}

/**
 * Keeps a task as the connection's. Beyond {@link KEPT}, the tasks their servers no longer keep are
 * forgotten first, then the oldest.
 */
const keep = (tasks: SessionTasks, id: string, started: McpHost.HostTask, now: number) => {
  tasks.started.set(id, started)
  if (tasks.started.size <= KEPT) return
  for (const [old, task] of tasks.started) if (expired(task, now)) tasks.started.delete(old)
  for (const oldest of tasks.started.keys()) {
    if (tasks.started.size <= KEPT) break
    tasks.started.delete(oldest)
  }
}

/** The id the connection knows a server's task by, when it started it. */
export const idOf = (tasks: SessionTasks, server: string, taskId: string): string | undefined => {
  const id = gatewayId(server, taskId)
  return tasks.started.has(id) ? id : undefined
}

/**
 * A server's pushed task status, told to the connection that started the task, under the id it
 * knows it by (and to no other connection).
 */
export const statusTo =
  (tasks: SessionTasks, notify: (method: string, params: Peer.WireObject) => Effect.Effect<void>) =>
  (server: string, task: McpSchema.Task): Effect.Effect<void> => {
    const id = idOf(tasks, server, task.taskId)
    return id === undefined ? Effect.void : notify("notifications/tasks/status", seen(id, task))
  }

const encodeCreated = Schema.encodeEither(McpSchema.CreateTaskResult)

/** A task as the client knows it: under its gateway-wide id. */
const seen = (id: string, task: McpSchema.Task): McpSchema.Task => ({ ...task, taskId: id })

/**
 * A task-augmented `tools/call`: the task started on the tool's server and kept as the connection's,
 * its progress sent to the client for as long as the task runs.
 * Answers with the `CreateTaskResult`, written here (the method table's `tools/call` result is a
 * `CallToolResult`).
 */
export const create = (
  host: McpHost.McpHostService,
  tasks: SessionTasks,
  params: Methods.RequestParamsOf<"tools/call">,
  progress: Pick<McpHost.TaskOptions, "onProgress">
): Effect.Effect<Peer.WireObject, JsonRpcFailure> =>
  Effect.gen(function* () {
    const ttl = params.task?.ttl
    const started = yield* behind(
      host.callToolAsTask(params.name, params.arguments, {
        ...progress,
        ...(ttl === undefined ? {} : { ttl: Duration.millis(ttl) })
      })
    )
    const id = gatewayId(started.server, started.task.taskId)
    keep(tasks, id, started, yield* Clock.currentTimeMillis)
    const encoded = encodeCreated({ task: seen(id, started.task) })
    if (Either.isLeft(encoded)) {
      const why = ParseResult.TreeFormatter.formatErrorSync(encoded.left)
      return yield* failure(JsonRpc.ErrorCode.InternalError, `The task of ${params.name} cannot be sent: ${why}`)
    }
    return encoded.right
  })

/**
 * A tool that requires a task, called by a client that cannot create one: run as a task to its end
 * (`tasks/result` waits for it), its progress the call's, and cancelled on the server if the client
 * gives up first.
 */
export const runFor = (
  host: McpHost.McpHostService,
  name: string,
  args: { readonly [key: string]: unknown } | undefined,
  progress: Pick<McpHost.TaskOptions, "onProgress">
) =>
  Effect.flatMap(host.callToolAsTask(name, args, progress), (started) =>
    Effect.onExit(host.taskResult(started, UNTIL_DONE), (exit) =>
      Exit.isSuccess(exit) ? Effect.void : Effect.ignore(cancelOnServer(host, started))
    )
  )

/** Cancels a task on the server that runs it. */
const cancelOnServer = (host: McpHost.McpHostService, started: McpHost.HostTask) =>
  Effect.flatMap(host.client(started.server), (client) => client.tasks.cancel(started.task.taskId))

/**
 * `tasks/result` waits for the task's end, however long it runs (its caller decides when to give
 * up): not bounded by the server's request timeout.
 */
const UNTIL_DONE = { timeout: Duration.infinity }

/**
 * Cancels a connection's tasks on their servers, as it ends (a task already final refuses, which is
 * ignored), a few at a time and each within a bound: ending the connection waits for no server long.
 */
export const cancelAll = (host: McpHost.McpHostService, tasks: SessionTasks): Effect.Effect<void> =>
  // The connection's tasks as they are when it ends (not when this was made).
  Effect.suspend(() =>
    Effect.forEach(
      [...tasks.started.values()],
      (started) => cancelOnServer(host, started).pipe(Effect.timeout(CANCEL_WITHIN), Effect.ignore),
      { concurrency: 8, discard: true }
    )
  )

const CANCEL_WITHIN = Duration.seconds(5)

/** The `tasks/*` handlers of one connection. */
export const handlers = (context: {
  readonly host: McpHost.McpHostService
  readonly version: ProtocolVersion.ProtocolVersion
  readonly tasks: SessionTasks
  readonly inFlight: InFlight
}): Array<readonly [string, Peer.RequestHandler]> => {
  const { host, version, tasks, inFlight } = context
  const owned = (id: string) => {
    const started = tasks.started.get(id)
    return started === undefined
      ? Effect.fail(failure(JsonRpc.ErrorCode.InvalidParams, `Unknown task: ${id}`))
      : Effect.succeed(started)
  }
  const state = (id: string, use: "get" | "cancel") =>
    Effect.flatMap(owned(id), (started) =>
      behind(Effect.flatMap(host.client(started.server), (client) => client.tasks[use](started.task.taskId))).pipe(
        Effect.map((task) => seen(id, task))
      )
    )
  return [
    ["tasks/get", handler("tasks/get", version, (params) => state(params.taskId, "get"))],
    ["tasks/cancel", handler("tasks/cancel", version, (params) => state(params.taskId, "cancel"))],
    [
      "tasks/result",
      handler("tasks/result", version, (params, request) =>
        Effect.flatMap(owned(params.taskId), (started) =>
          behind(host.taskResult(started, UNTIL_DONE)).pipe(
            inFlight.track(request.id, started.server),
            Effect.map((result) => ({
              ...Views.result(started.server, result),
              _meta: { ...result._meta, [McpSchema.RELATED_TASK_META_KEY]: { taskId: params.taskId } }
            }))
          )
        )
      )
    ],
    [
      "tasks/list",
      handler("tasks/list", version, (params) =>
        // Every task comes in one page: a cursor is none the gateway gave.
        params?.cursor !== undefined
          ? Effect.fail(failure(JsonRpc.ErrorCode.InvalidParams, `Unknown cursor: ${params.cursor}`))
          : // The connection's tasks as their servers see them now; one its server no longer knows is forgotten.
            Effect.forEach(
              [...tasks.started.keys()],
              (id) =>
                Effect.catchAll(state(id, "get"), (error) =>
                  Effect.sync(() => {
                    if (error.code === JsonRpc.ErrorCode.InvalidParams) tasks.started.delete(id)
                  })
                ),
              { concurrency: 8 }
            ).pipe(Effect.map((found) => ({ tasks: found.filter((task) => task !== undefined) })))
      )
    ]
  ]
}
