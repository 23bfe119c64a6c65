/**
 * The floor of any client run as effects with a fiber per call: the Promise client's call
 * (`promise.ts`), finished before the fiber sees it, awaited in an interruptible `Effect.async`
 * (a canceler, as any request that can be given up needs) run by `runtime.runPromise`. What it
 * costs beyond the Promise client is Effect's own: the fiber, its wait, its resumption. The
 * `effects` column cannot do better; this column says how far that is from the SDK. Over stdio
 * only: over HTTP the Promise client itself runs each call in a fiber (session recovery is on).
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import type { Client } from "./Client.js"
import { client as promiseClient } from "./promise.js"

/** The Promise client's calls, each in a fiber of its own. */
export const floorClient: Client = {
  name: "a fiber per call around effect-mcp",
  ...(promiseClient.prepare === undefined ? {} : { prepare: promiseClient.prepare }),
  connect: async (target) => {
    const session = await promiseClient.connect(target)
    const runtime = ManagedRuntime.make(Layer.empty)
    const inFiber =
      <A>(call: () => Promise<A>) =>
      () =>
        runtime.runPromise(
          Effect.async<A>((resume) => {
            call().then(
              (value) => resume(Effect.succeed(value)),
              (error: unknown) => resume(Effect.die(error))
            )
            return Effect.void
          })
        )
    return {
      list: inFiber(() => session.list()),
      echo: (message) => inFiber(() => session.echo(message))(),
      blob: (kb) => inFiber(() => session.blob(kb))(),
      sleep: (ms) => inFiber(() => session.sleep(ms))(),
      close: async () => {
        await runtime.dispose()
        await session.close()
      }
    }
  }
}
