/**
 * The host over a restarted HTTP server: the reference server restarted on its port (calls
 * succeed after it: the client initializes a new session), and the host's keepalive, which marks
 * a dead session so the host restarts it, and re-initializes a session the server forgot with no
 * call from the user.
 */

import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it } from "@effect/vitest"
import { type McpClient, Transports } from "@effect-mcp/client"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import { faultServer, initialized, json, rpc } from "../../client/test/support/faultServer.js"
import { noFibersLeft } from "../../client/test/support/fibers.js"
import { keepAliveHttpClient } from "../../client/test/support/httpClient.js"
import { restartableServers, textOf } from "../../client/test/support/restarting.js"
import { McpHost, type ServerEntry } from "../src/index.js"
import { keepAliveOf } from "../src/internal/serverLists.js"
import { stdio } from "./support/targets.js"

const platform = Transports.layer.pipe(Layer.provideMerge(Layer.merge(NodeContext.layer, keepAliveHttpClient)))
const hostLayer = (options: McpHost.HostOptions) => McpHost.layer(options).pipe(Layer.provide(platform))

const httpTarget = (url: string): ServerEntry.Target => ({ _tag: "Http", url, transport: "http", headers: {} })

const { start, stop } = restartableServers()

describe("the host over a restarted HTTP server", () => {
  it.live("the reference server restarted on its port: routed calls succeed after the restart", () =>
    Effect.gen(function* () {
      const first = yield* start()
      yield* Effect.gen(function* () {
        const host = yield* McpHost.McpHost
        expect(textOf(yield* host.callTool("web__echo", { message: "before" }))).toBe("Echo: before")
        yield* stop(first)
        yield* start(first.port)
        expect(textOf(yield* host.callTool("web__echo", { message: "after" }))).toBe("Echo: after")
        expect((yield* host.status("web"))._tag).toBe("Ready")
      }).pipe(
        Effect.provide(
          hostLayer({
            servers: [
              { name: "web", target: httpTarget(`${first.origin}/mcp`), options: { requestTimeout: "60 seconds" } }
            ]
          })
        )
      )
    }).pipe(noFibersLeft)
  )

  it.live("keepalive: a server gone marks the session dead; the host restarts it once the server is back", () =>
    Effect.gen(function* () {
      const first = yield* start()
      yield* Effect.gen(function* () {
        const host = yield* McpHost.McpHost
        expect((yield* host.status("web"))._tag).toBe("Ready")
        const statuses = yield* host.statusChanges.pipe(
          Stream.filter((event) => event.server === "web"),
          Stream.map((event) => event.status._tag),
          Stream.drop(1),
          Stream.takeUntil((tag) => tag === "Ready"),
          Stream.runCollect,
          Effect.fork
        )
        // Nobody calls: the keepalive alone finds the server gone.
        yield* stop(first)
        yield* host.statusChanges.pipe(
          Stream.filter((event) => event.server === "web" && event.status._tag === "Reconnecting"),
          Stream.runHead
        )
        yield* start(first.port)
        const seen = Array.from(yield* Fiber.join(statuses))
        expect(seen[0]).toBe("Reconnecting")
        expect(seen.at(-1)).toBe("Ready")
        expect(seen).not.toContain("Failed")
        expect(textOf(yield* host.callTool("web__echo", { message: "back" }))).toBe("Echo: back")
      }).pipe(
        Effect.provide(
          hostLayer({
            servers: [{ name: "web", target: httpTarget(`${first.origin}/mcp`) }],
            // Generous bounds: the server may take seconds to come back on a loaded machine.
            keepAlive: { interval: Schedule.spaced("200 millis"), timeout: "30 seconds" },
            restart: Schedule.spaced("250 millis").pipe(Schedule.intersect(Schedule.recurs(240)))
          })
        )
      )
    }).pipe(noFibersLeft)
  )

  it.live(
    "keepalive: a session the server forgot (400) is initialized again with no call; the server stays Ready",
    () =>
      Effect.gen(function* () {
        let sessions = 0
        let forgotten = false
        let pings = 0
        const { url, received } = yield* faultServer((request, response) => {
          const message = rpc(request)
          if (request.method === "DELETE") return response.writeHead(200).end()
          if (request.method === "GET") return response.writeHead(405).end()
          if (message.method === "initialize") {
            sessions++
            return json(response, initialized(message.id), { "mcp-session-id": `s${sessions}` })
          }
          if (request.headers["mcp-session-id"] === "s1" && forgotten) {
            response.writeHead(400, { "content-type": "application/json" })
            return response.end(
              JSON.stringify({
                jsonrpc: "2.0",
                error: { code: -32000, message: "Bad Request: No valid session ID provided" },
                id: null
              })
            )
          }
          if (message.id === undefined) return response.writeHead(202).end()
          if (message.method === "ping" && request.headers["mcp-session-id"] === "s2") pings++
          if (message.method === "tools/list")
            return json(response, { jsonrpc: "2.0", id: message.id, result: { tools: [] } })
          return json(response, { jsonrpc: "2.0", id: message.id, result: {} })
        })
        yield* Effect.gen(function* () {
          const host = yield* McpHost.McpHost
          const seen: Array<string> = []
          const watching = yield* host.statusChanges.pipe(
            Stream.filter((event) => event.server === "web"),
            Stream.runForEach((event) => Effect.sync(() => seen.push(event.status._tag))),
            Effect.fork
          )
          forgotten = true
          // Pings answered in the new session: wait (bounded, 30 s) for two of them.
          for (let waited = 0; pings < 2 && waited < 600; waited++) yield* Effect.sleep("50 millis")
          expect(pings).toBeGreaterThanOrEqual(2)
          expect(sessions).toBe(2)
          const sessionIds = received
            .filter((request) => rpc(request).method === "ping")
            .map((request) => request.headers["mcp-session-id"])
          expect(sessionIds).toContain("s2")
          yield* Fiber.interrupt(watching)
          // Never restarted: the session was re-established within the same client.
          expect(seen.filter((tag) => tag !== "Ready")).toStrictEqual([])
          expect((yield* host.status("web"))._tag).toBe("Ready")
        }).pipe(
          Effect.provide(
            hostLayer({
              servers: [{ name: "web", target: httpTarget(url) }],
              keepAlive: { interval: "100 millis", timeout: "30 seconds" }
            })
          )
        )
      }).pipe(Effect.scoped, noFibersLeft)
  )
})

describe("which servers have a keepalive", () => {
  const hostWide: McpClient.KeepAliveOptions = { interval: "10 seconds" }
  const web = { name: "web", target: httpTarget("http://127.0.0.1:1/mcp") }
  const local = { name: "local", target: stdio("server.js") }

  it("the host's for servers over HTTP; a server's own wins; false turns it off; none for stdio by default", () => {
    expect(keepAliveOf(web, hostWide)).toBe(hostWide)
    expect(keepAliveOf(web, undefined)).toBeUndefined()
    expect(keepAliveOf(local, hostWide)).toBeUndefined()
    const own: McpClient.KeepAliveOptions = { interval: "1 second" }
    expect(keepAliveOf({ ...local, options: { keepAlive: own } }, hostWide)).toBe(own)
    expect(keepAliveOf({ ...web, options: { keepAlive: own } }, hostWide)).toBe(own)
    expect(keepAliveOf({ ...web, options: { keepAlive: false } }, hostWide)).toBeUndefined()
  })
})
