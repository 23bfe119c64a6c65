/**
 * Tasks at 2026-07-28: the `io.modelcontextprotocol/tasks` extension. A server may answer a
 * `tools/call` with a task (`resultType: "task"`) instead of its result; the client then polls
 * `tasks/get` at the server's `pollIntervalMs` until the task is final (its result is inlined),
 * answers `input_required` tasks with the host's handlers through `tasks/update`, and cancels the
 * task with `tasks/cancel` when the caller gives up. The caller of `callTool` sees the result.
 */

import type * as Peer from "@effect-mcp/jsonrpc/Peer"
import { McpSchema } from "@effect-mcp/protocol"
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import { DecodeError, RpcError } from "../../McpError.js"
import type { WireError } from "./dialect.js"

/** The extension's identifier, declared under `capabilities.extensions`. */
export const EXTENSION = "io.modelcontextprotocol/tasks"

/** What following a task needs. */
export interface TaskContext {
  readonly server: () => string
  readonly peer: Peer.Peer
  /** The `_meta` envelope of each request. */
  readonly meta: () => Peer.WireObject
  /** Answers a task's input requests (keyed as the server keyed them). */
  readonly inputs: (
    requests: ReadonlyArray<readonly [string, McpSchema.InputRequest]>
  ) => Effect.Effect<Peer.WireObject, WireError>
  readonly decodeInputRequest: (value: unknown) => ReadonlyArray<McpSchema.InputRequest>
}

const DEFAULT_POLL = Duration.seconds(1)

const pollOf = (raw: Peer.WireObject, fallback: Duration.Duration) =>
  typeof raw.pollIntervalMs === "number" && raw.pollIntervalMs > 0 ? Duration.millis(raw.pollIntervalMs) : fallback

/** The failure a final task status (failed, cancelled) ends with: the task needs no cancel. */
const isFinalFailure = (exit: Exit.Exit<unknown, WireError>) =>
  Exit.isFailure(exit) &&
  Cause.failureOption(exit.cause).pipe(
    Option.exists((error) => error._tag === "RpcError" && error.method === "tools/call")
  )

/** Follows the task a `tools/call` answered with to its end; interruption cancels it on the server. */
export const follow = (context: TaskContext, created: Peer.WireObject): Effect.Effect<Peer.WireObject, WireError> => {
  const taskId = created.taskId
  if (typeof taskId !== "string") {
    return Effect.fail(
      new DecodeError({ server: context.server(), method: "tools/call", issue: "a task result without a taskId" })
    )
  }
  const request = (method: string, params: Peer.WireObject) =>
    context.peer.request(method, { ...params, taskId }, { meta: context.meta() })
  const loop = (interval: Duration.Duration): Effect.Effect<Peer.WireObject, WireError> =>
    Effect.flatMap(request("tasks/get", {}), (task) => {
      switch (task.status) {
        case "completed":
          return McpSchema.isJsonObject(task.result)
            ? Effect.succeed(task.result)
            : Effect.fail(
                new DecodeError({
                  server: context.server(),
                  method: "tasks/get",
                  issue: "a completed task without its result"
                })
              )
        case "failed": {
          const error = McpSchema.isJsonObject(task.error) ? task.error : {}
          return Effect.fail(
            new RpcError({
              server: context.server(),
              method: "tools/call",
              code: typeof error.code === "number" ? error.code : -32603,
              errorMessage: typeof error.message === "string" ? error.message : "the task failed",
              ...(error.data === undefined ? {} : { data: error.data })
            })
          )
        }
        case "cancelled":
          return Effect.fail(
            new RpcError({
              server: context.server(),
              method: "tools/call",
              code: -32603,
              errorMessage: `task ${taskId} was cancelled`
            })
          )
        case "input_required": {
          const requests = McpSchema.isJsonObject(task.inputRequests)
            ? Object.entries(task.inputRequests).flatMap(([key, value]) =>
                context.decodeInputRequest(value).map((decoded) => [key, decoded] as const)
              )
            : []
          return context.inputs(requests).pipe(
            Effect.flatMap((inputResponses) => request("tasks/update", { inputResponses })),
            Effect.zipRight(Effect.sleep(pollOf(task, interval))),
            Effect.zipRight(loop(pollOf(task, interval)))
          )
        }
        default:
          return Effect.zipRight(Effect.sleep(pollOf(task, interval)), loop(pollOf(task, interval)))
      }
    })
  const first = pollOf(created, DEFAULT_POLL)
  // A task that is final needs nothing more; one we stop following (interrupted, timed out, or
  // its input could not be given) is cancelled on the server.
  return Effect.onExit(Effect.zipRight(Effect.sleep(first), loop(first)), (exit) =>
    Exit.isSuccess(exit) || isFinalFailure(exit) ? Effect.void : Effect.ignore(request("tasks/cancel", {}))
  )
}
