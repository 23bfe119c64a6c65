/**
 * A tool run as a task to its end: created, its status reported as the server pushes it and as a
 * poll at the server's suggested interval sees it, then its result; interrupted before the result
 * came, it is cancelled on the server.
 */
import type { McpSchema } from "@effect-mcp/protocol"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import { isTerminal } from "./taskProgress.js"
import type { Tasks } from "./tasks.js"

/** The shortest wait between two polls of a task. */
const MIN_POLL_MILLIS = 50

/** `runToolAsTask` over the other parts of the tasks. */
export const make =
  (parts: Omit<Tasks, "runToolAsTask">): Tasks["runToolAsTask"] =>
  (name, args, options = {}) => {
    const { callToolAsTask, getTask, toolTaskResult, cancelTask, taskStatus } = parts
    return Effect.uninterruptibleMask((restore) =>
      Effect.gen(function* () {
        const created = yield* restore(callToolAsTask(name, args, options))
        const taskId = created.taskId
        let last: McpSchema.Task | undefined
        const report = (task: McpSchema.Task) =>
          last !== undefined && last.status === task.status && last.statusMessage === task.statusMessage
            ? Effect.void
            : Effect.suspend(() => {
                last = task
                return options.onStatus === undefined ? Effect.void : options.onStatus(task)
              })
        // The server's suggestion, if it is a usable one (the schema allows any integer; polling back
        // to back on a 0 or a negative one would flood the server): at least 50 ms.
        const suggested =
          created.pollInterval !== undefined && created.pollInterval > 0 ? created.pollInterval : undefined
        const interval = Duration.millis(
          Math.max(MIN_POLL_MILLIS, suggested ?? Duration.toMillis(Duration.decode(options.pollInterval ?? "1 second")))
        )
        // Status: what the server pushes, and a poll at its suggested interval until the task is
        // final. Forked interruptible: this region is not, and a fork inherits that.
        const poll = getTask(taskId).pipe(
          Effect.tap(report),
          Effect.repeat({ schedule: Schedule.spaced(interval), until: (task) => isTerminal(task.status) }),
          Effect.delay(interval),
          Effect.ignore
        )
        const pushed = Stream.runForEach(taskStatus(taskId), report)
        const watch = yield* Effect.fork(
          Effect.interruptible(Effect.all([poll, pushed], { concurrency: 2, discard: true }))
        )
        return yield* restore(Effect.zipRight(report(created), toolTaskResult(name, taskId, options))).pipe(
          Effect.onExit((exit) =>
            Effect.zipRight(
              // Interrupted before the result came: cancel the task on the server.
              Exit.isInterrupted(exit) ? Effect.ignore(cancelTask(taskId)) : Effect.void,
              Fiber.interrupt(watch)
            )
          )
        )
      })
    )
  }
