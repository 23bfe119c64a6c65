/**
 * The reference server restarted (same port) under a live client: it answers the old session id
 * with HTTP 400 ("Bad Request: No valid session ID provided"); the client initializes a new
 * session and the call goes through.
 */

import { describe, expect, it } from "@effect/vitest"
import { McpClient } from "@effect-mcp/client"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as StreamableHttpTransport from "../src/internal/transport/streamableHttpTransport.js"
import { noFibersLeft } from "./support/fibers.js"
import { keepAliveHttpClient } from "./support/httpClient.js"
import { connectionsTo } from "./support/httpServers.js"
import { restartableServers, textOf } from "./support/restarting.js"

const { start, stop, running } = restartableServers()

describe("the reference server restarted under a live client", () => {
  it.live("calls succeed after the restart: the client initializes a new session (the server said 400)", () =>
    Effect.gen(function* () {
      const first = yield* start()
      const context = yield* Layer.build(
        McpClient.layer({ name: "everything", requestTimeout: "60 seconds" }).pipe(
          Layer.provide(StreamableHttpTransport.layer({ url: `${first.origin}/mcp`, name: "everything" })),
          Layer.provide(keepAliveHttpClient)
        )
      )
      const client = Context.get(context, McpClient.McpClient)
      const readies = yield* client.stateChanges.pipe(
        Stream.filter((state) => state._tag === "Ready"),
        Stream.take(2),
        Stream.runDrain,
        Effect.fork
      )
      expect(textOf(yield* client.callTool("echo", { message: "before" }))).toBe("Echo: before")

      yield* stop(first)
      yield* start(first.port)

      expect(textOf(yield* client.callTool("echo", { message: "after" }))).toBe("Echo: after")
      yield* client.ping()
      yield* Fiber.join(readies)
      expect((yield* client.state)._tag).toBe("Ready")
      expect(client.serverInfo.name).toBe("mcp-servers/everything")
      const stats = yield* client.stats
      expect(stats.violations).toStrictEqual({ "unknown-id": 0, malformed: 0, "malformed-response": 0 })
    }).pipe(
      Effect.scoped,
      noFibersLeft,
      Effect.zipRight(
        Effect.sync(() => {
          for (const server of running) expect(connectionsTo(server.port)).toBe(0)
        })
      )
    )
  )
})
