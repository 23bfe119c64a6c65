/**
 * A server built with the official TypeScript SDK's experimental task support (v1 `McpServer`
 * with an `InMemoryTaskStore`): `compute` runs as a task for `ms` milliseconds, then completes
 * or fails, reporting `steps` progress steps meanwhile when asked; the TTL the client asks for is
 * honoured.
 */
import { InMemoryTaskStore } from "@modelcontextprotocol/sdk/experimental/tasks"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { z } from "zod"

/** A fresh SDK server with one task tool. */
export const makeSdkTaskServer = () => {
  const taskStore = new InMemoryTaskStore()
  const server = new McpServer(
    { name: "sdk-task-server", version: "1.0.0" },
    { capabilities: { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } }, taskStore }
  )
  server.experimental.tasks.registerToolTask(
    "compute",
    {
      description: "Works for ms milliseconds as a task",
      inputSchema: { ms: z.number(), fail: z.boolean().optional(), steps: z.number().optional() },
      execution: { taskSupport: "required" }
    },
    {
      createTask: async ({ ms, fail, steps }, extra) => {
        const task = await extra.taskStore.createTask({ ttl: extra.taskRequestedTtl ?? 60_000, pollInterval: 50 })
        // Progress under the creating request's token, after the task is created (the token lives as long as the task).
        const progressToken = extra._meta?.progressToken
        for (let step = 1; progressToken !== undefined && step <= (steps ?? 0); step++)
          setTimeout(
            () =>
              void extra
                .sendNotification({
                  method: "notifications/progress",
                  params: { progressToken, progress: step, total: steps, message: `step ${step}` }
                })
                .catch(() => undefined),
            (ms * step) / ((steps ?? 0) + 1)
          )
        setTimeout(() => {
          void extra.taskStore
            .storeTaskResult(task.taskId, fail === true ? "failed" : "completed", {
              content: [{ type: "text", text: fail === true ? "it broke" : `done after ${ms}` }],
              ...(fail === true ? { isError: true } : {})
            })
            .catch(() => undefined)
        }, ms)
        return { task }
      },
      getTask: async (_args, extra) => extra.taskStore.getTask(extra.taskId),
      // The store keeps what storeTaskResult was given: a CallToolResult (test code, not a trust boundary).
      getTaskResult: async (_args, extra) => (await extra.taskStore.getTaskResult(extra.taskId)) as CallToolResult
    }
  )
  return { server, cleanup: () => taskStore.cleanup() }
}
