/**
 * The one mapping from a configured server to its transport: what reaches the platform's
 * `Transports` for a stdio target (the options a caller adds included).
 */
import { describe, expect, it } from "@effect/vitest"
import { McpError, type StdioTransport, Transports } from "@effect-mcp/client"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ServerTransport } from "../src/index.js"

/** `Transports` that record the stdio options they are asked for (and connect to nothing). */
const recording = (asked: Array<StdioTransport.StdioOptions>) =>
  Layer.succeed(Transports.Transports, {
    stdio: (options) => {
      asked.push(options)
      return Layer.fail(new McpError.TransportError({ server: options.name ?? "", reason: "not started" }))
    },
    http: (options) => Layer.fail(new McpError.TransportError({ server: options.name ?? "", reason: "not connected" }))
  })

describe("ServerTransport", () => {
  it.effect("a stdio target becomes the platform's stdio transport, with the caller's shutdown waits", () =>
    Effect.gen(function* () {
      const asked: Array<StdioTransport.StdioOptions> = []
      const target = { _tag: "Stdio", command: "server", args: ["--flag"], env: { A: "1" } } as const
      const build = (options: ServerTransport.TransportOptions) =>
        Effect.scoped(Layer.build(ServerTransport.layer("named", target, options))).pipe(
          Effect.provide(recording(asked)),
          Effect.flip
        )
      yield* build({ shutdown: { afterStdin: "500 millis" } })
      yield* build({})
      expect(asked).toStrictEqual([
        {
          command: "server",
          args: ["--flag"],
          env: { A: "1" },
          name: "named",
          inheritEnv: "safe",
          shutdown: { afterStdin: "500 millis" }
        },
        { command: "server", args: ["--flag"], env: { A: "1" }, name: "named", inheritEnv: "safe" }
      ])
    })
  )
})
