/**
 * Tool tasks through the gateway, against the reference server's task tool
 * (`simulate-research-query`, task support `required`, about four seconds per run, with an
 * elicitation when the query is ambiguous): our client (2025-11-25) runs it as a task under a
 * gateway-wide id, hearing the server's status notifications; another connection cannot see, touch
 * or hear that task; a client that cannot create
 * tasks (2025-06-18) calls the tool plainly and the gateway runs it as a task for it. Against the
 * official SDK's task support: a task's progress, which goes on after the task is created, reaches
 * the client that started it.
 */
import { expect, layer } from "@effect/vitest"
import type { McpClient } from "@effect-mcp/client"
import { McpHost } from "@effect-mcp/host"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { connect, elicitation, everything, gatewayHost, miniServer, taskServer, textOf } from "./support/gateway.js"

const TOOL = "everything__simulate-research-query"

layer(gatewayHost({ servers: [{ name: "everything", target: everything }] }), {
  excludeTestServices: true,
  timeout: "60 seconds"
})("McpGateway, passing the reference server's tasks through", (it) => {
  it.scoped("a task runs to its result under a gateway-wide id; the server's elicitation reaches its client", () =>
    Effect.gen(function* () {
      const asked: Array<string> = []
      const relatedTo: Array<string | undefined> = []
      const answer = elicitation(asked, { interpretation: "programming" })
      const { client } = yield* connect({
        elicitation: {
          form: (params, context) => {
            relatedTo.push(context.relatedTaskId)
            return answer.form?.(params, context) ?? Effect.die("no form handler")
          }
        }
      })
      expect(client.serverCapabilities.tasks).toStrictEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } })
      const tool = (yield* client.tools).find((entry) => entry.name === TOOL)
      expect(tool?.execution?.taskSupport).toBe("required")
      const final = (task: { readonly status: string }) => ["completed", "failed", "cancelled"].includes(task.status)
      const pushed = yield* client.tasks.statuses.pipe(
        Stream.takeUntil(final),
        Stream.runCollect,
        Effect.map(Chunk.toReadonlyArray),
        Effect.fork
      )
      const ids = new Set<string>()
      const result = yield* client.tasks.run(
        TOOL,
        { topic: "python", ambiguous: true },
        { pollInterval: "200 millis", onStatus: (task) => Effect.sync(() => ids.add(task.taskId)) }
      )
      expect(textOf(result)).toMatch(/Research Report: python/)
      expect(asked).toHaveLength(1)
      expect(asked[0]).toMatch(/could have multiple interpretations/)
      expect(ids.size).toBe(1)
      const [id] = [...ids]
      expect(id).toMatch(/^everything:/)
      // The server's request names the task as its client knows it.
      expect(relatedTo).toStrictEqual([id])
      // The server's own status notifications reach its client, under the gateway-wide id.
      const statuses = yield* Fiber.join(pushed)
      expect(statuses.map((task) => task.status)).toContain("completed")
      expect(statuses.every((task) => task.taskId === id)).toBe(true)
      const listed = yield* client.tasks.list
      expect(listed.map((task) => task.taskId)).toStrictEqual([id])
      // One page: a cursor is none the gateway gave.
      const cursor = yield* client.request("tasks/list", { cursor: "elsewhere" }).pipe(Effect.flip)
      expect(cursor).toMatchObject({ _tag: "RpcError", code: -32602 })
      expect((yield* client.tasks.get(id ?? "")).status).toBe("completed")
    })
  )

  it.scoped("another connection neither sees nor cancels a connection's task; its owner cancels it", () =>
    Effect.gen(function* () {
      const owner = yield* connect()
      const other = yield* connect()
      const heard: Array<string> = []
      yield* other.client.tasks.statuses.pipe(
        Stream.runForEach((task) => Effect.sync(() => heard.push(task.taskId))),
        Effect.forkScoped
      )
      const ownerHeard = yield* owner.client.tasks.statuses.pipe(Stream.runHead, Effect.fork)
      const task = yield* owner.client.tasks.callTool(TOOL, { topic: "kept apart" })
      expect(task.taskId).toMatch(/^everything:/)
      // The owner hears the server's next status push (its research moves on); the other connection
      // hears nothing (a ping after it comes back behind anything the gateway had sent it).
      const pushed = yield* Fiber.join(ownerHeard)
      expect(Option.map(pushed, (status) => status.taskId)).toStrictEqual(Option.some(task.taskId))
      yield* other.client.ping()
      expect(heard).toStrictEqual([])
      expect(yield* other.client.tasks.list).toStrictEqual([])
      const foreign = yield* other.client.tasks.get(task.taskId).pipe(Effect.flip)
      expect(foreign).toMatchObject({ _tag: "RpcError", code: -32602 })
      const refused = yield* other.client.tasks.cancel(task.taskId).pipe(Effect.flip)
      expect(refused).toMatchObject({ _tag: "RpcError", code: -32602 })
      expect((yield* owner.client.tasks.cancel(task.taskId)).status).toBe("cancelled")
      expect((yield* owner.client.tasks.get(task.taskId)).status).toBe("cancelled")
    })
  )

  it.scoped("a connection's tasks still running when it ends are cancelled on their servers", () =>
    Effect.gen(function* () {
      const host = yield* McpHost.McpHost
      const gone = yield* Scope.make()
      const { client, served } = yield* connect({ clientScope: gone })
      const task = yield* client.tasks.callTool(TOOL, { topic: "left behind" })
      yield* Scope.close(gone, Exit.void)
      yield* Fiber.await(served)
      const serverTaskId = task.taskId.slice("everything:".length)
      const server = yield* host.client("everything")
      expect((yield* server.tasks.get(serverTaskId)).status).toBe("cancelled")
    })
  )

  it.scoped("under tool search, call_tool runs a tool that requires a task as one; call_tool itself is no task", () =>
    Effect.gen(function* () {
      const { client } = yield* connect({ gateway: { toolSearch: true } })
      const result = yield* client.callTool("call_tool", { name: TOOL, arguments: { topic: "searched" } })
      expect(textOf(result)).toMatch(/Research Report: searched/)
      const refused = yield* client
        .request("tools/call", { name: "call_tool", arguments: { name: TOOL }, task: {} })
        .pipe(Effect.flip)
      expect(refused).toMatchObject({ _tag: "RpcError", code: -32601 })
    })
  )

  it.scoped("a client that cannot create tasks calls the tool plainly: the gateway runs it as a task", () =>
    Effect.gen(function* () {
      const { client } = yield* connect({ protocolVersion: "2025-06-18" })
      expect(client.serverCapabilities.tasks).toBeUndefined()
      const tool = (yield* client.tools).find((entry) => entry.name === TOOL)
      expect(tool?.execution).toBeUndefined()
      const result = yield* client.callTool(TOOL, { topic: "older clients" })
      expect(textOf(result)).toMatch(/Research Report: older clients/)
    })
  )
})

layer(
  gatewayHost({
    servers: [
      { name: "sdk", target: taskServer },
      { name: "mini", target: miniServer("task-support") }
    ]
  }),
  {
    excludeTestServices: true,
    timeout: "60 seconds"
  }
)("McpGateway, passing a task's progress through; task support only where a server runs tasks", (it) => {
  const steps = [1, 2, 3].map((step) => ({ progress: step, total: 3, message: `step ${step}` }))

  it.scoped("a task's progress after its creation reaches the connection that started it", () =>
    Effect.gen(function* () {
      const { client } = yield* connect()
      const other = yield* connect()
      const heard: Array<string> = []
      yield* other.client.notifications.pipe(
        Stream.runForEach((notification) => Effect.sync(() => heard.push(notification.method))),
        Effect.forkScoped
      )
      const seen: Array<McpClient.Progress> = []
      const task = yield* client.tasks.callTool(
        "sdk__compute",
        { ms: 400, steps: 3 },
        { onProgress: (progress) => Effect.sync(() => seen.push(progress)) }
      )
      expect(task.status).toBe("working")
      const result = yield* client.tasks.result("sdk__compute", task.taskId)
      expect(textOf(result)).toBe("done after 400")
      // Relayed before the result (one connection, in order), under the client's own token.
      expect(seen).toStrictEqual(steps)
      expect(heard).not.toContain("notifications/progress")
    })
  )

  it.scoped("a tool's task support is shown only when its server runs tool tasks", () =>
    Effect.gen(function* () {
      const { client } = yield* connect()
      const tools = yield* client.tools
      expect(tools.find((tool) => tool.name === "sdk__compute")?.execution).toStrictEqual({ taskSupport: "required" })
      // The mini server marks its tool, but declares no tasks: a task of it could not be run.
      const echo = tools.find((tool) => tool.name === "mini__echo")
      expect(echo).toBeDefined()
      expect(echo?.execution).toBeUndefined()
    })
  )

  it.scoped("a client that cannot create tasks hears the progress of the task run for it", () =>
    Effect.gen(function* () {
      const { client } = yield* connect({ protocolVersion: "2025-06-18" })
      const seen: Array<McpClient.Progress> = []
      const result = yield* client.callTool(
        "sdk__compute",
        { ms: 400, steps: 3 },
        { onProgress: (progress) => Effect.sync(() => seen.push(progress)) }
      )
      expect(textOf(result)).toBe("done after 400")
      expect(seen).toStrictEqual(steps)
    })
  )
})
