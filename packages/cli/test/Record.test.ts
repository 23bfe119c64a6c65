/**
 * `--record FILE` and `effect-mcp replay FILE` (issue 31, beyond the rivals): a session's traffic
 * written with its secrets masked, and played back as a server; the parts as functions, the whole on
 * the real binary against the reference server.
 */
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import type { JsonRpc } from "@effect-mcp/protocol"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import { MASK, masked, parse } from "../src/internal/recording.js"
import { player } from "../src/internal/replay.js"
import { bin, everythingStdio, run } from "./support/cli.js"

const send = (message: JsonRpc.JSONRPCMessage, t = 0) => ({ t, dir: "send" as const, message })
const receive = (message: JsonRpc.JSONRPCMessage, t = 0) => ({ t, dir: "receive" as const, message })

describe("masking", () => {
  it("masks text under secret names at any depth, and nothing else", () => {
    expect(
      masked({
        arguments: { apiKey: "k", nested: [{ password: "p", Authorization: "Bearer x" }], note: "token" },
        _meta: { progressToken: "t-1" },
        inputSchema: { properties: { maxTokens: { type: "number" } } },
        maxTokens: 100
      })
    ).toStrictEqual({
      arguments: { apiKey: MASK, nested: [{ password: MASK, Authorization: MASK }], note: "token" },
      _meta: { progressToken: "t-1" },
      inputSchema: { properties: { maxTokens: { type: "number" } } },
      maxTokens: 100
    })
  })

  it.prop("no secret text survives, wherever it is", [FastCheck.string({ minLength: 1 })], ([secret]) => {
    expect(
      masked({ params: { arguments: { client_secret: secret, deep: [{ accessToken: secret }] }, note: secret } })
    ).toStrictEqual({ params: { arguments: { client_secret: MASK, deep: [{ accessToken: MASK }] }, note: secret } })
  })
})

describe("the player", () => {
  const lines = [
    send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "slow", _meta: { progressToken: 1 } } }),
    receive({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 1 } }),
    receive({ jsonrpc: "2.0", id: 1, result: { content: [] } }),
    receive({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "after" } }),
    send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "other" } }),
    receive({ jsonrpc: "2.0", id: 2, result: { content: [{ type: "text", text: "other" }] } })
  ]

  it("answers by method and target, with the caller's id and progress token, the server's messages around", () => {
    const play = player(lines)
    expect(
      play({ jsonrpc: "2.0", id: "a", method: "tools/call", params: { name: "slow", _meta: { progressToken: "p" } } })
    ).toStrictEqual([
      { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "p", progress: 1 } },
      { jsonrpc: "2.0", id: "a", result: { content: [] } },
      { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "after" } }
    ])
    expect(play({ jsonrpc: "2.0", id: "b", method: "tools/call", params: { name: "other" } })).toStrictEqual([
      { jsonrpc: "2.0", id: "b", result: { content: [{ type: "text", text: "other" }] } }
    ])
    // Used up: the last answer again; what the recording never held: -32601.
    expect(play({ jsonrpc: "2.0", id: "c", method: "tools/call", params: { name: "other" } })).toHaveLength(1)
    expect(play({ jsonrpc: "2.0", id: "d", method: "tools/call", params: { name: "missing" } })).toStrictEqual([
      { jsonrpc: "2.0", id: "d", error: { code: -32601, message: "tools/call is not in the recording" } }
    ])
    expect(play({ jsonrpc: "2.0", id: "e", method: "ping" })).toStrictEqual([{ jsonrpc: "2.0", id: "e", result: {} }])
    expect(play({ jsonrpc: "2.0", method: "notifications/initialized" })).toStrictEqual([])
  })

  it("a file that is not a recording is refused with the line that is wrong", () => {
    expect(parse('{"hello":1}\n')).toStrictEqual(
      Either.left("this is not an effect-mcp recording (its first line is not the header)")
    )
    const header = '{"recording":"effect-mcp","version":1,"server":"s","startedAt":"now"}'
    expect(parse(`${header}\n{"t":0,"dir":"send","message":{"nope":true}}\n`)).toStrictEqual(
      Either.left("line 2 is not a recorded message")
    )
  })
})

describe("--record and replay on the binary", () => {
  it("records a call with its secret masked, and the recording answers the same call again as a server", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "effect-mcp-record-")), "session.ndjson")
    const args = '{"message":"recorded","apiKey":"s3cret-value"}'
    const live = await run(["tools", "call", "echo", "--args", args, "--record", file, ...everythingStdio])
    expect(live.code, live.stderr).toBe(0)
    const recording = readFileSync(file, "utf8")
    expect(recording).not.toContain("s3cret-value")
    expect(recording).toContain('"apiKey":"[masked]"')
    expect(recording).toContain('"method":"server/discover"')
    const replayed = await run(["tools", "call", "echo", "--args", args, "--", process.execPath, bin, "replay", file])
    expect(replayed.code, replayed.stderr).toBe(0)
    expect(replayed.stdout).toBe(live.stdout)
    const other = await run(["tools", "call", "get-sum", "a=1", "b=2", "--", process.execPath, bin, "replay", file])
    expect(other.code).toBe(1)
    expect(other.stderr).toContain("tools/call is not in the recording")
  })
})
