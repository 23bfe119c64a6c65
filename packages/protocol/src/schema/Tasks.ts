/** Tasks (2025-11-25, experimental): durable, pollable requests in either direction. */
import * as Schema from "effect/Schema"
import { optional } from "../internal/fields.js"
import { notification, request, requestOptionalParams } from "../internal/messages.js"
import { PaginatedRequestParams, PaginatedResult, Result } from "./Base.js"
import { Integer, Meta } from "./Json.js"

/** The status of a task. `completed`, `failed` and `cancelled` are terminal. */
export const TaskStatus = Schema.Literal("working", "input_required", "completed", "failed", "cancelled").annotations({
  identifier: "TaskStatus"
})

/** The type of {@link TaskStatus}. */
export type TaskStatus = typeof TaskStatus.Type

/** A task's state. `ttl` is `null` for unlimited retention; times are ISO 8601. */
export const Task = Schema.Struct({
  taskId: Schema.String,
  status: TaskStatus,
  statusMessage: optional(Schema.String),
  createdAt: Schema.String,
  lastUpdatedAt: Schema.String,
  ttl: Schema.NullOr(Integer),
  pollInterval: optional(Integer)
}).annotations({ identifier: "Task" })

/** The type of {@link Task}. */
export type Task = typeof Task.Type

/** The immediate answer to a task-augmented request. */
export const CreateTaskResult = Schema.Struct({
  _meta: optional(Meta),
  task: Task
}).annotations({ identifier: "CreateTaskResult" })

const TaskIdParams = Schema.Struct({ taskId: Schema.String })

/** `tasks/get` */
export const GetTaskRequest = request("tasks/get", TaskIdParams).annotations({ identifier: "GetTaskRequest" })

/** The result of `tasks/get`: the task's state. */
export const GetTaskResult = Schema.Struct({ _meta: optional(Meta), ...Task.fields }).annotations({
  identifier: "GetTaskResult"
})

/** `tasks/result`: blocks until the task is terminal, then answers with the original request's result. */
export const GetTaskPayloadRequest = request("tasks/result", TaskIdParams).annotations({
  identifier: "GetTaskPayloadRequest"
})

/** The result of `tasks/result`: the underlying request's result, whatever its shape. */
export const GetTaskPayloadResult = Result.annotations({ identifier: "GetTaskPayloadResult" })

/** `tasks/cancel` */
export const CancelTaskRequest = request("tasks/cancel", TaskIdParams).annotations({
  identifier: "CancelTaskRequest"
})

/** The result of `tasks/cancel`: the task's state after cancellation. */
export const CancelTaskResult = Schema.Struct({ _meta: optional(Meta), ...Task.fields }).annotations({
  identifier: "CancelTaskResult"
})

/** `tasks/list` */
export const ListTasksRequest = requestOptionalParams("tasks/list", PaginatedRequestParams).annotations({
  identifier: "ListTasksRequest"
})

/** The result of `tasks/list`. */
export const ListTasksResult = Schema.Struct({
  ...PaginatedResult.fields,
  tasks: Schema.Array(Task)
}).annotations({ identifier: "ListTasksResult" })

/** Params of `notifications/tasks/status`: the task's new state. */
export const TaskStatusNotificationParams = Schema.Struct({ _meta: optional(Meta), ...Task.fields }).annotations({
  identifier: "TaskStatusNotificationParams"
})

/** `notifications/tasks/status` */
export const TaskStatusNotification = notification(
  "notifications/tasks/status",
  TaskStatusNotificationParams
).annotations({ identifier: "TaskStatusNotification" })
