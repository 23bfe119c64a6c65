/**
 * The reference server restarted (same port) under a live client: it answers the old session id
 * with HTTP 400 ("Bad Request: No valid session ID provided"); the client initializes a new
 * session and the call goes through.
 */

import { afterEach, describe, expect, it } from "@effect/vitest"
import { McpClient, StreamableHttpTransport } from "@effect-mcp/client"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { noFibersLeft } from "./support/fibers.js"
import { keepAliveHttpClient } from "./support/httpClient.js"
import { connectionsTo, type RunningServer, startEverything } from "./support/httpServers.js"

// The servers a test started, stopped after it whatever happened.
const running = new Set<RunningServer>()
afterEach(async () => {
  await Promise.all([...running].map((server) => server.stop()))
  running.clear()
})

const start = (port?: number) =>
  Effect.promise(async () => {
    const server = await startEverything("streamableHttp", port)
    running.add(server)
    return server
  })

const stop = (server: RunningServer) =>
  Effect.promise(async () => {
    await server.stop()
    running.delete(server)
  })

const textOf = (result: { readonly content: ReadonlyArray<{ readonly type: string }> }) =>
  result.content.map((block) => ("text" in block ? String(block.text) : block.type)).join("\n")

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
