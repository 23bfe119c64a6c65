/**
 * The peer under random interleavings, on the TestClock: responses in any order, late,
 * duplicated or as errors; requests that get no answer (timeouts); client-side
 * interruptions; junk responses with unknown ids; and the transport dying at a random
 * moment. Every caller must get exactly the outcome the first event for it implies, and
 * nothing may be left pending. Each request is made either as an effect (`request`, interrupted
 * by interrupting its fiber) or from plain code (the plain form of `request`, given up by calling what it returned).
 *
 * Event times never tie: responses land at s+0.3 s, interruptions at s+0.6 s, the death of
 * the transport at s+0.9 s, and the request timeout is exactly 10 s.
 */

import { describe, expect, it } from "@effect/vitest"
import { JsonRpc } from "@effect-mcp/protocol"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FastCheck from "effect/FastCheck"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import { scriptedPeer, startRequest } from "./support/scripted.js"

type Plan =
  | { readonly _tag: "respond"; readonly at: number; readonly error: boolean; readonly duplicate: boolean }
  | { readonly _tag: "silent" }
  | { readonly _tag: "interrupt"; readonly at: number; readonly lateResponseAt: number }

const plan: FastCheck.Arbitrary<Plan> = FastCheck.oneof(
  FastCheck.record({
    _tag: FastCheck.constant("respond" as const),
    at: FastCheck.integer({ min: 0, max: 14 }).map((s) => s * 1000 + 300),
    error: FastCheck.boolean(),
    duplicate: FastCheck.boolean()
  }),
  FastCheck.record({ _tag: FastCheck.constant("silent" as const) }),
  FastCheck.record({
    _tag: FastCheck.constant("interrupt" as const),
    at: FastCheck.integer({ min: 0, max: 12 }).map((s) => s * 1000 + 600),
    lateResponseAt: FastCheck.integer({ min: 0, max: 14 }).map((s) => s * 1000 + 300)
  })
)

const scenario = FastCheck.record({
  plans: FastCheck.array(plan, { minLength: 1, maxLength: 8 }),
  deathAt: FastCheck.option(
    FastCheck.integer({ min: 0, max: 16 }).map((s) => s * 1000 + 900),
    { nil: undefined }
  ),
  junk: FastCheck.nat({ max: 3 }),
  begun: FastCheck.array(FastCheck.boolean(), { minLength: 8, maxLength: 8 })
})

const TIMEOUT = 10_000

type Expected = "success" | "rpc-error" | "timeout" | "interrupted" | "transport"

const expected = (p: Plan, deathAt: number | undefined): Expected => {
  const events: Array<readonly [number, Expected]> = [[TIMEOUT, "timeout"]]
  if (deathAt !== undefined) events.push([deathAt, "transport"])
  if (p._tag === "respond") events.push([p.at, p.error ? "rpc-error" : "success"])
  if (p._tag === "interrupt") {
    events.push([p.at, "interrupted"])
    events.push([p.lateResponseAt, "success"])
  }
  events.sort((a, b) => a[0] - b[0])
  return events[0]?.[1] ?? "timeout"
}

const observed = (exit: Exit.Exit<unknown, { readonly _tag: string }>): Expected => {
  if (Exit.isSuccess(exit)) return "success"
  if (Cause.isInterruptedOnly(exit.cause)) return "interrupted"
  const failure = Cause.failureOption(exit.cause)
  if (Option.isNone(failure)) return "interrupted"
  switch (failure.value._tag) {
    case "RpcError":
      return "rpc-error"
    case "RequestTimeout":
      return "timeout"
    default:
      return "transport"
  }
}

describe("Peer properties", () => {
  it.effect.prop(
    "every caller gets exactly the outcome of the first event, and nothing is left pending",
    [scenario],
    ([{ plans, deathAt, junk, begun }]) =>
      Effect.scoped(
        Effect.gen(function* () {
          const { peer, client, server, next } = yield* scriptedPeer({ requestTimeout: TIMEOUT })
          const lateOutcomes: Array<number> = []
          /** A request as an effect in a fiber, or begun from plain code: how to await it and to give it up. */
          const call = (index: number) =>
            Effect.gen(function* () {
              if (begun[index] !== true) {
                const fiber = yield* Effect.fork(peer.request("m", { index }))
                return { await: Fiber.await(fiber), interrupt: Effect.asVoid(Fiber.interrupt(fiber)) }
              }
              const done = yield* Deferred.make<Exit.Exit<unknown, { readonly _tag: string }>>()
              let givenUp = false
              let settled = false
              const abandon = startRequest(peer)("m", { index }, {}, (exit) => {
                // Once given up, nothing more may reach the caller (not the late answer, not a timeout).
                if (givenUp) lateOutcomes.push(index)
                settled = true
                Deferred.unsafeDone(done, Exit.succeed(exit))
              })
              if (abandon === undefined)
                return yield* Effect.die("the in-memory peer can start requests from plain code")
              return {
                await: Deferred.await(done),
                interrupt: Effect.sync(() => {
                  if (settled) return
                  givenUp = true
                  abandon()
                  Deferred.unsafeDone(done, Exit.succeed(Exit.interrupt(FiberId.none)))
                })
              }
            })
          const calls = yield* Effect.forEach(plans, (_, index) => call(index))
          for (let i = 0; i < plans.length; i++) {
            const request = yield* next
            if (!JsonRpc.isRequest(request)) return yield* Effect.die("expected a request")
            const index = Number(request.params?.index)
            const p = plans[index]
            if (p === undefined) return yield* Effect.die("unknown index")
            const reply = (error: boolean) =>
              Effect.ignore(
                server.send(
                  error
                    ? { jsonrpc: "2.0", id: request.id, error: { code: -1, message: "no" } }
                    : { jsonrpc: "2.0", id: request.id, result: { index } }
                )
              )
            if (p._tag === "respond") {
              yield* Effect.forkScoped(
                Effect.delay(Effect.zipRight(reply(p.error), p.duplicate ? reply(false) : Effect.void), p.at)
              )
            }
            if (p._tag === "interrupt") {
              const made = calls[index]
              if (made !== undefined) yield* Effect.forkScoped(Effect.delay(made.interrupt, p.at))
              yield* Effect.forkScoped(Effect.delay(reply(false), p.lateResponseAt))
            }
          }
          for (let j = 0; j < junk; j++) yield* server.inject({ jsonrpc: "2.0", id: 10_000 + j, result: {} })
          if (deathAt !== undefined) yield* Effect.forkScoped(Effect.delay(client.fail("died"), deathAt))
          for (let step = 0; step < 18; step++) {
            yield* TestClock.adjust("1 second")
            yield* Effect.yieldNow()
          }
          const exits = yield* Effect.forEach(calls, (made) => made.await)
          const outcomes = exits.map(observed)
          expect(outcomes).toStrictEqual(plans.map((p) => expected(p, deathAt)))
          exits.forEach((exit, index) => {
            if (Exit.isSuccess(exit)) expect(exit.value).toStrictEqual({ index })
          })
          expect(lateOutcomes).toStrictEqual([])
          const stats = yield* peer.stats
          expect(stats.pending).toBe(0)
          expect(stats.inbound).toBe(0)
        })
      ),
    { timeout: 600_000, fastCheck: { numRuns: Number(process.env.PROP_RUNS ?? 25) * 2 } }
  )
})
