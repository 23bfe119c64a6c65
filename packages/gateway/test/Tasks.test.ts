/**
 * Tool tasks through the gateway, against the reference server's task tool
 * (`simulate-research-query`, task support `required`, about four seconds per run, with an
 * elicitation when the query is ambiguous): our client (2025-11-25) runs it as a task under a
 * gateway-wide id; another connection cannot see or touch that task; a client that cannot create
 * tasks (2025-06-18) calls the tool plainly and the gateway runs it as a task for it.
 */
import { expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { connect, elicitation, everything, gatewayHost, textOf } from "./support/gateway.js"

const TOOL = "everything__simulate-research-query"

layer(gatewayHost({ servers: [{ name: "everything", target: everything }] }), {
  excludeTestServices: true,
  timeout: "60 seconds"
})("McpGateway, passing the reference server's tasks through", (it) => {
  it.scoped("a task runs to its result under a gateway-wide id; the server's elicitation reaches its client", () =>
    Effect.gen(function* () {
      const asked: Array<string> = []
      const { client } = yield* connect({ elicitation: elicitation(asked, { interpretation: "programming" }) })
      expect(client.serverCapabilities.tasks).toStrictEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } })
      const tool = (yield* client.tools).find((entry) => entry.name === TOOL)
      expect(tool?.execution?.taskSupport).toBe("required")
      const ids = new Set<string>()
      const result = yield* client.runToolAsTask(
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
      const listed = yield* client.tasks
      expect(listed.map((task) => task.taskId)).toStrictEqual([id])
      expect((yield* client.getTask(id ?? "")).status).toBe("completed")
    })
  )

  it.scoped("another connection neither sees nor cancels a connection's task; its owner cancels it", () =>
    Effect.gen(function* () {
      const owner = yield* connect()
      const other = yield* connect()
      const task = yield* owner.client.callToolAsTask(TOOL, { topic: "kept apart" })
      expect(task.taskId).toMatch(/^everything:/)
      expect(yield* other.client.tasks).toStrictEqual([])
      const foreign = yield* other.client.getTask(task.taskId).pipe(Effect.flip)
      expect(foreign).toMatchObject({ _tag: "RpcError", code: -32602 })
      const refused = yield* other.client.cancelTask(task.taskId).pipe(Effect.flip)
      expect(refused).toMatchObject({ _tag: "RpcError", code: -32602 })
      expect((yield* owner.client.cancelTask(task.taskId)).status).toBe("cancelled")
      expect((yield* owner.client.getTask(task.taskId)).status).toBe("cancelled")
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
