/**
 * `subscriptions/listen` (2026-07-28) against a server that declares list changes but answers the
 * method with -32601: asked again after a backoff, then never again for the session, with one
 * warning; lists still refresh when used. Time is the `TestClock`'s.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as TestClock from "effect/TestClock"
import { connectScripted } from "./support/scriptedServer.js"

const discover = {
  result: {
    resultType: "complete",
    supportedVersions: ["2026-07-28"],
    capabilities: { tools: { listChanged: true }, resources: { subscribe: true } },
    _meta: { "io.modelcontextprotocol/serverInfo": { name: "modern", version: "1" } },
    ttlMs: 0,
    cacheScope: "private"
  }
}

const settle = Effect.forEach(Array.from({ length: 10 }), () => Effect.yieldNow(), { discard: true })

describe("subscriptions/listen answered with -32601", () => {
  it.effect("is asked again after 1, 2, 4 and 8 s, then never again; one warning says so; lists refresh on use", () => {
    const warnings: Array<string> = []
    const logger = Logger.make(({ logLevel, message }) => {
      if (logLevel._tag === "Warning") warnings.push(Array.isArray(message) ? message.join(" ") : String(message))
    })
    return Effect.gen(function* () {
      const { client, sent } = yield* connectScripted(
        (request) => {
          if (request.method === "server/discover") return discover
          if (request.method === "subscriptions/listen")
            return { error: { code: -32601, message: "Method not found: subscriptions/listen" } }
          return { result: { resultType: "complete", tools: [], ttlMs: 0, cacheScope: "private" } }
        },
        { protocolVersion: "2026-07-28" }
      )
      const count = (method: string) =>
        sent.filter((message) => "method" in message && message.method === method).length
      yield* settle
      expect(count("subscriptions/listen")).toBe(1)
      // Each ask again comes after its delay, not before: a moment short of it, none.
      for (const [index, seconds] of [1, 2, 4, 8].entries()) {
        yield* TestClock.adjust(`${seconds * 1000 - 1} millis`)
        yield* settle
        expect(count("subscriptions/listen")).toBe(1 + index)
        yield* TestClock.adjust("1 millis")
        yield* settle
        expect(count("subscriptions/listen")).toBe(2 + index)
      }
      // Nothing more, however long the session lives, and a new resource subscription does not ask again.
      yield* TestClock.adjust("1 hour")
      yield* client.subscribe("file:///a")
      yield* settle
      expect(count("subscriptions/listen")).toBe(5)
      expect(warnings).toStrictEqual([
        "scripted: the server declares list changes but does not serve subscriptions/listen (-32601); no longer asking: lists refresh when used"
      ])
      // Lists are read again when used (ttlMs 0: never fresh).
      yield* client.tools
      yield* client.tools
      expect(count("tools/list")).toBe(2)
    }).pipe(
      Effect.scoped,
      Effect.provide(Logger.replace(Logger.defaultLogger, logger)),
      Logger.withMinimumLogLevel(LogLevel.All)
    )
  })
})
