/**
 * Keepalive on a `Schedule`: a ping after each of its delays, none after it ends. Time is the
 * `TestClock`'s, but for a ping over loopback HTTP whose connection is reset (sent once more).
 */
import { describe, expect, it } from "@effect/vitest"
import { McpClient } from "@effect-mcp/client"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as TestClock from "effect/TestClock"
import * as StreamableHttpTransport from "../src/internal/transport/streamableHttpTransport.js"
import { faultServer, initialized, json, rpc } from "./support/faultServer.js"
import { noFibersLeft } from "./support/fibers.js"
import { keepAliveHttpClient } from "./support/httpClient.js"
import { connectScripted, initializeResult } from "./support/scriptedServer.js"

describe("keepalive on a Schedule", () => {
  it.scoped("pings after each delay of the schedule and stops when it ends; the session stays Ready", () =>
    Effect.gen(function* () {
      const { client, sent } = yield* connectScripted(
        (request) => (request.method === "initialize" ? initializeResult() : { result: {} }),
        { keepAlive: { interval: Schedule.spaced("10 seconds").pipe(Schedule.intersect(Schedule.recurs(2))) } }
      )
      const pings = () => sent.filter((message) => "method" in message && message.method === "ping").length
      yield* TestClock.adjust("9 seconds")
      expect(pings()).toBe(0)
      yield* TestClock.adjust("1 second")
      expect(pings()).toBe(1)
      yield* TestClock.adjust("10 seconds")
      expect(pings()).toBe(2)
      yield* TestClock.adjust("10 minutes")
      expect(pings()).toBe(2)
      expect((yield* client.state)._tag).toBe("Ready")
    })
  )

  it.scoped("a ping left unanswered for the request timeout (the default for a schedule) fails the session", () =>
    Effect.gen(function* () {
      const { client } = yield* connectScripted(
        (request) => (request.method === "initialize" ? initializeResult() : "silent"),
        { keepAlive: { interval: Schedule.spaced("10 seconds") }, requestTimeout: "30 seconds" }
      )
      yield* TestClock.adjust("10 seconds")
      yield* TestClock.adjust("29 seconds")
      expect((yield* client.state)._tag).toBe("Ready")
      yield* TestClock.adjust("1 second")
      const state = yield* client.state
      expect(state._tag).toBe("Failed")
      if (state._tag === "Failed") expect(state.cause.message).toContain("30s")
    })
  )

  it.scoped("a queue full of callers does not hold the ping up, nor fail the session (pings skip the limiter)", () =>
    Effect.gen(function* () {
      const { client, sent } = yield* connectScripted(
        (request) =>
          request.method === "initialize"
            ? initializeResult({ tools: {} })
            : request.method === "ping"
              ? { result: {} }
              : "silent",
        {
          keepAlive: { interval: Schedule.spaced("10 seconds") },
          maxInFlight: 1,
          maxQueued: 0,
          requestTimeout: "1 hour"
        }
      )
      // The one slot is taken by a call the server never answers; another call is refused at once.
      yield* Effect.forkScoped(client.request("tools/list", undefined))
      yield* Effect.yieldNow()
      expect((yield* Effect.flip(client.request("tools/list", undefined)))._tag).toBe("Overloaded")
      yield* TestClock.adjust("10 seconds")
      yield* TestClock.adjust("10 seconds")
      expect(sent.filter((message) => "method" in message && message.method === "ping")).toHaveLength(2)
      expect((yield* client.state)._tag).toBe("Ready")
    })
  )

  it.live("a ping whose connection is reset (the server closed it as the ping went out) is sent once more", () =>
    Effect.gen(function* () {
      let pings = 0
      const { url } = yield* faultServer((request, response) => {
        const message = rpc(request)
        if (request.method === "DELETE") return response.writeHead(200).end()
        if (request.method === "GET") return response.writeHead(405).end()
        if (message.method === "initialize") return json(response, initialized(message.id), { "mcp-session-id": "s1" })
        if (message.id === undefined) return response.writeHead(202).end()
        if (message.method === "ping" && ++pings === 1) return response.socket?.destroy()
        return json(response, { jsonrpc: "2.0", id: message.id, result: {} })
      })
      const context = yield* Layer.build(
        McpClient.layer({
          name: "kept",
          protocolVersion: "2025-11-25",
          // One ping, at once.
          keepAlive: { interval: Schedule.spaced("1 millis").pipe(Schedule.intersect(Schedule.recurs(1))) }
        }).pipe(Layer.provide(StreamableHttpTransport.layer({ url, name: "kept" })), Layer.provide(keepAliveHttpClient))
      )
      const client = Context.get(context, McpClient.McpClient)
      // Until the ping was answered, or the session failed (bounded: 20 s).
      const state = yield* client.state.pipe(
        Effect.repeat({
          until: (state) => pings >= 2 || state._tag === "Failed",
          schedule: Schedule.spaced("10 millis").pipe(Schedule.upTo("20 seconds"))
        }),
        Effect.zipRight(client.state)
      )
      expect(pings).toBe(2)
      expect(state._tag).toBe("Ready")
    }).pipe(Effect.scoped, noFibersLeft)
  )
})
