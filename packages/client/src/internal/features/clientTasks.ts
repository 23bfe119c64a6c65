/**
 * Tasks the server asks of the client (2025-11-25): a task-augmented `sampling/createMessage` or
 * `elicitation/create` is answered at once with a task handle while its handler runs in a fiber
 * of the client's scope; the server then asks `tasks/get`, `tasks/result` (which waits for the
 * end), `tasks/list` and `tasks/cancel`. A finished task is forgotten after its TTL.
 */

import * as Peer from "@effect-mcp/jsonrpc/Peer"
import { JsonRpc, McpSchema } from "@effect-mcp/protocol"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import type * as Scope from "effect/Scope"
import type { JsonRpcFailure } from "../../McpError.js"
import type { SessionService } from "../session/types.js"
import { isTerminal } from "./tasks.js"

/** The legal next statuses of each status; terminal ones have none. */
const legal: Record<McpSchema.TaskStatus, ReadonlyArray<McpSchema.TaskStatus>> = {
  working: ["input_required", "completed", "failed", "cancelled"],
  input_required: ["working", "completed", "failed", "cancelled"],
  completed: [],
  failed: [],
  cancelled: []
}

/** May a task move from one status to the other? */
export const canMove = (from: McpSchema.TaskStatus, to: McpSchema.TaskStatus): boolean => legal[from].includes(to)

/** Options of the client's task store. */
export interface ClientTaskOptions {
  /** The TTL when the server asks for none. Default: 5 minutes. */
  readonly defaultTtl?: Duration.DurationInput
  /** The longest TTL granted, whatever the server asks. Default: 1 hour. */
  readonly maxTtl?: Duration.DurationInput
  /** The poll interval suggested to the server. Default: 500 ms. */
  readonly pollInterval?: Duration.DurationInput
}

interface Entry {
  task: McpSchema.Task
  readonly done: Deferred.Deferred<Exit.Exit<Peer.WireObject, JsonRpcFailure>>
}

/** The client's tasks. */
export interface ClientTasks {
  /** Starts `work` as a task; the `CreateTaskResult` to answer with. */
  readonly create: (
    requestedTtl: number | undefined,
    work: Effect.Effect<Peer.WireObject, JsonRpcFailure>
  ) => Effect.Effect<Peer.WireObject>
  /** The tasks kept now (for tests and health checks). */
  readonly size: Effect.Effect<number>
}

const iso = (millis: number) => new Date(millis).toISOString()

/** Serves `tasks/*` for the client's tasks over the session; tasks end with the scope. */
export const make = (
  session: Pick<SessionService, "handle" | "notifyRaw">,
  options: ClientTaskOptions = {}
): Effect.Effect<ClientTasks, never, Scope.Scope> =>
  Effect.gen(function* () {
    const defaultTtl = Duration.toMillis(Duration.decode(options.defaultTtl ?? "5 minutes"))
    const maxTtl = Duration.toMillis(Duration.decode(options.maxTtl ?? "1 hour"))
    const pollInterval = Duration.toMillis(Duration.decode(options.pollInterval ?? "500 millis"))
    const entries = new Map<string, Entry>()
    const running = new Map<string, Fiber.RuntimeFiber<unknown, unknown>>()
    const scope = yield* Effect.scope
    let counter = 0

    const move = (id: string, status: McpSchema.TaskStatus, statusMessage?: string) =>
      Effect.gen(function* () {
        const entry = entries.get(id)
        if (entry === undefined || !canMove(entry.task.status, status)) return false
        const now = yield* Clock.currentTimeMillis
        const { statusMessage: _, ...rest } = entry.task
        entry.task = {
          ...rest,
          status,
          lastUpdatedAt: iso(now),
          ...(statusMessage === undefined ? {} : { statusMessage })
        }
        yield* Effect.ignore(session.notifyRaw("notifications/tasks/status", { ...entry.task }))
        if (isTerminal(status)) {
          // Forgotten once its TTL has passed (counted from creation, as the spec says).
          const ttl = entry.task.ttl ?? defaultTtl
          const age = now - Date.parse(entry.task.createdAt)
          // Interruptible: `move` runs in exit handlers, whose forks would inherit their region.
          yield* Effect.sleep(Duration.millis(Math.max(0, ttl - age))).pipe(
            Effect.zipRight(Effect.sync(() => entries.delete(id))),
            Effect.interruptible,
            Effect.forkIn(scope)
          )
        }
        return true
      })

    const unknown = (id: string) => Peer.failWith(JsonRpc.ErrorCode.InvalidParams, `Unknown task: ${id}`)
    const lookup = (params: Peer.WireObject | undefined) => {
      const id = params?.taskId
      const entry = typeof id === "string" ? entries.get(id) : undefined
      return entry === undefined ? Effect.fail(unknown(String(id))) : Effect.succeed(entry)
    }
    const related = (id: string) => ({ [McpSchema.RELATED_TASK_META_KEY]: { taskId: id } })

    const create: ClientTasks["create"] = (requestedTtl, work) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const taskId = `client-task-${++counter}-${now.toString(36)}`
        const ttl = Math.min(requestedTtl ?? defaultTtl, maxTtl)
        const task: McpSchema.Task = {
          taskId,
          status: "working",
          createdAt: iso(now),
          lastUpdatedAt: iso(now),
          ttl,
          pollInterval
        }
        const done = yield* Deferred.make<Exit.Exit<Peer.WireObject, JsonRpcFailure>>()
        entries.set(taskId, { task, done })
        const fiber = yield* Effect.interruptible(work).pipe(
          Effect.onExit((exit) =>
            Effect.zipRight(
              move(taskId, Exit.isSuccess(exit) ? "completed" : Exit.isInterrupted(exit) ? "cancelled" : "failed"),
              Deferred.succeed(done, exit)
            )
          ),
          Effect.ensuring(Effect.sync(() => running.delete(taskId))),
          Effect.forkIn(scope)
        )
        running.set(taskId, fiber)
        return { task } as Peer.WireObject
      })

    yield* session.handle("tasks/get", (request) => Effect.map(lookup(request.params), (entry) => ({ ...entry.task })))
    yield* session.handle("tasks/list", () =>
      Effect.succeed({ tasks: [...entries.values()].map((entry) => ({ ...entry.task })) })
    )
    yield* session.handle("tasks/cancel", (request) =>
      Effect.gen(function* () {
        const entry = yield* lookup(request.params)
        const id = entry.task.taskId
        if (isTerminal(entry.task.status)) {
          return yield* Peer.failWith(
            JsonRpc.ErrorCode.InvalidParams,
            `Cannot cancel task ${id}: it is already ${entry.task.status}`
          )
        }
        const fiber = running.get(id)
        if (fiber !== undefined) yield* Fiber.interrupt(fiber)
        yield* move(id, "cancelled", "Cancelled at the server's request")
        return { ...entry.task }
      })
    )
    yield* session.handle("tasks/result", (request) =>
      Effect.gen(function* () {
        const entry = yield* lookup(request.params)
        const id = entry.task.taskId
        const exit = yield* Deferred.await(entry.done)
        if (Exit.isSuccess(exit)) {
          const meta = exit.value._meta
          return { ...exit.value, _meta: { ...(McpSchema.isJsonObject(meta) ? meta : {}), ...related(id) } }
        }
        if (Exit.isInterrupted(exit)) {
          return yield* Peer.failWith(JsonRpc.ErrorCode.InvalidParams, `Task ${id} was cancelled`, related(id))
        }
        const failure = exit.cause._tag === "Fail" ? exit.cause.error : undefined
        return yield* failure ?? Peer.failWith(JsonRpc.ErrorCode.InternalError, `Task ${id} failed`)
      })
    )

    return { create, size: Effect.sync(() => entries.size) }
  })
