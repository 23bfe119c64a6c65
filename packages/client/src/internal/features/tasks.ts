/**
 * Client-to-server tasks (2025-11-25): a tool called as a task answers at once with a task
 * handle; its status is polled (`tasks/get`) or pushed (`notifications/tasks/status`), its
 * result fetched with `tasks/result`, and it can be listed and cancelled. Whether a task may or
 * must be used is checked before anything is sent: the server's `tasks.requests.tools.call`
 * capability and the tool's `execution.taskSupport`.
 */

import type * as Peer from "@effect-mcp/jsonrpc/Peer"
import { McpSchema } from "@effect-mcp/protocol"
import * as Chunk from "effect/Chunk"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import {
  CapabilityNotSupported,
  DecodeError,
  type RequestError,
  TaskNotAllowed,
  type ToolOutputInvalid
} from "../../McpError.js"
import type { Part } from "../onFirstUse.js"
import { request } from "../session/request.js"
import type { SessionService as Session } from "../session/types.js"
import type { Progress } from "./callOptions.js"
import * as Lists from "./lists.js"
import { isTerminal, type TaskProgress } from "./taskProgress.js"
import * as TaskRun from "./taskRun.js"
import type { CallToolResult, Tool, Tools } from "./tools.js"

export { isTerminal } from "./taskProgress.js"

/** Options of a tool run as a task. */
export interface TaskOptions {
  /** How long the server should keep the task and its result. */
  readonly ttl?: Duration.DurationInput
  /** The timeout of each request (creating, polling, and waiting for the result). */
  readonly timeout?: Duration.DurationInput
  /**
   * Asks for the task's progress and receives it, for as long as the task runs: until its status
   * is seen final (pushed, polled, its result fetched, or cancelled), or its TTL has passed.
   */
  readonly onProgress?: (progress: Progress) => Effect.Effect<void>
}

/** Options of {@link Tasks.runToolAsTask}. */
export interface RunOptions extends TaskOptions {
  /** Called with the task's state each time it changes (polled or pushed). */
  readonly onStatus?: (task: McpSchema.Task) => Effect.Effect<void>
  /** How often to poll when the server suggests no interval. Default: 1 second. */
  readonly pollInterval?: Duration.DurationInput
}

/** The tasks part of the client. */
export interface Tasks {
  readonly callToolAsTask: (
    name: string,
    args: { readonly [key: string]: unknown } | undefined,
    options?: TaskOptions
  ) => Effect.Effect<McpSchema.Task, RequestError | TaskNotAllowed>
  readonly getTask: (taskId: string) => Effect.Effect<McpSchema.Task, RequestError>
  readonly toolTaskResult: (
    tool: string,
    taskId: string,
    options?: TaskOptions
  ) => Effect.Effect<CallToolResult, RequestError | ToolOutputInvalid>
  readonly tasksStream: Stream.Stream<McpSchema.Task, RequestError>
  readonly cancelTask: (taskId: string) => Effect.Effect<McpSchema.Task, RequestError>
  readonly taskStatus: (taskId: string) => Stream.Stream<McpSchema.Task>
  readonly runToolAsTask: (
    name: string,
    args: { readonly [key: string]: unknown } | undefined,
    options?: RunOptions
  ) => Effect.Effect<CallToolResult, RequestError | ToolOutputInvalid | TaskNotAllowed>
}

const decodeCreateTask = Schema.decodeUnknownEither(McpSchema.CreateTaskResult)
const decodeCallToolResult = Schema.decodeUnknownEither(McpSchema.CallToolResult)

const stripMeta = ({ _meta: _, ...task }: McpSchema.Task & { readonly _meta?: unknown }): McpSchema.Task => task

/**
 * Builds the tasks part of a client over its session and tools; `statuses` are the pushed status
 * changes, `progress` follows the progress of tasks (built when a caller first asks for it).
 */
export const make = (
  session: Session,
  tools: Pick<Tools, "definition" | "checkOutput">,
  statuses: Stream.Stream<McpSchema.Task>,
  progress: Part<TaskProgress>
): Tasks => {
  const { server } = session
  // Read on each use: a re-established session may declare other capabilities.
  const toolTasks = () => session.established().serverCapabilities.tasks?.requests?.tools?.call !== undefined
  const requestOptions = (options: TaskOptions | undefined): Peer.RequestOptions =>
    options?.timeout === undefined ? {} : { timeout: options.timeout }

  const supportOf = (tool: Option.Option<Tool>) =>
    Option.getOrUndefined(Option.flatMap(tool, (found) => Option.fromNullable(found.execution?.taskSupport)))
  const taskSupportOf = (name: string) => Effect.map(tools.definition(name), supportOf)

  const callToolAsTask: Tasks["callToolAsTask"] = (name, args, options) =>
    Effect.gen(function* () {
      if (!toolTasks()) {
        return yield* new CapabilityNotSupported({
          server,
          method: "tools/call",
          capability: "tasks.requests.tools.call"
        })
      }
      const support = yield* taskSupportOf(name)
      if (support === undefined || support === "forbidden") {
        return yield* new TaskNotAllowed({ server, tool: name, taskSupport: support ?? "forbidden" })
      }
      const ttl = options?.ttl === undefined ? undefined : Math.round(Duration.toMillis(options.ttl))
      const onProgress = options?.onProgress
      if (onProgress === undefined) return yield* createTask(name, args, ttl, requestOptions(options))
      const following = yield* progress.get
      const token = yield* following.follow(onProgress)
      const task = yield* createTask(name, args, ttl, {
        ...requestOptions(options),
        meta: { progressToken: token }
      }).pipe(Effect.onError(() => following.abandon(token)))
      yield* following.created(token, task)
      return task
    })

  // A task-augmented call answers with a CreateTaskResult, decoded here, not by the method table.
  const createTask = (
    name: string,
    args: { readonly [key: string]: unknown } | undefined,
    ttl: number | undefined,
    options: Peer.RequestOptions
  ) =>
    Effect.gen(function* () {
      const prepared = yield* session.prepare(
        "tools/call",
        {
          name,
          ...(args === undefined ? {} : { arguments: args }),
          task: ttl === undefined ? {} : { ttl }
        },
        options,
        false
      )
      const created = decodeCreateTask(yield* session.execute(prepared))
      if (Either.isLeft(created)) {
        return yield* new DecodeError({
          server,
          method: "tools/call",
          issue: `expected a CreateTaskResult: ${ParseResult.TreeFormatter.formatErrorSync(created.left)}`
        })
      }
      return created.right.task
    })

  /** A task's status, as an answer showed it: a followed task's progress ends when it is final. */
  const saw = (task: McpSchema.Task) => (isTerminal(task.status) ? ended(task.taskId) : Effect.void)
  /** The task has ended (its result came, or the server refused it): its progress is over. */
  const ended = (taskId: string) => Effect.sync(() => progress.now()?.ended(taskId))

  const getTask: Tasks["getTask"] = (taskId) =>
    Effect.tap(Effect.map(request(session, "tasks/get", { taskId }), stripMeta), saw)

  const toolTaskResult: Tasks["toolTaskResult"] = (tool, taskId, options) =>
    Effect.gen(function* () {
      const raw = yield* request(session, "tasks/result", { taskId }, requestOptions(options)).pipe(
        // Answered (a result or the server's refusal): the task is over.
        Effect.tapBoth({
          onSuccess: () => ended(taskId),
          onFailure: (error) => (error._tag === "RpcError" ? ended(taskId) : Effect.void)
        })
      )
      const decoded = decodeCallToolResult(raw)
      if (Either.isLeft(decoded)) {
        return yield* new DecodeError({
          server,
          method: "tasks/result",
          issue: ParseResult.TreeFormatter.formatErrorSync(decoded.left)
        })
      }
      return yield* tools.checkOutput(tool, decoded.right)
    })

  const tasksStream = Lists.paginate(
    server,
    "tasks/list",
    (cursor) => request(session, "tasks/list", cursor === undefined ? undefined : { cursor }),
    (result) => result.tasks
  )

  const cancelTask: Tasks["cancelTask"] = (taskId) =>
    Effect.tap(Effect.map(request(session, "tasks/cancel", { taskId }), stripMeta), saw)

  const taskStatus: Tasks["taskStatus"] = (taskId) =>
    statuses.pipe(
      Stream.filter((task) => task.taskId === taskId),
      Stream.takeUntil((task) => isTerminal(task.status))
    )

  const parts = { callToolAsTask, getTask, toolTaskResult, tasksStream, cancelTask, taskStatus }
  return { ...parts, runToolAsTask: TaskRun.make(parts) }
}

/** Collects a stream of tasks. */
export const collect = (stream: Stream.Stream<McpSchema.Task, RequestError>) =>
  Effect.map(Stream.runCollect(stream), Chunk.toReadonlyArray)
