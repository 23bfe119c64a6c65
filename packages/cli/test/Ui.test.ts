/**
 * `effect-mcp ui`, the built binary: the address it prints (with its token) opens the page; the
 * page's chat runs on the model the config's `llm` entry names (the real Anthropic provider
 * against a loopback fake of its API), over every configured server's tools; a recording made
 * with `--record` is replayed as a server added from the page; an off-machine bind is refused
 * without the flag that says so loudly.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { eventually, everything, everythingStdio, run, type Started, start } from "./support/cli.js"
import { type FakeAnthropic, fakeAnthropic } from "./support/fakeAnthropic.js"
import { stopTestProcesses } from "./support/processes.js"

afterAll(() => stopTestProcesses())

interface Ui {
  readonly started: Started
  readonly origin: string
  readonly token: string
  readonly api: <A = unknown>(path: string, body?: unknown) => Promise<A>
}

/** Starts `effect-mcp ui` in `cwd` and reads the address it prints. */
const launch = async (cwd: string, args: ReadonlyArray<string>, env: Record<string, string> = {}): Promise<Ui> => {
  const started = start(["ui", "--no-open", "--state-dir", join(cwd, "state"), ...args], {
    cwd,
    env,
    timeoutMs: 120_000
  })
  await eventually(
    () => /effect-mcp ui: http:\/\/127\.0\.0\.1:\d+\/\?token=/.test(started.stdout()),
    "the address",
    60_000
  )
  const url = new URL(/http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+/.exec(started.stdout())?.[0] ?? "")
  const token = url.searchParams.get("token") ?? ""
  const api = async <A>(path: string, body?: unknown): Promise<A> => {
    const response = await fetch(new URL(path, url.origin), {
      method: body === undefined ? "GET" : "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    const text = await response.text()
    if (!response.ok) throw new Error(`${path}: ${response.status} ${text}`)
    return JSON.parse(text) as A
  }
  return { started, origin: url.origin, token, api }
}

const serversReady = (ui: Ui, count: number) =>
  (async () => {
    for (let waited = 0; waited < 60_000; waited += 100) {
      const state = await ui.api<{ servers: ReadonlyArray<{ status: string }> }>("/api/state")
      if (state.servers.length === count && state.servers.every((server) => server.status === "ready")) return state
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    throw new Error("the servers did not become ready")
  })()

describe("effect-mcp ui", () => {
  let fake: FakeAnthropic | undefined
  afterAll(() => fake?.stop())

  it("serves the page of the config's servers, and its chat runs on the config's llm", async () => {
    fake = await fakeAnthropic([
      () => ({ text: "Calling echo. ", calls: [{ name: "everything__echo", input: { message: "via the page" } }] }),
      () => ({ text: "It said Echo: via the page." })
    ])
    const dir = mkdtempSync(join(tmpdir(), "ui-"))
    writeFileSync(
      join(dir, ".mcp.json"),
      JSON.stringify({
        llm: {
          type: "anthropic",
          model: "fake-model",
          api_key_env: "UI_TEST_KEY",
          base_url: fake.url,
          system_prompt: "Be brief."
        },
        max_tool_calls: 3,
        mcpServers: { everything: { command: process.execPath, args: [everything, "stdio"] } }
      })
    )
    const ui = await launch(dir, [], { UI_TEST_KEY: "sk-test-not-real" })
    try {
      // The printed address trades its token for the cookie, then the page loads.
      const opened = await fetch(`${ui.origin}/?token=${ui.token}`, { redirect: "manual" })
      expect(opened.status).toBe(303)
      expect((await fetch(`${ui.origin}/api/state`)).status).toBe(401)
      const state = await serversReady(ui, 1)
      expect(state).toMatchObject({ chat: { available: true, model: "anthropic fake-model", maxToolCalls: 3 } })
      await ui.api("/api/chat", { text: "echo via the page" })
      const done = async () => {
        for (let waited = 0; waited < 30_000; waited += 100) {
          const now = await ui.api<{ conversation: ReadonlyArray<{ _tag: string; text?: string; result?: string }> }>(
            "/api/state"
          )
          if (now.conversation.some((message) => message._tag === "Done")) return now.conversation
          await new Promise((resolve) => setTimeout(resolve, 100))
        }
        throw new Error("the turn did not end")
      }
      const conversation = await done()
      expect(conversation.find((message) => message._tag === "Tool")?.result).toContain("Echo: via the page")
      expect(conversation.filter((message) => message._tag === "Assistant").map((message) => message.text)).toEqual([
        "Calling echo. ",
        "It said Echo: via the page."
      ])
      // The model was given the server's tools and the system prompt, with the key from the variable.
      expect(fake.requests[0]?.headers["x-api-key"]).toBe("sk-test-not-real")
      expect(JSON.stringify(fake.requests[0]?.body)).toContain("Be brief.")
      expect(fake.requests[0]?.body.tools?.map((tool) => tool.name)).toContain("everything__echo")
    } finally {
      ui.started.child.kill("SIGTERM")
      await ui.started.finished
    }
  }, 150_000)

  it("replays a recording as a server added from the page; a text that is no recording is refused", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ui-replay-"))
    const recording = join(dir, "session.jsonl")
    const recorded = await run(
      ["tools", "call", "echo", "message=recorded", "--record", recording, ...everythingStdio],
      {
        cwd: dir
      }
    )
    expect(recorded.code).toBe(0)
    const ui = await launch(dir, [])
    try {
      await expect(ui.api("/api/replay", { name: "bad", recording: "hello\n" })).rejects.toThrow(
        /400.*not an effect-mcp recording/
      )
      await ui.api("/api/replay", { name: "played", recording: readFileSync(recording, "utf8") })
      await serversReady(ui, 1)
      const { callId } = await ui.api<{ callId: string }>("/api/servers/played/call", {
        tool: "echo",
        arguments: { message: "recorded" }
      })
      expect(callId).toMatch(/\w+/)
      const trace = async () => {
        for (let waited = 0; waited < 20_000; waited += 100) {
          const entries =
            await ui.api<ReadonlyArray<{ dir: string; message: { result?: unknown } }>>("/api/servers/played/trace")
          const answered = entries.find(
            (entry) => entry.dir === "receive" && JSON.stringify(entry.message).includes("Echo: recorded")
          )
          if (answered !== undefined) return answered
          await new Promise((resolve) => setTimeout(resolve, 100))
        }
        throw new Error("no recorded answer")
      }
      expect(await trace()).toBeDefined()
    } finally {
      ui.started.child.kill("SIGTERM")
      await ui.started.finished
    }
  }, 150_000)

  it("adds a server from the page after showing its command line, and saves it to the config file asked", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ui-add-"))
    writeFileSync(join(dir, ".mcp.json"), JSON.stringify({ mcpServers: {} }))
    const ui = await launch(dir, [])
    try {
      const server = {
        name: "added",
        target: { _tag: "Stdio", command: process.execPath, args: [everything, "stdio"], env: {} }
      }
      const preview = await ui.api<{ added: boolean; preview: string }>("/api/servers", { ...server, confirm: false })
      expect(preview).toEqual({ added: false, preview: `${process.execPath} ${everything} stdio` })
      expect((await ui.api<{ servers: ReadonlyArray<unknown> }>("/api/state")).servers).toEqual([])
      const file = join(dir, ".mcp.json")
      await ui.api("/api/servers", { ...server, confirm: true, saveTo: file })
      await serversReady(ui, 1)
      expect(JSON.parse(readFileSync(file, "utf8")).mcpServers.added).toEqual({
        command: process.execPath,
        args: [everything, "stdio"]
      })
      // Disconnect stops it, connect starts it again.
      await ui.api("/api/servers/added/action", { action: "disconnect" })
      const stopped = await ui.api<{ servers: ReadonlyArray<{ status: string }> }>("/api/state")
      expect(stopped.servers[0]?.status).toBe("stopped")
      await ui.api("/api/servers/added/action", { action: "connect" })
      await serversReady(ui, 1)
    } finally {
      ui.started.child.kill("SIGTERM")
      await ui.started.finished
    }
  }, 150_000)

  it("refuses to listen off this machine without --expose-to-network", async () => {
    const refused = await run(["ui", "--no-open", "--host", "0.0.0.0"])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/--expose-to-network/)
  })
})
