/**
 * Tool search and the config file's policies, through the gateway: the reference server behind a
 * host read from a config file (`denyTools`, `allowTools`, `maxResultBytes`), our client in front. Off by
 * default (the usual list, the denied tool neither listed nor callable, a large result cut to the
 * budget); with `toolSearch`, two tools listed, the search ranking the host's tools and
 * `call_tool` calling them on the path of `tools/call` (progress and the server's requests
 * included). One host (one reference server) for the file; one connection per test.
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { expect, layer } from "@effect/vitest"
import { McpHost } from "@effect-mcp/host"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { connect, elicitation, everything, GATEWAY, gatewayHost, textOf } from "./support/gateway.js"

const BUDGET = 1024

/** The reference server as a config file gives it, with a denied tool and a result budget. */
const configured = Effect.gen(function* () {
  const cwd = mkdtempSync(join(tmpdir(), "effect-mcp-gateway-policy-"))
  const home = mkdtempSync(join(tmpdir(), "effect-mcp-home-"))
  writeFileSync(
    join(cwd, "mcp.json"),
    JSON.stringify({
      mcpServers: {
        everything: {
          command: everything.command,
          args: everything.args,
          denyTools: ["get-tiny-image"],
          maxResultBytes: BUDGET
        },
        narrow: { command: everything.command, args: everything.args, allowTools: ["echo"] }
      }
    })
  )
  const { servers, problems } = yield* McpHost.serversFromConfig(
    { cwd, home, platform: "linux" },
    { env: {}, home, workspaceFolder: cwd, pathSeparator: "/", ask: () => Effect.die("no inputs") }
  )
  expect(problems).toStrictEqual([])
  return gatewayHost({ servers })
}).pipe(Effect.provide(NodeContext.layer), Layer.unwrapEffect)

const search = { toolSearch: true }

/** The structured answer of `search_tools`. */
interface Found {
  readonly tools: ReadonlyArray<{ readonly name: string; readonly description?: string; readonly inputSchema: object }>
  readonly total: number
}

const foundOf = (result: { readonly structuredContent?: unknown; readonly content: ReadonlyArray<unknown> }) => {
  // The text block carries the same answer as the structured content.
  expect(JSON.parse(textOf(result as { content: ReadonlyArray<{ type: string }> }))).toStrictEqual(
    result.structuredContent
  )
  return result.structuredContent as Found
}

layer(configured, { excludeTestServices: true, timeout: "60 seconds" })(
  "tool search and config policies, through the gateway",
  (it) => {
    it.scoped("off by default: every allowed tool listed; the denied one neither listed nor callable", () =>
      Effect.gen(function* () {
        const { client } = yield* connect()
        const names = (yield* client.tools).map((tool) => tool.name)
        expect(names).toEqual(expect.arrayContaining(["everything__echo", "everything__get-sum"]))
        expect(names).not.toContain("everything__get-tiny-image")
        expect(names).not.toContain("search_tools")
        const denied = yield* Effect.flip(client.callTool("everything__get-tiny-image", {}))
        expect(denied).toMatchObject({ _tag: "RpcError", code: -32602 })
        expect(denied.message).toContain("Unknown tool: everything__get-tiny-image")
      })
    )

    it.scoped("allowTools: of that server only the allowed tool is listed and callable", () =>
      Effect.gen(function* () {
        const { client } = yield* connect()
        const names = (yield* client.tools).map((tool) => tool.name).filter((name) => name.startsWith("narrow__"))
        expect(names).toStrictEqual(["narrow__echo"])
        expect(textOf(yield* client.callTool("narrow__echo", { message: "hi" }))).toBe("Echo: hi")
        const refused = yield* Effect.flip(client.callTool("narrow__get-sum", { a: 1, b: 2 }, { validateInput: false }))
        expect(refused).toMatchObject({ _tag: "RpcError", code: -32602 })
      })
    )

    it.scoped("a result larger than the server's maxResultBytes is cut to it, and says so", () =>
      Effect.gen(function* () {
        const { client } = yield* connect()
        const message = "lorem ipsum dolor sit amet ".repeat(200)
        const result = yield* client.callTool("everything__echo", { message })
        const text = textOf(result)
        expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThanOrEqual(BUDGET)
        expect(text.startsWith("Echo: lorem ipsum")).toBe(true)
        expect(text).toMatch(
          /\[… cut to fit the server's result budget of 1,024 bytes \(maxResultBytes\): left out [\d,]+ characters of text, of a result of [\d,]+ bytes\]$/
        )
        // A small one is untouched.
        expect(textOf(yield* client.callTool("everything__echo", { message: "hi" }))).toBe("Echo: hi")
      })
    )

    it.scoped("with tool search, the list is exactly the search and call tools", () =>
      Effect.gen(function* () {
        const { client } = yield* connect({ gateway: search })
        const tools = yield* client.tools
        expect(tools.map((tool) => tool.name)).toStrictEqual(["search_tools", "call_tool"])
        expect(tools[0]?.outputSchema).toMatchObject({ type: "object", required: ["tools", "total"] })
      })
    )

    it.scoped("a search ranks by name first, finds words of descriptions, and never the denied tool", () =>
      Effect.gen(function* () {
        const { client } = yield* connect({ gateway: search })
        const sum = foundOf(yield* client.callTool("search_tools", { query: "sum" }))
        expect(sum.tools[0]?.name).toBe("everything__get-sum")
        expect(sum.tools[0]?.inputSchema).toMatchObject({ type: "object" })
        // "Compresses a single file using gzip…": a word of the description only.
        const compress = foundOf(yield* client.callTool("search_tools", { query: "compresses", limit: 3 }))
        expect(compress.tools.map((tool) => tool.name)).toStrictEqual(["everything__gzip-file-as-resource"])
        const image = foundOf(yield* client.callTool("search_tools", { query: "tiny image" }))
        expect(image.tools.map((tool) => tool.name)).not.toContain("everything__get-tiny-image")
        // An empty query lists every tool; a limit is kept to.
        const all = foundOf(yield* client.callTool("search_tools", { query: "" }))
        expect(all.tools.length).toBe(all.total)
        expect(all.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["everything__echo"]))
        expect(foundOf(yield* client.callTool("search_tools", { query: "", limit: 2 })).tools.length).toBe(2)
        // Arguments our client would refuse to send: the gateway answers a tool error.
        const bad = yield* client.callTool("search_tools", { query: "sum", limit: 0 }, { validateInput: false })
        expect(bad.isError).toBe(true)
        expect(textOf(bad)).toContain("Invalid arguments for search_tools")
      })
    )

    it.scoped(
      "call_tool calls a host-wide tool and answers its result; an unknown or denied name is a tool error",
      () =>
        Effect.gen(function* () {
          const { client } = yield* connect({ gateway: search })
          const sum = yield* client.callTool("call_tool", { name: "everything__get-sum", arguments: { a: 2, b: 40 } })
          expect(sum.isError).not.toBe(true)
          expect(textOf(sum)).toContain("42")
          for (const name of ["everything__nope", "everything__get-tiny-image"]) {
            const unknown = yield* client.callTool("call_tool", { name, arguments: {} })
            expect(unknown.isError).toBe(true)
            expect(textOf(unknown)).toBe(`Unknown tool: ${name}. Find the available tools with search_tools.`)
          }
          const nameless = yield* client.callTool("call_tool", { arguments: {} }, { validateInput: false })
          expect(nameless.isError).toBe(true)
          expect(textOf(nameless)).toMatch(/Invalid arguments for call_tool: [\s\S]*name/)
          // The tools stay callable by name with tools/call, though not listed.
          expect(textOf(yield* client.callTool("everything__get-sum", { a: 1, b: 1 }))).toContain("2")
        })
    )

    it.scoped("through call_tool, the server's progress and its requests reach the client", () =>
      Effect.gen(function* () {
        const asked: Array<string> = []
        const { client } = yield* connect({ gateway: search, elicitation: elicitation(asked, { name: "Ada" }) })
        const events = yield* client
          .callToolStream("call_tool", {
            name: "everything__trigger-long-running-operation",
            arguments: { duration: 0.2, steps: 2 }
          })
          .pipe(Stream.runCollect, Effect.map(Chunk.toReadonlyArray))
        expect(events.filter((event) => event._tag === "Progress").length).toBe(2)
        expect(events.at(-1)?._tag).toBe("Result")
        const elicited = yield* client.callTool("call_tool", {
          name: "everything__trigger-elicitation-request",
          arguments: {}
        })
        expect(asked).toStrictEqual([`${GATEWAY}: Please provide inputs for the following fields:`])
        expect(textOf(elicited)).toContain("Name: Ada")
      })
    )
  }
)
