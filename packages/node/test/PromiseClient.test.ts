/**
 * The client for Promise programs (the client's `PromiseClient`) over Node's stdio transport,
 * which writes a message there and then (its `send`'s plain form): against the reference server, calls started
 * with no fiber give what the client's effects give; a failed handshake and `make` leave no
 * process. The scripted and HTTP cases are the client's own `test/PromiseClient.test.ts`.
 */

import { describe, expect, it } from "@effect/vitest"
import { type McpClient, PromiseClient } from "@effect-mcp/client"
import * as NodeStdioTransport from "@effect-mcp/node/NodeStdioTransport"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { counted, Starts } from "../../client/test/support/fiberStarts.js"
import { children, everythingServer } from "../../client/test/support/processes.js"

const everything = () =>
  NodeStdioTransport.layer({
    command: process.execPath,
    args: [everythingServer, "stdio"],
    name: "everything",
    shutdown: { afterStdin: "500 millis", afterTerm: "1 second" }
  })
const everythingOptions: McpClient.McpClientOptions = { name: "everything", protocolVersion: "2025-11-25" }

const calls = [
  ["echo", { message: "hi" }],
  ["get-sum", { a: 2, b: 3 }],
  ["get-structured-content", { location: "Chicago" }],
  ["get-annotated-message", { messageType: "success" }],
  ["no-such-tool", {}]
] as const

/** A promise's outcome, to compare a begun call with its effect. */
const settled = <A>(promise: Promise<A>) =>
  promise.then(
    (value) => ({ ok: value }),
    (error: unknown) => ({ error })
  )

describe("PromiseClient against the reference server (stdio)", () => {
  it("once the tool list is cached, calls start no fiber and give what the client's effects give", async () => {
    const starts = new Starts()
    const mcp = await PromiseClient.connect(counted(everything(), starts), everythingOptions)
    try {
      // The first call lists the tools and loads the JSON Schema engine (its effect's way); the
      // server changes its tool list once it is connected, so the list is fetched again after.
      await mcp.callTool("echo", { message: "warm" })
      await mcp.listTools()
      const before = starts.count
      const begun = []
      for (const [tool, args] of calls) begun.push(await settled(mcp.callTool(tool, args)))
      const concurrent = await Promise.all(
        Array.from({ length: 20 }, (_, i) => mcp.callTool("get-sum", { a: i, b: 1 }))
      )
      expect(starts.count - before).toBe(0)

      const effects = []
      for (const [tool, args] of calls)
        begun.length > 0 && effects.push(await settled(mcp.run((client) => client.callTool(tool, args))))
      expect(starts.count - before).toBeGreaterThanOrEqual(calls.length)
      expect(begun).toStrictEqual(effects)
      expect(begun[0]).toMatchObject({ ok: { content: [{ type: "text", text: "Echo: hi" }] } })
      expect(begun[2]).toMatchObject({ ok: { structuredContent: expect.any(Object) } })
      expect(concurrent.map((result) => result.content[0])).toStrictEqual(
        Array.from({ length: 20 }, (_, i) => expect.objectContaining({ text: expect.stringContaining(`${i + 1}`) }))
      )
      expect(await mcp.run((client) => client.stats)).toMatchObject({ pending: 0 })
    } finally {
      await mcp.close()
    }
    expect(children().filter((line) => line.includes(everythingServer))).toStrictEqual([])
  })

  it("rejects with the client's typed errors, begun or not", async () => {
    const mcp = await PromiseClient.connect(everything(), everythingOptions)
    try {
      await mcp.listTools()
      await expect(mcp.request("prompts/get", { name: "no-such-prompt" })).rejects.toMatchObject({
        _tag: "RpcError",
        server: "everything",
        method: "prompts/get"
      })
      // Arguments that do not match the inputSchema never leave (the effect's way says where).
      await expect(mcp.callTool("get-sum", { a: "two", b: 3 })).rejects.toMatchObject({
        _tag: "InvalidInput",
        tool: "get-sum",
        pointer: "/a"
      })
      await expect(mcp.callTool("echo", { message: "still fine" })).resolves.toMatchObject({
        content: [{ type: "text", text: "Echo: still fine" }]
      })
    } finally {
      await mcp.close()
    }
  })

  it("progress reaches a plain callback, and an aborted call rejects with its signal's reason", async () => {
    const mcp = await PromiseClient.connect(everything(), everythingOptions)
    try {
      await mcp.listTools()
      await mcp.callTool("echo", { message: "warm" })
      const seen: Array<number> = []
      await mcp.callTool(
        "trigger-long-running-operation",
        { duration: 0.2, steps: 2 },
        { onProgress: (progress) => void seen.push(progress.progress) }
      )
      expect(seen).toStrictEqual([1, 2])

      const controller = new AbortController()
      const call = mcp.callTool(
        "trigger-long-running-operation",
        { duration: 60, steps: 60 },
        { signal: controller.signal }
      )
      controller.abort(new Error("the user gave up"))
      await expect(call).rejects.toThrow("the user gave up")
      expect(await mcp.run((client) => client.stats)).toMatchObject({ pending: 0 })
      const aborted = new AbortController()
      aborted.abort("before")
      await expect(mcp.callTool("echo", { message: "x" }, { signal: aborted.signal })).rejects.toBe("before")
    } finally {
      await mcp.close()
    }
  })

  it("a handshake that fails rejects connect with its typed error, and leaves no process", async () => {
    const layer = NodeStdioTransport.layer({
      command: process.execPath,
      args: ["-e", "process.exit(3)"],
      name: "nothing"
    })
    await expect(
      PromiseClient.connect(layer, { name: "nothing", protocolVersion: "2025-11-25" })
    ).rejects.toMatchObject({ _tag: "TransportError", server: "nothing" })
    expect(children().filter((line) => line.includes("process.exit(3)"))).toStrictEqual([])
    // A server that lives on and never answers: only the disposed runtime ends it.
    const silent = NodeStdioTransport.layer({
      command: process.execPath,
      args: ["-e", "process.stdin.resume()"],
      name: "silent"
    })
    await expect(
      PromiseClient.connect(silent, { name: "silent", protocolVersion: "2025-11-25", requestTimeout: "300 millis" })
    ).rejects.toMatchObject({ _tag: "RequestTimeout", server: "silent", method: "initialize" })
    expect(children().filter((line) => line.includes("process.stdin.resume()"))).toStrictEqual([])
  })

  it("make: a client over a transport's scoped effect, with no layer; close or a failed handshake leaves no process", async () => {
    // Only the silent server has a short timeout: the reference server may take long to start.
    const made = (name: string, args: ReadonlyArray<string>, requestTimeout: Duration.DurationInput) =>
      PromiseClient.make(
        Effect.map(NodeStdioTransport.make({ command: process.execPath, args, name }), ([transport]) => transport),
        { name, protocolVersion: "2025-11-25", requestTimeout }
      )
    const mcp = await made("everything", [everythingServer, "stdio"], "60 seconds")
    const sum = await mcp.callTool("get-sum", { a: 2, b: 3 })
    expect(JSON.stringify(sum.content)).toContain("5")
    await expect(mcp.request("resources/read", { uri: "nothing://here" })).rejects.toMatchObject({
      _tag: "RpcError",
      server: "everything"
    })
    await mcp.close()
    await mcp.close()
    expect(children().filter((line) => line.includes(everythingServer))).toStrictEqual([])
    await expect(mcp.callTool("get-sum", { a: 1, b: 1 })).rejects.toMatchObject({ _tag: "SessionUnavailable" })
    // A server that lives on and never answers: only the closed scope ends it.
    await expect(made("silent", ["-e", "process.stdin.resume()"], "300 millis")).rejects.toMatchObject({
      _tag: "RequestTimeout",
      server: "silent",
      method: "initialize"
    })
    expect(children().filter((line) => line.includes("process.stdin.resume()"))).toStrictEqual([])
  })
})
