/**
 * Closing a client whose answer to the server's `roots/list` (id `roots-1`) the server never
 * answers, as the reference server does for a session it dropped: the close must not wait for it.
 */
import { expect } from "@effect/vitest"
import { Capabilities, type McpClient } from "@effect-mcp/client"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { type Received, rpc } from "./faultServer.js"

/** Builds `client` (with a Roots handler), waits until the server has our answer, closes; fails after 10 s if closing hangs. */
export const closesWithAnswerUnanswered = <E>(
  client: Layer.Layer<McpClient.McpClient, E, Capabilities.Roots>,
  received: ReadonlyArray<Received>
) =>
  Effect.scoped(
    Effect.gen(function* () {
      yield* Layer.build(
        client.pipe(
          Layer.provide(Layer.succeed(Capabilities.Roots, { list: Effect.succeed([{ uri: "file:///tmp" }]) }))
        )
      )
      // Wait until our answer to roots/list is on its way (and stuck).
      for (let i = 0; i < 200 && !received.some((entry) => rpc(entry).id === "roots-1"); i++)
        yield* Effect.sleep("10 millis")
      expect(received.some((entry) => rpc(entry).id === "roots-1")).toBe(true)
    })
    // disconnect: a hang fails the test instead of holding it forever.
  ).pipe(
    Effect.disconnect,
    Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => new Error("closing the client hung") })
  )
