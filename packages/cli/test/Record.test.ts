/**
 * `--record FILE` and `effect-mcp replay FILE` (issue 31, beyond the rivals): a session's traffic
 * written with its secrets masked, and played back as a server; the parts as functions, the whole on
 * the real binary against the reference server.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import type { JsonRpc } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import { authorizationServer, resourceServer, TokenRegistry } from "../../client/test/support/authServers.js"
import { type RunningServer, startEverything } from "../../client/test/support/httpServers.js"
import { MASK, masked, parse, secretValues } from "../src/internal/recording.js"
import { player } from "../src/internal/replay.js"
import { bin, eventually, everything, everythingStdio, run, start } from "./support/cli.js"

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

describe("masking the values given to the server", () => {
  it("masks every given value wherever it is in a text, a part of it too, and keeps the envelope", () => {
    const secrets = secretValues({
      env: { GITHUB_TOKEN: "ghp_abc123", DEBUG: "1", API_KEY: "k9" },
      headers: { Authorization: "Bearer tok-777", "X-Tenant": "acme-corp" },
      inherited: { AWS_SECRET_ACCESS_KEY: 'aws/s3cr"et', PATH: "/usr/bin" }
    })
    expect([...secrets].sort()).toStrictEqual(
      ["ghp_abc123", "k9", "Bearer tok-777", "acme-corp", "tok-777", 'aws/s3cr"et'].sort()
    )
    expect(
      masked(
        {
          content: [{ type: "text", text: '{"GITHUB_TOKEN":"ghp_abc123","A":"aws/s3cr\\"et","n":1}' }],
          note: "for acme-corp, with tok-777"
        },
        secrets
      )
    ).toStrictEqual({
      content: [{ type: "text", text: `{"GITHUB_TOKEN":"${MASK}","A":"${MASK}","n":1}` }],
      note: `for ${MASK}, with ${MASK}`
    })
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

/** The recording's text, once the run has written it. */
const recordingOf = (file: string) => readFileSync(file, "utf8")

const recordFile = () => join(mkdtempSync(join(tmpdir(), "effect-mcp-record-")), "session.ndjson")

/** A config file with these servers, and where to record beside it. */
const withConfig = (mcpServers: Record<string, unknown>) => {
  const dir = mkdtempSync(join(tmpdir(), "effect-mcp-record-"))
  const config = join(dir, "mcp.json")
  writeFileSync(config, JSON.stringify({ mcpServers }))
  return { config, file: join(dir, "session.ndjson") }
}

describe("--record masks every value given to the server, wherever it appears", () => {
  let web: RunningServer | undefined
  beforeAll(async () => {
    web = await startEverything("streamableHttp")
  })
  afterAll(async () => {
    await web?.stop()
  })

  it("an --env value, in the reference server's get-env result", async () => {
    const file = recordFile()
    const token = "ghp_recorded0123456789abcdef"
    const live = await run([
      "tools",
      "call",
      "get-env",
      "--env",
      `GITHUB_TOKEN=${token}`,
      "--record",
      file,
      ...everythingStdio
    ])
    expect(live.code, live.stderr).toBe(0)
    expect(live.stdout).toContain(token)
    expect(recordingOf(file)).not.toContain(token)
    expect(recordingOf(file)).toContain(`GITHUB_TOKEN\\": \\"${MASK}\\"`)
  })

  it("a config entry's env value (expanded from a variable), in get-env", async () => {
    const value = "expanded-service-value-42"
    const { config, file } = withConfig({
      everything: { command: process.execPath, args: [everything, "stdio"], env: { SERVICE_VALUE: "${RECORD_VALUE}" } }
    })
    const live = await run(
      ["tools", "call", "get-env", "--server", "everything", "--config", config, "--record", file],
      {
        env: { RECORD_VALUE: value }
      }
    )
    expect(live.code, live.stderr).toBe(0)
    expect(live.stdout).toContain(value)
    expect(recordingOf(file)).not.toContain(value)
  })

  it("a --header value, in a request and in the result that echoes it", async () => {
    const file = recordFile()
    const key = "hdr-secret-5551212"
    const live = await run([
      "tools",
      "call",
      "echo",
      `message=${key}`,
      "--url",
      `${web?.origin}/mcp`,
      "--header",
      `X-Api-Key: ${key}`,
      "--record",
      file
    ])
    expect(live.code, live.stderr).toBe(0)
    expect(live.stdout).toContain(key)
    expect(recordingOf(file)).not.toContain(key)
    expect(recordingOf(file)).toContain(`Echo: ${MASK}`)
  })

  it("a config entry's header (its credentials after the scheme too), in a request and a result", async () => {
    const token = "cfg-bearer-8675309"
    const { config, file } = withConfig({
      web: { type: "http", url: `${web?.origin}/mcp`, headers: { Authorization: "Bearer ${WEB_TOKEN}" } }
    })
    const live = await run(
      ["tools", "call", "echo", `message=${token}`, "--server", "web", "--config", config, "--record", file],
      { env: { WEB_TOKEN: token } }
    )
    expect(live.code, live.stderr).toBe(0)
    expect(recordingOf(file)).not.toContain(token)
  })

  it.scopedLive("an OAuth access token and refresh token from the token file, in a request", () =>
    Effect.gen(function* () {
      const registry = new TokenRegistry()
      const authorization = yield* authorizationServer(registry, { expiresIn: 3600 })
      const resource = yield* resourceServer(registry, { authorizationServer: () => authorization.origin })
      const dir = mkdtempSync(join(tmpdir(), "effect-mcp-record-"))
      const tokenFile = join(dir, "oauth.json")
      const env = { EFFECT_MCP_TOKEN_FILE: tokenFile }
      const url = `${resource.origin}/mcp`
      // Logged in as a browser would: the authorization server approves and redirects to the listener.
      const login = start(["auth", "login", "--url", url, "--no-browser"], { env })
      const pattern = /(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)/
      yield* Effect.promise(() => eventually(() => pattern.test(login.stderr()), "the authorization URL"))
      yield* Effect.promise(() => fetch(pattern.exec(login.stderr())?.[1] ?? "").then((page) => page.text()))
      const loggedIn = yield* Effect.promise(() => login.finished)
      expect(loggedIn.code, loggedIn.stderr).toBe(0)
      const stored = Object.entries(
        (JSON.parse(readFileSync(tokenFile, "utf8")) as { entries: Record<string, string> }).entries
      ).flatMap(([key, value]) =>
        key.startsWith("tokens/") ? [JSON.parse(value) as { access_token: string; refresh_token?: string }] : []
      )
      const tokens = stored.flatMap((entry) => [
        entry.access_token,
        ...(entry.refresh_token === undefined ? [] : [entry.refresh_token])
      ])
      expect(tokens.length).toBeGreaterThan(0)
      const file = join(dir, "session.ndjson")
      const call = yield* Effect.promise(() =>
        run(["tools", "call", "secret", `note=${tokens.join(" ")}`, "--url", url, "--record", file], { env })
      )
      expect(call.code, call.stderr).toBe(0)
      const recording = recordingOf(file)
      expect(recording).toContain('"name":"secret"')
      for (const token of tokens) expect(recording).not.toContain(token)
    })
  )
})
