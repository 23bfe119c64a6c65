/**
 * Tasks (2025-11-25), client to server, against the reference server's task tool
 * (`simulate-research-query`, task support `required`, about four seconds per run, with an
 * `input_required` pause when the query is ambiguous), and against the official SDK's task
 * support (its `InMemoryTaskStore`, which honours the requested TTL).
 */

import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it } from "@effect/vitest"
import { Capabilities, InMemoryTransport, McpClient, type McpError, StdioTransport } from "@effect-mcp/client"
import type { McpSchema } from "@effect-mcp/protocol"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import { noFibersLeft } from "./support/fibers.js"
import { everythingServer } from "./support/processes.js"
import { serveSdk } from "./support/SdkBridge.js"
import { makeSdkTaskServer } from "./support/sdkTaskServer.js"

const TOOL = "simulate-research-query"

/** What the elicitation handler saw: the related task of each request. */
const asked: Array<string | undefined> = []
let chosen = ""

const client = McpClient.layer({ name: "everything" }).pipe(
  Layer.provide(
    StdioTransport.layer({
      command: process.execPath,
      args: [everythingServer, "stdio"],
      name: "everything",
      shutdown: { afterStdin: "500 millis", afterTerm: "1 second" }
    }).pipe(Layer.provide(NodeContext.layer))
  ),
  Layer.provide(
    Layer.succeed(Capabilities.Elicitation, {
      form: (params, context) =>
        Effect.sync(() => {
          asked.push(context.relatedTaskId)
          // The first of the offered interpretations (the answer is checked against the schema).
          const [field, schema] = Object.entries(params.requestedSchema.properties)[0] ?? []
          const options = schema !== undefined && "oneOf" in schema ? schema.oneOf : []
          chosen = options[0]?.const ?? ""
          return { action: "accept" as const, content: { [field ?? "interpretation"]: chosen } }
        })
    })
  )
)

const textOf = (result: McpClient.CallToolResult) =>
  result.content.map((block) => (block.type === "text" ? block.text : block.type)).join("\n")

describe("tasks against the reference server", () => {
  it.live("refuses a plain call of a task-required tool, and a task of a tool that forbids one, before sending", () =>
    Effect.gen(function* () {
      const mcp = yield* McpClient.McpClient
      const required = yield* mcp.callTool(TOOL, { topic: "x" }).pipe(Effect.flip)
      expect(required._tag).toBe("TaskRequired")
      expect(required.message).toMatch(/must be called as a task/)
      const forbidden = yield* mcp.tasks.callTool("echo", { message: "x" }).pipe(Effect.flip)
      expect(forbidden._tag).toBe("TaskNotAllowed")
      expect((yield* mcp.stats).pending).toBe(0)
    }).pipe(Effect.provide(client))
  )

  it.live("runs a tool as a task to its result, reporting status changes", () =>
    Effect.gen(function* () {
      const mcp = yield* McpClient.McpClient
      const seen: Array<McpSchema.Task> = []
      const result = yield* mcp.tasks.run(
        TOOL,
        { topic: "effect systems" },
        { ttl: "1 minute", pollInterval: "200 millis", onStatus: (task) => Effect.sync(() => seen.push(task)) }
      )
      expect(textOf(result)).toMatch(/Research Report: effect systems/)
      expect(seen[0]?.status).toBe("working")
      expect(new Set(seen.map((task) => task.taskId)).size).toBe(1)
      expect(seen.some((task) => /Analyzing|Synthesizing|Generating/.test(task.statusMessage ?? ""))).toBe(true)
      const listed = yield* mcp.tasks.list
      expect(listed.map((task) => task.taskId)).toContain(seen[0]?.taskId)
    }).pipe(Effect.provide(client), noFibersLeft)
  )

  it.live("as a Stream: status changes then the result; ending the stream early cancels the task", () =>
    Effect.gen(function* () {
      const mcp = yield* McpClient.McpClient
      const events = yield* mcp.tasks
        .runStream(TOOL, { topic: "streamed" }, { pollInterval: "200 millis" })
        .pipe(Stream.runCollect, Effect.map(Chunk.toReadonlyArray))
      const last = events.at(-1)
      expect(last?._tag === "Result" && textOf(last.result)).toMatch(/Research Report: streamed/)
      expect(events.slice(0, -1).every((event) => event._tag === "Status")).toBe(true)
      expect(events[0]?._tag === "Status" && events[0].task.status).toBe("working")
      // Only the first status, then the stream ends: the task is cancelled on the server.
      const first = yield* mcp.tasks.runStream(TOOL, { topic: "abandoned" }).pipe(Stream.runHead)
      const taskId = first._tag === "Some" && first.value._tag === "Status" ? first.value.task.taskId : ""
      expect((yield* mcp.tasks.get(taskId)).status).toBe("cancelled")
    }).pipe(Effect.provide(client))
  )

  it.live("input_required: the server's elicitation carries the task's id to our handler", () =>
    Effect.gen(function* () {
      asked.length = 0
      const mcp = yield* McpClient.McpClient
      const statuses: Array<string> = []
      let taskId = ""
      const result = yield* mcp.tasks.run(
        TOOL,
        { topic: "python", ambiguous: true },
        {
          pollInterval: "200 millis",
          onStatus: (task) =>
            Effect.sync(() => {
              taskId = task.taskId
              statuses.push(task.status)
            })
        }
      )
      expect(asked).toStrictEqual([taskId])
      expect(chosen).not.toBe("")
      expect(textOf(result)).toContain(`python (${chosen})`)
      expect(statuses).toContain("working")
    }).pipe(Effect.provide(client))
  )

  it.live("interrupting a running task cancels it on the server; unknown ids are typed errors", () =>
    Effect.gen(function* () {
      const mcp = yield* McpClient.McpClient
      let taskId: string | undefined
      const running = yield* mcp.tasks
        .run(
          TOOL,
          { topic: "to be cancelled" },
          {
            onStatus: (task) =>
              Effect.sync(() => {
                taskId = task.taskId
              })
          }
        )
        .pipe(Effect.fork)
      while (taskId === undefined) yield* Effect.sleep("50 millis")
      yield* Fiber.interrupt(running)
      const after = yield* mcp.tasks.get(taskId)
      expect(after.status).toBe("cancelled")
      const unknown = yield* mcp.tasks.get("no-such-task").pipe(Effect.flip)
      expect(unknown._tag).toBe("RpcError")
      expect((unknown as McpError.RpcError).method).toBe("tasks/get")
    }).pipe(Effect.provide(client))
  )

  it.live("a task created and cancelled by hand: get, cancel, and the result of a cancelled task", () =>
    Effect.gen(function* () {
      const mcp = yield* McpClient.McpClient
      const task = yield* mcp.tasks.callTool(TOOL, { topic: "by hand" }, { ttl: "30 seconds" })
      expect(task.status).toBe("working")
      expect((yield* mcp.tasks.get(task.taskId)).taskId).toBe(task.taskId)
      const cancelled = yield* mcp.tasks.cancel(task.taskId)
      expect(cancelled.status).toBe("cancelled")
      // A cancelled task has no result: the reference server answers tasks/result with an internal error.
      const error = yield* mcp.tasks.result(TOOL, task.taskId, { timeout: "10 seconds" }).pipe(Effect.flip)
      expect(error).toMatchObject({ _tag: "RpcError", code: -32603, method: "tasks/result", server: "everything" })
      expect(error.message).toMatch(/^everything: tasks\/result failed with -32603: Task \w+ has no result stored$/)
    }).pipe(Effect.provide(client))
  )
})

describe("tasks against the official SDK's task support", () => {
  const sdk = Layer.unwrapScoped(
    Effect.gen(function* () {
      const { server, cleanup } = makeSdkTaskServer()
      yield* Effect.addFinalizer(() => Effect.sync(cleanup))
      return McpClient.layer({ name: "sdk-tasks" }).pipe(
        Layer.provide(
          InMemoryTransport.layer(
            serveSdk(() => server),
            "sdk-tasks"
          )
        )
      )
    })
  )

  it.live("runs a task to completion, and a failing task reports its error", () =>
    Effect.gen(function* () {
      const mcp = yield* McpClient.McpClient
      const done = yield* mcp.tasks.run("compute", { ms: 100 })
      expect(textOf(done)).toBe("done after 100")
      const failed = yield* mcp.tasks.run("compute", { ms: 20, fail: true })
      expect(failed.isError).toBe(true)
      expect(textOf(failed)).toBe("it broke")
    }).pipe(Effect.provide(sdk))
  )

  it.live("a task's progress reaches the caller after the task is created, until its result", () =>
    Effect.gen(function* () {
      const mcp = yield* McpClient.McpClient
      const seen: Array<McpClient.Progress> = []
      const task = yield* mcp.tasks.callTool(
        "compute",
        { ms: 400, steps: 3 },
        { onProgress: (progress) => Effect.sync(() => seen.push(progress)) }
      )
      expect(task.status).toBe("working")
      // The result comes after every step the server reported (one connection, in order).
      const result = yield* mcp.tasks.result("compute", task.taskId)
      expect(textOf(result)).toBe("done after 400")
      expect(seen).toStrictEqual([1, 2, 3].map((step) => ({ progress: step, total: 3, message: `step ${step}` })))
      // Run as a stream: the progress between the statuses and the result.
      const events = yield* mcp.tasks.runStream("compute", { ms: 400, steps: 2 }).pipe(Stream.runCollect)
      const tags = Chunk.toReadonlyArray(events).map((event) => event._tag)
      expect(tags.filter((tag) => tag === "Progress")).toHaveLength(2)
      expect(tags[0]).toBe("Status")
      expect(tags.at(-1)).toBe("Result")
    }).pipe(Effect.provide(sdk))
  )

  it.live("the TTL asked for is kept; past it the task is gone: typed errors, nothing left waiting", () =>
    Effect.gen(function* () {
      const mcp = yield* McpClient.McpClient
      // A TTL long enough for the listing to see the task on a loaded machine; then wait (bounded) until it is gone.
      const task = yield* mcp.tasks.callTool("compute", { ms: 10_000 }, { ttl: "3 seconds" })
      expect(task.ttl).toBe(3000)
      expect((yield* mcp.tasks.list).map((entry) => entry.taskId)).toContain(task.taskId)
      const gone = yield* mcp.tasks
        .get(task.taskId)
        .pipe(Effect.flip, Effect.retry(Schedule.spaced("100 millis").pipe(Schedule.upTo("30 seconds"))))
      expect(gone).toMatchObject({ _tag: "RpcError", method: "tasks/get" })
      const result = yield* mcp.tasks.result("compute", task.taskId).pipe(Effect.flip)
      expect(result).toMatchObject({ _tag: "RpcError", method: "tasks/result" })
      expect((yield* mcp.stats).pending).toBe(0)
    }).pipe(Effect.provide(sdk))
  )
})
