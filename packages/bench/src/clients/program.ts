/**
 * effect-mcp as an Effect program calls it: the loops are Effect, not Promise code. Sequentially
 * one fiber calls in turn (`yield*` per call); in flight, `Effect.forEach` with the concurrency
 * asked for. The program is run once per workload (`runtime.runPromise` of the whole loop), over
 * the same `McpClient.layer` as `effect.ts`.
 *
 * Its floor (`programFloorClient`) is the same Effect program awaiting the Promise client's calls
 * (`Effect.promise`): what an Effect program pays for its loop whatever client it calls. Measured
 * where the floor of a fiber per call is, over stdio (over HTTP the Promise client runs each call
 * in a fiber itself, session recovery being on).
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import type { Client } from "./Client.js"
import { connectRuntime, prepare } from "./effect.js"
import { client as promiseClient } from "./promise.js"

/** `n` runs of `call`, `concurrency` at a time, each one's latency given to `timed`. */
export const loop = <E>(
  n: number,
  concurrency: number,
  call: Effect.Effect<unknown, E>,
  timed?: (ms: number) => void
): Effect.Effect<void, E> => {
  const one =
    timed === undefined
      ? call
      : Effect.suspend(() => {
          const started = performance.now()
          return Effect.map(call, () => timed(performance.now() - started))
        })
  return concurrency <= 1
    ? Effect.gen(function* () {
        for (let i = 0; i < n; i++) yield* one
      })
    : Effect.forEach(Array.from({ length: n }), () => one, { concurrency, discard: true })
}

/** The effect-mcp client called from an Effect program: each workload's loop is one effect. */
export const programClient: Client = {
  name: "effect-mcp (Effect program)",
  prepare,
  connect: async (target) => {
    const { runtime, mcp, session } = await connectRuntime(target)
    return {
      ...session,
      echoes: (n, concurrency, timed) =>
        runtime.runPromise(loop(n, concurrency, Effect.asVoid(mcp.callTool("echo", { message: "hello" })), timed))
    }
  }
}

/** The floor of an Effect program's loop: the same loop awaiting the Promise client's calls. */
export const programFloorClient: Client = {
  name: "an Effect program around effect-mcp's Promise client",
  ...(promiseClient.prepare === undefined ? {} : { prepare: promiseClient.prepare }),
  connect: async (target) => {
    const session = await promiseClient.connect(target)
    const runtime = ManagedRuntime.make(Layer.empty)
    return {
      ...session,
      echoes: (n, concurrency, timed) =>
        runtime.runPromise(
          loop(
            n,
            concurrency,
            Effect.promise(() => session.echo("hello")),
            timed
          )
        ),
      close: async () => {
        await runtime.dispose()
        await session.close()
      }
    }
  }
}
