/**
 * The host against real servers: the reference server over stdio twice under different names
 * and once over Streamable HTTP, a command that does not exist, and a stdio server that
 * crashes. Killing one server mid-session restarts it while the others keep serving; at the
 * end no server process is left.
 */

import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import * as HttpClient from "@effect/platform/HttpClient"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it } from "@effect/vitest"
import { Authorizer, Capabilities, McpError, TokenStore, Transports } from "@effect-mcp/client"
import * as NodeTransports from "@effect-mcp/node/NodeTransports"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Tracer from "effect/Tracer"
import { authorizationServer, resourceServer, TokenRegistry } from "../../client/test/support/authServers.js"
import { noFibersLeft } from "../../client/test/support/fibers.js"
import { keepAliveHttpClient } from "../../client/test/support/httpClient.js"
import { everythingServer, isAlive, miniServer } from "../../client/test/support/processes.js"
import { Expand, McpHost, type ServerStatus } from "../src/index.js"
import { everything, everythingOverHttp, stdio } from "./support/targets.js"

const http = everythingOverHttp()

/** The generic transports over Node's platform (which stays in the context, for config files). */
const platform = Transports.layer.pipe(Layer.provideMerge(Layer.merge(NodeContext.layer, keepAliveHttpClient)))
const hostLayer = (options: McpHost.HostOptions) => McpHost.layer(options).pipe(Layer.provide(platform))

const textOf = (result: { readonly content: ReadonlyArray<{ readonly type: string }> }) =>
  result.content.map((block) => ("text" in block ? String(block.text) : block.type)).join("\n")

const pidOf = (status: ServerStatus.ServerStatus) => (status._tag === "Ready" ? status.pid : undefined)

describe("McpHost", () => {
  it.live("with awaitServers false, is there while a server still connects, which then becomes ready", () =>
    Effect.gen(function* () {
      // A server that says nothing for a while, then runs the reference server.
      const slow = {
        name: "slow",
        target: {
          _tag: "Stdio" as const,
          command: process.execPath,
          args: ["-e", `setTimeout(() => import(${JSON.stringify(pathToFileURL(everythingServer).href)}), 1500)`],
          env: {}
        }
      }
      yield* Effect.gen(function* () {
        const host = yield* McpHost.McpHost
        // Built before the server could answer: waiting for it would have seen it ready or failed.
        expect((yield* host.status("slow"))._tag).toBe("Connecting")
        yield* host.statusChanges.pipe(
          Stream.filter((event) => event.server === "slow" && event.status._tag !== "Connecting"),
          Stream.runHead,
          Effect.timeout("30 seconds")
        )
        const settled = yield* host.status("slow")
        expect(settled._tag === "Failed" ? settled.cause.message : settled._tag).toBe("Ready")
      }).pipe(Effect.provide(hostLayer({ servers: [slow], awaitServers: false })))
    })
  )

  it.live("a session of a server's own (openSession) ends with the scope it was opened in, not the host's", () =>
    Effect.gen(function* () {
      const host = yield* McpHost.McpHost
      const own = yield* Scope.make()
      const session = yield* host.openSession("alpha").pipe(Scope.extend(own))
      expect((yield* session.client.state)._tag).toBe("Ready")
      yield* Scope.close(own, Exit.void)
      // Before, it lived on in the host's own scope until the host closed.
      expect((yield* session.client.state)._tag).toBe("Closed")
      expect(Either.isLeft(yield* Effect.either(session.client.ping()))).toBe(true)
      // The shared session is not the one that ended.
      expect((yield* host.status("alpha"))._tag).toBe("Ready")
      expect(textOf(yield* host.callTool("alpha__echo", { message: "still here" }))).toContain("still here")
    }).pipe(Effect.provide(hostLayer({ servers: [{ name: "alpha", target: everything }] })))
  )

  it.live("serves three real servers at once; a server that cannot start fails alone", () =>
    Effect.gen(function* () {
      const pids: Array<number> = []
      yield* Effect.gen(function* () {
        const host = yield* McpHost.McpHost
        const statuses = yield* host.servers
        expect(statuses.map((info) => [info.name, info.status._tag])).toStrictEqual([
          ["alpha", "Ready"],
          ["beta", "Ready"],
          ["web", "Ready"],
          ["missing", "Failed"]
        ])
        const missing = statuses[3]?.status
        expect(missing?._tag === "Failed" && missing.cause.message).toMatch(/no-such-mcp-server/)
        for (const info of statuses) {
          const pid = pidOf(info.status)
          if (pid !== undefined) pids.push(pid)
        }
        expect(pids).toHaveLength(2)

        // One namespaced toolset; each entry carries its server.
        const tools = yield* host.tools
        const names = tools.map((tool) => tool.name)
        expect(names).toEqual(expect.arrayContaining(["alpha__echo", "beta__echo", "web__echo", "web__get-sum"]))
        expect(new Set(names).size).toBe(names.length)
        expect(tools.find((tool) => tool.name === "web__get-sum")?.server).toBe("web")

        // Calls route to the right client.
        const echoed = yield* host.callTool("beta__echo", { message: "to beta" })
        expect(textOf(echoed)).toContain("to beta")
        const sum = yield* host.callTool("web__get-sum", { a: 2, b: 40 })
        expect(textOf(sum)).toContain("42")
        const unknown = yield* host.callTool("nobody__echo", { message: "x" }).pipe(Effect.flip)
        expect(unknown._tag).toBe("NotFound")

        // Resources route by URI; the same URI listed by three servers is kept once and reported.
        const resources = yield* host.resources
        const first = resources[0]
        expect(first?.server).toBe("alpha")
        const read = yield* host.readResource(first?.resource.uri ?? "")
        expect(read.contents.length).toBeGreaterThan(0)
        const templated = yield* host.readResource("demo://resource/dynamic/text/7")
        expect(JSON.stringify(templated.contents)).toContain("7")
        const collisions = (yield* host.aggregate).collisions
        expect(collisions.some((collision) => collision.kind === "resource" && collision.kept === "alpha")).toBe(true)

        // Prompts by namespaced name.
        const prompt = yield* host.getPrompt("web__simple-prompt")
        expect(prompt.messages.length).toBeGreaterThan(0)
      }).pipe(
        Effect.provide(
          hostLayer({
            servers: [
              { name: "alpha", target: everything },
              { name: "beta", target: everything },
              { name: "web", target: http() },
              { name: "missing", target: { ...everything, command: "no-such-mcp-server" } }
            ]
          })
        )
      )
      // The host's scope closed every server.
      expect(pids.filter(isAlive)).toStrictEqual([])
    }).pipe(noFibersLeft)
  )

  it.live("a call is traced only when someone traces: then its span is the request's parent on the wire", () =>
    Effect.gen(function* () {
      const host = yield* McpHost.McpHost
      const metaOf = (result: { readonly content: ReadonlyArray<{ readonly type: string }> }) =>
        JSON.parse(textOf(result)) as { readonly traceparent?: string }
      // Nobody traces: no span, and nothing of tracing reaches the server.
      expect(metaOf(yield* host.callTool("meta__echo", {}))).toStrictEqual({})
      // Under a tracer: the host's span, whose trace the server's request joins.
      const native = yield* Effect.tracer
      const spans: Array<{ readonly name: string; readonly traceId: string }> = []
      const tracer = Tracer.make({
        context: native.context,
        span: (...args) => {
          const span = native.span(...args)
          spans.push({ name: span.name, traceId: span.traceId })
          return span
        }
      })
      const traced = metaOf(yield* host.callTool("meta__echo", {}).pipe(Effect.withTracer(tracer)))
      const callSpan = spans.find((span) => span.name === "McpHost.callTool")
      expect(callSpan).toBeDefined()
      expect(traced.traceparent?.split("-")[1]).toBe(callSpan?.traceId)
    }).pipe(Effect.provide(hostLayer({ servers: [{ name: "meta", target: stdio(miniServer, "meta") }] })))
  )

  it.live("restarts a killed server while the others keep serving; a call waits for the restart", () =>
    Effect.gen(function* () {
      const pids: Array<number> = []
      yield* Effect.gen(function* () {
        const host = yield* McpHost.McpHost
        const before = pidOf(yield* host.status("alpha")) ?? 0
        pids.push(before)
        const statuses = yield* host.statusChanges.pipe(
          Stream.filter((event) => event.server === "alpha"),
          Stream.map((event) => event.status._tag),
          Stream.drop(1),
          Stream.takeUntil((tag) => tag === "Ready"),
          Stream.runCollect,
          Effect.fork
        )
        // A call in flight when the process dies fails with a typed error naming the server.
        const inFlight = yield* host
          .callTool("alpha__trigger-long-running-operation", { duration: 30, steps: 30 })
          .pipe(Effect.flip, Effect.fork)
        yield* Effect.sleep("300 millis")
        process.kill(before, "SIGKILL")
        const failure = yield* Fiber.join(inFlight)
        expect(failure._tag).toBe("TransportError")
        expect(failure instanceof McpError.TransportError && failure.server).toBe("alpha")
        // The others are unaffected meanwhile.
        expect(textOf(yield* host.callTool("beta__echo", { message: "still here" }))).toContain("still here")
        // A call during recovery waits for the restarted server.
        expect(textOf(yield* host.callTool("alpha__echo", { message: "after restart" }))).toContain("after restart")
        expect(Chunk.toReadonlyArray(yield* Fiber.join(statuses))).toStrictEqual(["Reconnecting", "Ready"])
        const after = pidOf(yield* host.status("alpha"))
        expect(after).toBeDefined()
        expect(after).not.toBe(before)
        pids.push(after ?? 0, pidOf(yield* host.status("beta")) ?? 0)
      }).pipe(
        Effect.provide(
          hostLayer({
            servers: [
              { name: "alpha", target: everything },
              { name: "beta", target: everything }
            ],
            restart: Schedule.spaced("50 millis").pipe(Schedule.intersect(Schedule.recurs(3)))
          })
        )
      )
      expect(pids.filter(isAlive)).toStrictEqual([])
    })
  )

  it.live("a program's Transports (Node's here) start, serve and restart the servers", () =>
    Effect.gen(function* () {
      const launched: Array<string> = []
      // Node's transports, recording each stdio server they start.
      const node = Layer.effect(
        Transports.Transports,
        Effect.map(Transports.Transports, (transports) => ({
          ...transports,
          stdio: (options) => {
            launched.push(options.name ?? options.command)
            return transports.stdio(options)
          }
        }))
      ).pipe(Layer.provide(NodeTransports.layer), Layer.provide(keepAliveHttpClient))
      const pids: Array<number> = []
      yield* Effect.gen(function* () {
        const host = yield* McpHost.McpHost
        const before = pidOf(yield* host.status("alpha")) ?? 0
        pids.push(before)
        expect(textOf(yield* host.callTool("alpha__echo", { message: "first" }))).toContain("first")
        const restarted = yield* host.statusChanges.pipe(
          Stream.filter((event) => event.server === "alpha" && event.status._tag === "Reconnecting"),
          Stream.runHead,
          Effect.fork
        )
        process.kill(before, "SIGKILL")
        yield* Fiber.join(restarted)
        expect(textOf(yield* host.callTool("alpha__echo", { message: "after restart" }))).toContain("after restart")
        const after = pidOf(yield* host.status("alpha")) ?? 0
        expect(after).not.toBe(before)
        pids.push(after)
      }).pipe(
        Effect.provide(
          McpHost.layer({
            servers: [{ name: "alpha", target: everything }],
            restart: Schedule.spaced("50 millis").pipe(Schedule.intersect(Schedule.recurs(3)))
          }).pipe(Layer.provide(node))
        )
      )
      // Started twice through Node's transports (once, then the restart); nothing of either is left.
      expect(launched).toStrictEqual(["alpha", "alpha"])
      expect(pids.filter(isAlive)).toStrictEqual([])
    })
  )

  it.live("Node's transports (NodeTransports.layer) carry an HTTP server's requests on node:http", () =>
    Effect.gen(function* () {
      // The platform client counts what goes through it: with Node's route, only the sessions' closing DELETEs.
      const viaClient: Array<string> = []
      const counting = Layer.effect(
        HttpClient.HttpClient,
        Effect.map(HttpClient.HttpClient, (client) =>
          HttpClient.tapRequest(client, (request) => Effect.sync(() => viaClient.push(request.method)))
        )
      ).pipe(Layer.provide(keepAliveHttpClient))
      const serve = (
        transports: Layer.Layer<Transports.Transports, never, HttpClient.HttpClient | NodeContext.NodeContext>
      ) =>
        Effect.gen(function* () {
          const host = yield* McpHost.McpHost
          for (let call = 0; call < 5; call++)
            expect(textOf(yield* host.callTool("web__echo", { message: `call ${call}` }))).toContain(`call ${call}`)
        }).pipe(
          Effect.provide(
            McpHost.layer({ servers: [{ name: "web", target: http() }] }).pipe(
              Layer.provide(transports),
              Layer.provide(Layer.merge(NodeContext.layer, counting))
            )
          )
        )
      yield* serve(NodeTransports.layer)
      expect(new Set(viaClient)).toStrictEqual(new Set(["DELETE"]))
      viaClient.length = 0
      // With the generic transports, every POST goes through the HttpClient.
      yield* serve(Transports.layer)
      expect(viaClient.filter((method) => method === "POST").length).toBeGreaterThanOrEqual(7)
    }).pipe(noFibersLeft)
  )

  it.live(
    "gives up on a server that keeps crashing once the restart schedule ends, announcing only the restarts made",
    () => {
      const warnings: Array<string> = []
      const logger = Logger.make(({ logLevel, message }) => {
        if (logLevel._tag === "Warning") warnings.push(String(Array.isArray(message) ? message[0] : message))
      })
      return Effect.gen(function* () {
        const host = yield* McpHost.McpHost
        const seen: Array<string> = []
        const watcher = yield* host.statusChanges.pipe(
          Stream.filter((event) => event.server === "crashy"),
          Stream.map((event) =>
            event.status._tag === "Reconnecting" ? `Reconnecting ${event.status.attempt}` : event.status._tag
          ),
          Stream.tap((tag) => Effect.sync(() => seen.push(tag))),
          Stream.takeUntil((tag) => tag === "Failed"),
          Stream.runDrain,
          Effect.fork
        )
        // Each call makes the server exit; the call fails with the process's exit.
        for (let crash = 0; crash < 3; crash++) {
          const error = yield* host.callTool("crashy__echo", {}).pipe(Effect.flip)
          expect(error._tag).toBe("TransportError")
        }
        yield* Fiber.join(watcher)
        // The schedule allows two restarts: two are announced, then Failed (no third that never happens).
        expect(seen).toStrictEqual(["Ready", "Reconnecting 1", "Ready", "Reconnecting 2", "Ready", "Failed"])
        expect(warnings.map((line) => line.replace(/ended \(.*\); /s, "ended (…); "))).toStrictEqual([
          "crashy: the session ended (…); restarting (attempt 1)",
          "crashy: the session ended (…); restarting (attempt 2)",
          "crashy: the session ended (…); not restarting (2 restarts in a row, the schedule is over)"
        ])
        const status = yield* host.status("crashy")
        expect(status._tag === "Failed" && status.cause._tag === "TransportError" && status.cause.exitCode).toBe(3)
        const refused = yield* host.client("crashy").pipe(Effect.flip)
        expect(refused._tag).toBe("ServerUnavailable")
      }).pipe(
        Effect.provide(
          hostLayer({
            servers: [{ name: "crashy", target: stdio(miniServer, "crash") }],
            restart: Schedule.spaced("20 millis").pipe(Schedule.intersect(Schedule.recurs(2)))
          })
        ),
        Effect.provide(Logger.replace(Logger.defaultLogger, logger))
      )
    }
  )

  it.live("adds, disables, enables, removes and reloads servers at run time, touching only what changed", () =>
    Effect.gen(function* () {
      const host = yield* McpHost.McpHost
      const changes = yield* host.changes.pipe(
        Stream.filter((change) => change._tag === "List" && change.server === "gamma"),
        Stream.take(1),
        Stream.runCollect,
        Effect.fork
      )
      yield* host.add({ name: "gamma", target: stdio(miniServer, "normal") })
      expect((yield* Fiber.join(changes)).length).toBe(1)
      expect((yield* host.tools).map((tool) => tool.name)).toContain("gamma__echo")
      const duplicate = yield* host.add({ name: "gamma", target: stdio(miniServer, "normal") }).pipe(Effect.flip)
      expect(duplicate._tag).toBe("DuplicateServer")

      yield* host.disable("gamma")
      expect((yield* host.status("gamma"))._tag).toBe("Stopped")
      expect((yield* host.tools).map((tool) => tool.name)).not.toContain("gamma__echo")
      const unavailable = yield* host.callTool("gamma__echo", {}).pipe(Effect.flip)
      expect(unavailable._tag).toBe("NotFound")
      yield* host.enable("gamma")
      expect((yield* host.status("gamma"))._tag).toBe("Ready")

      const alphaPid = pidOf(yield* host.status("alpha"))
      const gammaPid = pidOf(yield* host.status("gamma"))
      const summary = yield* host.reload([
        { name: "alpha", target: stdio(miniServer, "normal") },
        { name: "gamma", target: { ...stdio(miniServer, "normal"), env: { CHANGED: "1" } } },
        { name: "delta", target: stdio(miniServer, "normal"), options: { enabled: false } }
      ])
      expect(summary).toStrictEqual({ added: ["delta"], removed: [], restarted: ["gamma"], unchanged: ["alpha"] })
      expect(pidOf(yield* host.status("alpha"))).toBe(alphaPid)
      expect(pidOf(yield* host.status("gamma"))).not.toBe(gammaPid)
      expect((yield* host.status("delta"))._tag).toBe("Stopped")

      yield* host.remove("gamma")
      const gone = yield* host.status("gamma").pipe(Effect.flip)
      expect(gone._tag).toBe("UnknownServer")
      expect(gammaPid !== undefined && isAlive(gammaPid)).toBe(false)
      expect((yield* host.servers).map((info) => info.name)).toStrictEqual(["alpha", "delta"])
    }).pipe(Effect.provide(hostLayer({ servers: [{ name: "alpha", target: stdio(miniServer, "normal") }] })))
  )

  it.live("calls to a server whose config did not change never fail while other servers reload", () =>
    Effect.gen(function* () {
      const host = yield* McpHost.McpHost
      let reloading = true
      const calls = yield* Effect.gen(function* () {
        const failures: Array<string> = []
        let count = 0
        while (reloading && count < 2_000) {
          count++
          const exit = yield* Effect.exit(host.callTool("alpha__echo", { message: "x" }))
          if (exit._tag === "Failure") failures.push(String(exit.cause))
          yield* Effect.yieldNow()
        }
        return { failures, count }
      }).pipe(Effect.fork)
      for (let round = 0; round < 4; round++) {
        const summary = yield* host.reload([
          // The changed server first: its restart suspends the reload before alpha is considered.
          { name: "beta", target: { ...stdio(miniServer, "normal"), env: { ROUND: String(round) } } },
          { name: "alpha", target: stdio(miniServer, "normal") }
        ])
        expect(summary.unchanged).toStrictEqual(["alpha"])
        expect(summary.restarted).toStrictEqual(["beta"])
      }
      reloading = false
      const { failures, count } = yield* Fiber.join(calls)
      expect(count).toBeGreaterThan(0)
      expect(failures).toStrictEqual([])
      expect((yield* host.servers).map((info) => info.name)).toStrictEqual(["beta", "alpha"])
    }).pipe(
      Effect.provide(
        hostLayer({
          servers: [
            { name: "alpha", target: stdio(miniServer, "normal") },
            { name: "beta", target: stdio(miniServer, "normal") }
          ]
        })
      )
    )
  )

  it.live("builds from a config file and reloads it, restarting only the entries that changed", () =>
    Effect.gen(function* () {
      const cwd = mkdtempSync(join(tmpdir(), "effect-mcp-host-config-"))
      const file = join(cwd, ".mcp.json")
      const write = (env: string) =>
        writeFileSync(
          file,
          JSON.stringify({
            mcpServers: {
              same: { command: process.execPath, args: [miniServer, "normal"] },
              edited: { command: process.execPath, args: [miniServer, "normal"], env: { VERSION: env } },
              // An entry that cannot be resolved is left out; the others serve.
              broken: { command: "${NOT_SET_FOR_THE_HOST_TEST}" }
            }
          })
        )
      write("1")
      const location = { cwd, home: cwd, platform: "linux" as const }
      yield* Effect.gen(function* () {
        const host = yield* McpHost.McpHost
        expect((yield* host.servers).map((info) => [info.name, info.status._tag])).toStrictEqual([
          ["same", "Ready"],
          ["edited", "Ready"]
        ])
        const samePid = pidOf(yield* host.status("same"))
        write("2")
        const summary = yield* McpHost.reloadConfig(host, location, yield* Expand.processContext).pipe(
          Effect.provide(NodeContext.layer)
        )
        expect(summary).toStrictEqual({ added: [], removed: [], restarted: ["edited"], unchanged: ["same"] })
        expect(pidOf(yield* host.status("same"))).toBe(samePid)
      }).pipe(
        Effect.provide(
          Layer.unwrapEffect(
            Effect.map(Expand.processContext, (context) => McpHost.layerFromConfig(location, context))
          ).pipe(Layer.provide(platform))
        ),
        Effect.provide(NodeContext.layer)
      )
    })
  )

  it.live(
    "enable and disable outlive reloads of an unchanged config file, which restart nothing; a changed entry starts as it says",
    () =>
      Effect.gen(function* () {
        const cwd = mkdtempSync(join(tmpdir(), "effect-mcp-host-switch-"))
        const file = join(cwd, ".mcp.json")
        const write = (version: string) =>
          writeFileSync(
            file,
            JSON.stringify({
              mcpServers: {
                on: { command: process.execPath, args: [miniServer, "normal"] },
                off: { command: process.execPath, args: [miniServer, "normal"], env: { VERSION: version } }
              }
            })
          )
        write("1")
        const location = { cwd, home: cwd, platform: "linux" as const }
        const context = yield* Expand.processContext
        yield* Effect.gen(function* () {
          const host = yield* McpHost.McpHost
          const reload = McpHost.reloadConfig(host, location, context)
          const states = Effect.map(host.servers, (servers) =>
            servers.map((info) => `${info.name} ${info.enabled ? "enabled" : "disabled"} ${info.status._tag}`)
          )
          const unchanged = { added: [], removed: [], restarted: [], unchanged: ["on", "off"] }
          // Enabled through the API: an unchanged file neither restarts it nor undoes it.
          yield* host.disable("on")
          yield* host.enable("on")
          const onPid = pidOf(yield* host.status("on"))
          expect(onPid).toBeDefined()
          expect(yield* reload).toStrictEqual(unchanged)
          expect(pidOf(yield* host.status("on"))).toBe(onPid)
          // Disabled through the API: it stays stopped across a reload of the unchanged file.
          yield* host.disable("off")
          expect(yield* reload).toStrictEqual(unchanged)
          expect(yield* states).toStrictEqual(["on enabled Ready", "off disabled Stopped"])
          // Its entry changed: it starts as the new configuration says.
          write("2")
          expect(yield* reload).toStrictEqual({ added: [], removed: [], restarted: ["off"], unchanged: ["on"] })
          expect(yield* states).toStrictEqual(["on enabled Ready", "off enabled Ready"])
          expect(pidOf(yield* host.status("on"))).toBe(onPid)
        }).pipe(Effect.provide(McpHost.layerFromConfig(location, context).pipe(Layer.provide(platform))))
      }).pipe(Effect.provide(NodeContext.layer))
  )

  it.live("applies allow and deny lists and shares one set of handlers, which learn the asking server", () =>
    Effect.gen(function* () {
      const askedBy: Array<string> = []
      const elicitation = Layer.succeed(Capabilities.Elicitation, {
        form: (_params, context) =>
          Effect.sync(() => askedBy.push(context.server)).pipe(Effect.as({ action: "decline" as const }))
      })
      yield* Effect.gen(function* () {
        const host = yield* McpHost.McpHost
        const names = (yield* host.tools).map((tool) => tool.name)
        expect(names.filter((name) => name.startsWith("limited__")).sort()).toStrictEqual([
          "limited__echo",
          "limited__trigger-elicitation-request",
          "limited__trigger-long-running-operation"
        ])
        expect(names).not.toContain("web__get-sum")
        expect(names).toContain("web__echo")
        const denied = yield* host.callTool("web__get-sum", { a: 1, b: 2 }).pipe(Effect.flip)
        expect(denied._tag).toBe("NotFound")
        yield* host.callTool("limited__trigger-elicitation-request", {})
        yield* host.callTool("web__trigger-elicitation-request", {})
        expect(askedBy).toStrictEqual(["limited", "web"])

        // Three slow calls at once: "limited" (concurrency 1) has one in flight at a time, "web" all three.
        const mostInFlight = (server: string, tool: string) =>
          Effect.gen(function* () {
            const client = yield* host.client(server)
            let most = 0
            const sampler = yield* client.stats.pipe(
              Effect.tap((stats) => Effect.sync(() => (most = Math.max(most, stats.pending)))),
              Effect.repeat(Schedule.spaced("10 millis")),
              Effect.fork
            )
            yield* Effect.all(
              Array.from({ length: 3 }, () => host.callTool(tool, { duration: 1, steps: 2 })),
              { concurrency: "unbounded", discard: true }
            )
            yield* Fiber.interrupt(sampler)
            return most
          })
        expect(yield* mostInFlight("limited", "limited__trigger-long-running-operation")).toBe(1)
        expect(yield* mostInFlight("web", "web__trigger-long-running-operation")).toBe(3)
      }).pipe(
        Effect.provide(
          McpHost.layer({
            servers: [
              {
                name: "limited",
                target: everything,
                options: {
                  allowTools: ["echo", "trigger-elicitation-request", "trigger-long-running-operation"],
                  concurrency: 1
                }
              },
              { name: "web", target: http(), options: { denyTools: ["get-sum"] } }
            ]
          }).pipe(Layer.provide(Layer.merge(platform, elicitation)))
        )
      )
    })
  )

  it.scopedLive(
    "authorizes a protected HTTP server with the entry's oauth settings and the host's authorizer and store",
    () =>
      Effect.gen(function* () {
        const registry = new TokenRegistry()
        const authorization = yield* authorizationServer(registry, {
          registration: false,
          clients: { "host-client": "host-secret" }
        })
        const resource = yield* resourceServer(registry, { authorizationServer: () => authorization.origin })
        yield* Effect.gen(function* () {
          const host = yield* McpHost.McpHost
          expect((yield* host.servers).map((info) => info.status._tag)).toStrictEqual(["Ready"])
          const result = yield* host.callTool("guarded__secret")
          expect(result.content).toStrictEqual([{ type: "text", text: "the secret" }])
        }).pipe(
          Effect.provide(
            McpHost.layer({
              servers: [
                {
                  name: "guarded",
                  target: {
                    _tag: "Http",
                    url: `${resource.origin}/mcp`,
                    transport: "http",
                    headers: {},
                    oauth: { clientId: "host-client", clientSecret: "host-secret" }
                  }
                }
              ]
            }).pipe(
              Layer.provide(Layer.merge(Authorizer.followRedirect(), TokenStore.layerMemory)),
              Layer.provide(platform)
            )
          )
        )
        const token = authorization.seen.find((entry) => entry.path === "/token")
        expect(token?.headers.authorization).toBe(`Basic ${Buffer.from("host-client:host-secret").toString("base64")}`)
        expect(authorization.seen.some((entry) => entry.path === "/register")).toBe(false)
      })
  )
})
