/**
 * Both stdio transports, the client's generic `StdioTransport` (over `CommandExecutor`) and
 * `NodeStdioTransport`, under one suite against real processes: the client's fault-injecting
 * mini server (its test/fixtures; the reference server is in the client's Everything.test.ts).
 * After every test, the server process and its whole process group are gone. The era probe runs
 * on the server's own process: each connection starts its server once (twice only for a server
 * that exits on the probe).
 */

import { existsSync, mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it } from "@effect/vitest"
import { McpClient, StdioTransport } from "@effect-mcp/client"
import * as NodeStdioTransport from "@effect-mcp/node/NodeStdioTransport"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { noFibersLeft } from "../../client/test/support/fibers.js"
import { groupMembers, isAlive, miniServer } from "../../client/test/support/processes.js"
import { exitsBeforeInitialize } from "../../client/test/support/sdkV2Server.js"

const mini = (mode: string, options: Partial<StdioTransport.StdioOptions> = {}): StdioTransport.StdioOptions => ({
  command: process.execPath,
  args: [miniServer, mode],
  name: `mini-${mode}`,
  shutdown: { afterStdin: "300 millis", afterTerm: "300 millis" },
  ...options
})

const textOf = (result: { readonly content: ReadonlyArray<{ readonly type: string }> }) =>
  result.content.map((block) => ("text" in block ? String(block.text) : block.type)).join("")

/** The two stdio transports: the generic one on `CommandExecutor`, and Node's own. */
const transports = [
  {
    name: "StdioTransport",
    layer: (options: StdioTransport.StdioOptions) =>
      StdioTransport.layer(options).pipe(Layer.provide(NodeContext.layer))
  },
  { name: "NodeStdioTransport", layer: NodeStdioTransport.layer }
] as const

describe.each(transports)("$name", ({ layer: transportLayer }) => {
  /** A client over stdio in its own scope; afterwards, checks that no process of its group survives. */
  const withClient = <A, E>(
    options: StdioTransport.StdioOptions,
    use: (client: McpClient.McpClientService, process: StdioTransport.StdioProcessService) => Effect.Effect<A, E>,
    clientOptions: McpClient.McpClientOptions = {}
  ) =>
    Effect.gen(function* () {
      let pid = 0
      const result = yield* noFibersLeft(
        Effect.scoped(
          Effect.gen(function* () {
            const layer = McpClient.layer({ name: options.name ?? "stdio", ...clientOptions }).pipe(
              Layer.provideMerge(transportLayer(options))
            )
            const context = yield* Layer.build(layer)
            const info = Context.get(context, StdioTransport.StdioProcess)
            pid = info.pid
            return yield* use(Context.get(context, McpClient.McpClient), info)
          })
        )
      )
      expect(isAlive(pid)).toBe(false)
      expect(groupMembers(pid)).toStrictEqual([])
      return result
    })

  it.live("speaks newline JSON (UTF-8 included) and closes the server by ending stdin", () =>
    withClient(mini("normal"), (client) =>
      Effect.gen(function* () {
        expect(client.serverInfo.name).toBe("mini-normal")
        expect(textOf(yield* client.callTool("echo", { a: "é ✓ 𝄞" }))).toBe('{"a":"é ✓ 𝄞"}')
      })
    )
  )

  it.live("passes only the safe environment by default, plus explicit variables; everything on request", () =>
    Effect.gen(function* () {
      process.env.EFFECT_MCP_TEST_SECRET = "do-not-pass"
      const envOf = (inheritEnv: "safe" | "all") =>
        withClient(mini("env", { env: { EXPLICIT: "yes" }, inheritEnv }), (client) =>
          Effect.map(client.callTool("echo"), (result): Record<string, string> => JSON.parse(textOf(result)))
        )
      const safe = yield* envOf("safe")
      expect(safe.EXPLICIT).toBe("yes")
      expect(safe.PATH).toBe(process.env.PATH)
      expect(safe.EFFECT_MCP_TEST_SECRET).toBeUndefined()
      const all = yield* envOf("all")
      expect(all.EFFECT_MCP_TEST_SECRET).toBe("do-not-pass")
      expect(all.EXPLICIT).toBe("yes")
      delete process.env.EFFECT_MCP_TEST_SECRET
    })
  )

  it.live("a server that ignores SIGTERM is killed with SIGKILL", () =>
    withClient(mini("ignore-term"), (client) => client.ping())
  )

  it.live("a crash mid-request fails the request at once with the exit code and the stderr tail", () =>
    withClient(mini("crash"), (client) =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(client.callTool("echo"))
        expect(error).toMatchObject({ _tag: "TransportError", exitCode: 3 })
        if (error._tag === "TransportError") expect(error.stderr).toContain("about to crash")
        expect(error.message).toContain("exited with code 3")
        const state = yield* client.stateChanges.pipe(
          Stream.filter((s) => s._tag === "Failed"),
          Stream.runHead
        )
        expect(state._tag).toBe("Some")
        expect((yield* Effect.flip(client.ping()))._tag).toBe("SessionUnavailable")
      })
    )
  )

  it.live("a server flooding stderr keeps working; stderr is a stream and a tail", () =>
    withClient(mini("flood-stderr", { stderrTailLines: 3 }), (client, process) =>
      Effect.gen(function* () {
        expect(textOf(yield* client.callTool("echo", { ok: true }))).toBe('{"ok":true}')
        const tail = yield* process.stderrTail
        expect(tail.split("\n")).toHaveLength(3)
      })
    )
  )

  it.live("non-JSON lines on stdout are skipped and counted as protocol violations", () =>
    withClient(mini("noise"), (client) =>
      Effect.gen(function* () {
        expect(textOf(yield* client.callTool("echo", { n: 1 }))).toBe('{"n":1}')
        const stats = yield* client.stats
        expect(stats.violations.malformed).toBeGreaterThanOrEqual(2)
      })
    )
  )

  it.live("a message over the size limit fails the transport with a clear error, not memory", () =>
    withClient(mini("oversize", { maxMessageBytes: 1024 * 1024 }), (client) =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(client.callTool("echo"))
        expect(error._tag).toBe("TransportError")
        expect(error.message).toContain("exceeded the maximum size of 1048576 bytes")
      })
    )
  )

  it.live("processes the server started are killed with it", () =>
    Effect.gen(function* () {
      const grandchild = yield* withClient(mini("spawn-child"), (client) =>
        Effect.map(client.callTool("echo"), (result) => Number(textOf(result)))
      )
      expect(grandchild).toBeGreaterThan(0)
      expect(isAlive(grandchild)).toBe(false)
    })
  )

  it.live("a server behind a shell wrapper is a process tree; none of it survives", () =>
    withClient(
      {
        command: "sh",
        args: ["-c", `"${process.execPath}" "${miniServer}" ignore-term; exit 0`],
        shutdown: { afterStdin: "300 millis", afterTerm: "300 millis" }
      },
      (client) => client.ping()
    )
  )

  it.live("interrupting the scope mid-call closes everything", () =>
    Effect.gen(function* () {
      const ready = yield* Deferred.make<number>()
      const fiber = yield* withClient(mini("ignore-term"), (client, process) =>
        Deferred.succeed(ready, process.pid).pipe(
          Effect.zipRight(client.callTool("never-answered-because-interrupted")),
          Effect.zipRight(Effect.never)
        )
      ).pipe(Effect.fork)
      const pid = yield* Deferred.await(ready)
      expect(isAlive(pid)).toBe(true)
      const exit = yield* Fiber.interrupt(fiber)
      expect(Exit.isInterrupted(exit)).toBe(true)
      expect(isAlive(pid)).toBe(false)
      expect(groupMembers(pid)).toStrictEqual([])
    })
  )

  it.live("a server that exits before the handshake: the error has its exit code and stderr, not 'closed'", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        Effect.scoped(
          Layer.build(
            McpClient.layer({ name: "early" }).pipe(
              Layer.provide(
                transportLayer({
                  command: process.execPath,
                  args: ["-e", "console.error('cannot open database'); process.exit(4)"],
                  name: "early"
                })
              )
            )
          )
        )
      )
      expect(error).toMatchObject({ _tag: "TransportError", exitCode: 4 })
      if (error._tag === "TransportError") expect(error.stderr).toContain("cannot open database")
    })
  )

  describe("the era probe runs on the server's own process", () => {
    /** A file each start of the server appends a line to, and how many lines it has. */
    const startsFile = () => {
      const file = join(mkdtempSync(join(tmpdir(), "effect-mcp-starts-")), "starts")
      return { file, count: () => (existsSync(file) ? readFileSync(file, "utf8").split("\n").length - 1 : 0) }
    }

    it.live("one start per connection: a legacy server that refuses the probe is initialized on the same process", () =>
      Effect.gen(function* () {
        const starts = startsFile()
        const text = yield* withClient(mini("normal", { env: { MINI_STARTS_FILE: starts.file } }), (client) =>
          Effect.gen(function* () {
            expect(client.era).toBe("stateful")
            return textOf(yield* client.callTool("echo", { said: "once" }))
          })
        )
        expect(text).toBe(JSON.stringify({ said: "once" }))
        expect(starts.count()).toBe(1)
      })
    )

    it.live("a legacy server that exits on the probe is started again, once, and initialized there", () =>
      Effect.gen(function* () {
        const starts = startsFile()
        const options: StdioTransport.StdioOptions = {
          command: process.execPath,
          args: [exitsBeforeInitialize],
          name: "exits-before-initialize",
          env: { MINI_STARTS_FILE: starts.file },
          shutdown: { afterStdin: "300 millis", afterTerm: "300 millis" }
        }
        const text = yield* withClient(options, (client, server) =>
          Effect.gen(function* () {
            expect(client.era).toBe("stateful")
            expect(client.serverInfo.name).toBe("exits-before-initialize")
            // The process the transport reports is the one that runs now.
            expect(isAlive(server.pid)).toBe(true)
            return textOf(yield* client.callTool("echo", { message: "again" }))
          })
        )
        expect(text).toBe("echo: again")
        expect(starts.count()).toBe(2)
      })
    )

    it.live(
      "a server silent before initialize: after the probe's wait it is initialized there, and its late answer to the probe is dropped",
      () =>
        Effect.gen(function* () {
          const starts = startsFile()
          const text = yield* withClient(
            mini("late-probe", { env: { MINI_STARTS_FILE: starts.file } }),
            (client) =>
              Effect.gen(function* () {
                expect(client.era).toBe("stateful")
                return textOf(yield* client.callTool("echo", { after: "late answer" }))
              }),
            // Silence is the verdict here, not a deadline the server must meet.
            { probeTimeout: "200 millis" }
          )
          expect(text).toBe(JSON.stringify({ after: "late answer" }))
          expect(starts.count()).toBe(1)
        })
    )

    it.live("a server that dies after the probe is not started again: the call fails with its exit code", () =>
      Effect.gen(function* () {
        const starts = startsFile()
        const error = yield* withClient(mini("crash", { env: { MINI_STARTS_FILE: starts.file } }), (client) =>
          Effect.flip(client.callTool("echo", {}))
        )
        expect(error).toMatchObject({ _tag: "TransportError", exitCode: 3 })
        expect(starts.count()).toBe(1)
      })
    )
  })

  it.live("a command that does not exist fails with a typed error naming it and the PATH", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        Effect.scoped(Layer.build(transportLayer({ command: "no-such-mcp-server-xyz" })))
      )
      expect(error._tag).toBe("TransportError")
      expect(error.message).toContain("no-such-mcp-server-xyz: not found")
      expect(error.message).toContain("PATH=")
    })
  )
})
