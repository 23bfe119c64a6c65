/**
 * Tasks the server asks of the client: a task-augmented `elicitation/create` answered at once
 * with a task, then `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel` served by the
 * client, TTL expiry on the TestClock, and a property over random outcomes and cancellations.
 */
import { describe, expect, it } from "@effect/vitest"
import { Capabilities } from "@effect-mcp/client"
import type { JsonRpc } from "@effect-mcp/protocol"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as FiberId from "effect/FiberId"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"
import { canMove } from "../src/internal/features/clientTasks.js"
import { connectScripted, initializeResult } from "./support/scriptedServer.js"

const runs = Number(process.env.PROP_RUNS ?? 25)

type Outcome = "accept" | "fail" | "cancel"

/** A client whose elicitation handler waits for the test to release it, per message. */
const setup = Effect.gen(function* () {
  const gates = new Map<string, Deferred.Deferred<Outcome>>()
  const interrupted: Array<string> = []
  const events: Array<string> = []
  const gate = (message: string) => {
    const known = gates.get(message)
    if (known !== undefined) return known
    const made = Deferred.unsafeMake<Outcome>(FiberId.none)
    gates.set(message, made)
    return made
  }
  const elicitation = Layer.succeed(Capabilities.Elicitation, {
    form: (params) =>
      Effect.sync(() => events.push(`start ${params.message}`)).pipe(
        Effect.zipRight(Deferred.await(gate(params.message))),
        Effect.tap(() => Effect.sync(() => events.push(`released ${params.message}`))),
        Effect.onInterrupt(() => Effect.sync(() => interrupted.push(params.message))),
        Effect.flatMap((outcome) =>
          outcome === "fail"
            ? Effect.die("the handler broke")
            : Effect.succeed({ action: "accept" as const, content: { answer: params.message } })
        )
      )
  })
  const connected = yield* connectScripted(
    () => initializeResult({}),
    { clientTasks: { defaultTtl: "1 minute" } },
    elicitation
  )
  let nextId = 0
  /** Sends a request from the server and waits (in fiber turns, no clock) for the client's response. */
  const ask = (method: string, params: object) =>
    Effect.gen(function* () {
      const id = `server-${nextId++}`
      yield* connected.server.send({ jsonrpc: "2.0", id, method, params } as JsonRpc.JSONRPCMessage)
      // Bounded: fiber turns, and now and then a turn of the event loop (no clock is involved).
      for (let turn = 0; turn < 200_000; turn++) {
        const response = connected.sent.find(
          (message) => "id" in message && message.id === id && !("method" in message)
        )
        if (response !== undefined) return response as { result?: Record<string, unknown>; error?: JsonRpc.ErrorObject }
        yield* turn % 50 === 49
          ? Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
          : Effect.yieldNow()
      }
      return yield* Effect.die(
        `no response to ${method}: ${events.join(", ")} | ${JSON.stringify(connected.sent.slice(-3))}`
      )
    })
  const elicit = (message: string, ttl?: number) =>
    ask("elicitation/create", {
      message,
      requestedSchema: { type: "object", properties: { answer: { type: "string" } } },
      task: ttl === undefined ? {} : { ttl }
    })
  const statuses = (taskId: string) =>
    connected.sent.flatMap((message) =>
      "method" in message && message.method === "notifications/tasks/status" && message.params?.taskId === taskId
        ? [String(message.params.status)]
        : []
    )
  return { ...connected, ask, elicit, gate, interrupted, statuses }
})

const taskIdOf = (response: { result?: Record<string, unknown> }) =>
  String((response.result?.task as { taskId?: string } | undefined)?.taskId)

describe("tasks the server asks of the client", () => {
  it.live("declares the capability, answers with a task at once, and serves get, list and result", () =>
    Effect.gen(function* () {
      const t = yield* setup
      const init = t.sent.find((message) => "method" in message && message.method === "initialize")
      expect((init as JsonRpc.JSONRPCRequest).params?.capabilities).toMatchObject({
        elicitation: { form: {} },
        tasks: { list: {}, cancel: {}, requests: { elicitation: { create: {} } } }
      })
      const created = yield* t.elicit("first", 30_000)
      expect(created.result?.task).toMatchObject({ status: "working", ttl: 30_000 })
      const taskId = taskIdOf(created)
      expect((yield* t.ask("tasks/get", { taskId })).result).toMatchObject({ taskId, status: "working" })
      expect((yield* t.ask("tasks/list", {})).result?.tasks).toHaveLength(1)
      yield* Deferred.succeed(t.gate("first"), "accept")
      const result = yield* t.ask("tasks/result", { taskId })
      expect(result.result).toMatchObject({
        action: "accept",
        content: { answer: "first" },
        _meta: { "io.modelcontextprotocol/related-task": { taskId } }
      })
      expect((yield* t.ask("tasks/get", { taskId })).result?.status).toBe("completed")
      expect(t.statuses(taskId)).toStrictEqual(["completed"])
      const unknown = yield* t.ask("tasks/get", { taskId: "nope" })
      expect(unknown.error?.code).toBe(-32602)
    }).pipe(Effect.scoped)
  )

  it.scoped("cancel interrupts the handler; a final task cannot be cancelled; a failed one reports its error", () =>
    Effect.gen(function* () {
      const t = yield* setup
      const taskId = taskIdOf(yield* t.elicit("to cancel"))
      const cancelled = yield* t.ask("tasks/cancel", { taskId })
      expect(cancelled.result?.status).toBe("cancelled")
      expect(t.interrupted).toStrictEqual(["to cancel"])
      expect((yield* t.ask("tasks/result", { taskId })).error?.message).toMatch(/cancelled/)
      expect((yield* t.ask("tasks/cancel", { taskId })).error?.message).toMatch(/already cancelled/)
      const failing = taskIdOf(yield* t.elicit("to fail"))
      yield* Deferred.succeed(t.gate("to fail"), "fail")
      expect((yield* t.ask("tasks/result", { taskId: failing })).error?.code).toBe(-32603)
      expect(t.statuses(failing)).toStrictEqual(["failed"])
    })
  )

  it.scoped("a finished task is forgotten when its TTL has passed (TestClock)", () =>
    Effect.gen(function* () {
      const t = yield* setup
      const taskId = taskIdOf(yield* t.elicit("short", 5_000))
      yield* Deferred.succeed(t.gate("short"), "accept")
      yield* t.ask("tasks/result", { taskId })
      yield* TestClock.adjust("4 seconds")
      expect((yield* t.ask("tasks/get", { taskId })).result?.status).toBe("completed")
      yield* TestClock.adjust("2 seconds")
      expect((yield* t.ask("tasks/get", { taskId })).error?.code).toBe(-32602)
    })
  )

  it.effect.prop(
    "under random outcomes and cancellations, statuses move legally and every result waiter gets one answer",
    [
      FastCheck.array(
        FastCheck.record({
          outcome: FastCheck.constantFrom<Outcome>("accept", "fail", "cancel"),
          waiters: FastCheck.integer({ min: 1, max: 3 })
        }),
        { minLength: 1, maxLength: 6 }
      )
    ],
    ([plan]) =>
      Effect.gen(function* () {
        const t = yield* setup
        const ids: Array<string> = []
        for (let index = 0; index < plan.length; index++) ids.push(taskIdOf(yield* t.elicit(`m${index}`)))
        // Waiters ask for results before anything ends.
        const waiters = yield* Effect.forEach(plan, (step, index) =>
          Effect.forEach(Array.from({ length: step.waiters }), () =>
            Effect.fork(t.ask("tasks/result", { taskId: ids[index] }))
          )
        )
        for (const [index, step] of plan.entries()) {
          if (step.outcome === "cancel") yield* t.ask("tasks/cancel", { taskId: ids[index] })
          else yield* Deferred.succeed(t.gate(`m${index}`), step.outcome)
        }
        for (const [index, step] of plan.entries()) {
          for (const waiter of waiters[index] ?? []) {
            const response = yield* waiter.await.pipe(Effect.flatten)
            expect("result" in response !== "error" in response).toBe(true)
            expect(response.error === undefined).toBe(step.outcome === "accept")
          }
          const seen = ["working", ...t.statuses(ids[index] ?? "")]
          for (let i = 1; i < seen.length; i++) expect(canMove(seen[i - 1] as never, seen[i] as never)).toBe(true)
          expect(seen).toHaveLength(2)
        }
      }).pipe(Effect.scoped),
    { fastCheck: { numRuns: runs } }
  )
})
