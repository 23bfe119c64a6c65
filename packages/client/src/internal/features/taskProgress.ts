/**
 * The progress of tasks (2025-11-25). A task-augmented request's progress token stays valid after
 * the task is created, until the task is final; the peer forgets a request's token with its
 * answer, so the creating request carries a token of this module's own, and the progress under it
 * reaches the caller until the task is seen final (a pushed or polled status, its result, its
 * cancellation), its TTL has passed, or the client closes.
 *
 * A task's progress outlives its creating request (the spec keeps the token valid until the task is
 * final), so the token is this module's own, not the request id the peer forgets with the answer; at
 * most 1,000 tasks are followed at once.
 */
import { type McpSchema, Methods } from "@effect-mcp/protocol"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Scope from "effect/Scope"
import type { SessionService } from "../session/types.js"
import { type Progress, progressOf } from "./callOptions.js"

/** The most tasks followed at once; past it, the oldest is no longer followed. */
const MAX_FOLLOWED = 1000

/** A task whose progress is followed. */
interface Followed {
  readonly onProgress: (progress: Progress) => Effect.Effect<void>
  taskId: string | undefined
  /** When to stop following (epoch millis), once the task is known. */
  until: number
}

/** Follows the progress of tasks the client creates. */
export interface TaskProgress {
  /** A progress token for a task's creating request: what arrives under it goes to `onProgress`. */
  readonly follow: (onProgress: (progress: Progress) => Effect.Effect<void>) => Effect.Effect<string>
  /** The task created under `token`: followed until it is final or its TTL has passed. */
  readonly created: (token: string, task: McpSchema.Task) => Effect.Effect<void>
  /** No task came of the request under `token`: nothing more to follow. */
  readonly abandon: (token: string) => Effect.Effect<void>
  /** The task is final (its status said so, its result came, or the server refused it): its progress is over. */
  readonly ended: (taskId: string) => void
}

/** A task's status is final: nothing more will happen to it. */
export const isTerminal = (status: McpSchema.TaskStatus): boolean =>
  status === "completed" || status === "failed" || status === "cancelled"

/** Follows the session's task progress for as long as the scope lives (one observer of its notifications). */
export const make = (
  session: Pick<SessionService, "observe" | "established">
): Effect.Effect<TaskProgress, never, Scope.Scope> =>
  Effect.gen(function* () {
    // By token, in the order followed (the oldest first, for the bound).
    const followed = new Map<string, Followed>()
    let next = 0
    const tokenOf = (taskId: string) => {
      for (const [token, entry] of followed) if (entry.taskId === taskId) return token
      return undefined
    }
    const ended: TaskProgress["ended"] = (taskId) => {
      const token = tokenOf(taskId)
      if (token !== undefined) followed.delete(token)
    }
    const expire = (now: number) => {
      for (const [token, entry] of followed) if (entry.until <= now) followed.delete(token)
    }

    yield* session.observe((notification) => {
      if (followed.size === 0) return Effect.void
      const version = session.established().protocolVersion
      if (notification.method === "notifications/tasks/status") {
        const status = Methods.decodeNotificationParams(
          "notifications/tasks/status",
          notification.params ?? {},
          version
        )
        if (Either.isRight(status) && isTerminal(status.right.status)) ended(status.right.taskId)
        return Effect.void
      }
      if (notification.method !== "notifications/progress") return Effect.void
      const token = notification.params?.progressToken
      const entry = typeof token === "string" ? followed.get(token) : undefined
      if (entry === undefined) return Effect.void
      const progress = progressOf(notification.params ?? {}, version)
      if (progress === undefined) return Effect.void
      return Effect.flatMap(Clock.currentTimeMillis, (now) => {
        if (entry.until <= now) {
          expire(now)
          return Effect.void
        }
        // A callback that fails is logged; it does not stop the reader.
        return entry
          .onProgress(progress)
          .pipe(Effect.catchAllCause((cause) => Effect.logWarning("a task progress callback failed", cause)))
      })
    })

    return {
      follow: (onProgress) =>
        Effect.map(Clock.currentTimeMillis, (now) => {
          expire(now)
          if (followed.size >= MAX_FOLLOWED) {
            const oldest = followed.keys().next().value
            if (oldest !== undefined) followed.delete(oldest)
          }
          next += 1
          const token = `effect-mcp-task-${next}`
          followed.set(token, { onProgress, taskId: undefined, until: Number.POSITIVE_INFINITY })
          return token
        }),
      created: (token, task) =>
        Effect.map(Clock.currentTimeMillis, (now) => {
          const entry = followed.get(token)
          if (entry === undefined) return
          if (isTerminal(task.status)) {
            followed.delete(token)
            return
          }
          entry.taskId = task.taskId
          // A TTL of null: the server keeps the task for as long as it likes.
          entry.until = task.ttl === null ? Number.POSITIVE_INFINITY : now + task.ttl
        }),
      abandon: (token) => Effect.sync(() => void followed.delete(token)),
      ended
    }
  })
