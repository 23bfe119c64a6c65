/**
 * The session as a service: `McpClient.layer` is `McpClient.layerFromSession` over `Session.layer`,
 * so a program can decorate the session and every feature's requests take the decoration; the
 * lifecycle is watched from the state the session is in.
 */
import { describe, expect, it } from "@effect/vitest"
import { McpClient, Session } from "@effect-mcp/client"
import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { recordingSession } from "./support/decorations.js"
import { initializeResult, methods, scriptedLayer } from "./support/scriptedServer.js"

const tool = { name: "echo", inputSchema: { type: "object", properties: { text: { type: "string" } } } }

const script = scriptedLayer((request) => {
  switch (request.method) {
    case "initialize":
      return initializeResult({ tools: {}, prompts: {} })
    case "tools/list":
      return { result: { tools: [tool] } }
    case "tools/call":
      return { result: { content: [{ type: "text", text: "ok" }] } }
    case "prompts/list":
      return { result: { prompts: [] } }
    case "ping":
      return { result: {} }
    default:
      return { error: { code: -32601, message: "no" } }
  }
})

describe("Session", () => {
  it.scoped("a decorated session's executor carries every feature's requests", () =>
    Effect.gen(function* () {
      const seen: Array<string> = []
      // Records each request that reaches the executor, then sends it as the session would.
      const recording = recordingSession(seen).pipe(Layer.provide(Session.layer(script.options)))
      const context = yield* Layer.build(
        McpClient.layerFromSession(script.options).pipe(Layer.provide(recording), Layer.provide(script.transport))
      )
      const client = Context.get(context, McpClient.McpClient)
      yield* client.callTool("echo", { text: "hi" })
      yield* client.prompts
      yield* client.ping()
      // The handshake is the session's own (before any decoration); the features' requests all pass it.
      expect(seen).toStrictEqual(["tools/list", "tools/call", "prompts/list", "ping"])
      expect(methods(script.sent).filter((method) => method !== "response")).toStrictEqual([
        "initialize",
        "notifications/initialized",
        "tools/list",
        "tools/call",
        "prompts/list",
        "ping"
      ])
    })
  )

  it.scoped("its state changes start from the state it is in and end with its last", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(
        Session.layer(script.options).pipe(Layer.provide(script.transport)),
        scope
      )
      const session = Context.get(context, Session.Session)
      expect((yield* session.state)._tag).toBe("Ready")
      // The watcher is subscribed once it has seen the state it started from.
      const subscribed = yield* Deferred.make<void>()
      const watched = yield* session.stateChanges.pipe(
        Stream.map((state) => state._tag),
        Stream.tap(() => Deferred.succeed(subscribed, undefined)),
        Stream.runCollect,
        Effect.fork
      )
      yield* Deferred.await(subscribed)
      yield* Scope.close(scope, Exit.void)
      expect(Chunk.toReadonlyArray(yield* Fiber.join(watched))).toStrictEqual(["Ready", "Closing", "Closed"])
      // A watcher after the end sees the last state, and ends.
      const after = yield* Stream.runCollect(Stream.map(session.stateChanges, (state) => state._tag))
      expect(Chunk.toReadonlyArray(after)).toStrictEqual(["Closed"])
    })
  )

  it.scoped("a session bounded by the combinator refuses a request past its bound, nothing sent", () =>
    Effect.gen(function* () {
      const quiet = scriptedLayer((request) =>
        request.method === "initialize"
          ? initializeResult({ tools: {} })
          : request.method === "ping"
            ? "silent"
            : { result: {} }
      )
      const bounded = Layer.effect(
        Session.Session,
        Effect.map(Session.Session, Session.bounded({ maxInFlight: 1, maxQueued: 0 }))
      ).pipe(Layer.provide(Session.layer(quiet.options)))
      const context = yield* Layer.build(
        McpClient.layerFromSession(quiet.options).pipe(Layer.provide(bounded), Layer.provide(quiet.transport))
      )
      const client = Context.get(context, McpClient.McpClient)
      const first = yield* Effect.fork(client.ping())
      while (!methods(quiet.sent).includes("ping")) yield* Effect.yieldNow()
      const refused = yield* Effect.flip(client.ping())
      expect(refused._tag).toBe("Overloaded")
      expect(methods(quiet.sent).filter((method) => method === "ping")).toHaveLength(1)
      yield* Fiber.interrupt(first)
    })
  )
})
