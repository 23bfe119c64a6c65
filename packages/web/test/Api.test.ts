/**
 * The page's server against real servers: the reference server over stdio and a second one over
 * Streamable HTTP at once. What a page does, through its routes and its event stream: both
 * servers listed with their tools; a call with its result; the long operation's progress, then
 * Cancel (the server is told); an elicitation answered; sampling answered by hand; the trace with
 * the call both ways; the stdio server's stderr; a chat turn with a scripted model that calls a
 * tool, event by event; the conversation kept across a restart.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { asSchema, readUIMessageStream, uiMessageChunkSchema } from "ai"
import { scriptedModel } from "../../ai/test/support/scriptedModel.js"
import { type RunningServer, startEverything } from "../../client/test/support/httpServers.js"
import type * as Api from "../src/Api.js"
import { type Events, is, open } from "./support/events.js"
import { everythingStdio, http, type Started, start } from "./support/page.js"

const stateDir = mkdtempSync(join(tmpdir(), "web-api-"))
const model = scriptedModel({
  turns: [
    () => ({
      text: "Let me echo that. ",
      calls: [{ name: "everything__echo", params: { message: "from the model" } }]
    }),
    () => ({ text: "The server said: Echo: from the model" }),
    () => ({ text: "Once more. ", calls: [{ name: "everything__echo", params: { message: "for the AI SDK" } }] }),
    () => ({ text: "Done for the AI SDK." })
  ],
  samples: [() => ({ text: "the model's haiku" })]
})
let httpServer: RunningServer
let page: Started
let events: Events

const secretHeaders = { Authorization: "Bearer tok-abcdef123456", "X-Team": "team-secret-7890" }
const servers = () => [everythingStdio("everything"), http("remote", `${httpServer.origin}/mcp`, secretHeaders)]

beforeAll(async () => {
  httpServer = await startEverything("streamableHttp")
  page = await start({ servers: servers(), model: model.layer, stateDir, secrets: Object.values(secretHeaders) })
  events = await open(page.origin, page.token)
})
afterAll(async () => {
  events?.close()
  await page?.stop()
  await httpServer?.stop()
})

const api = async <A = unknown>(path: string, body?: unknown): Promise<A> => {
  const response = await fetch(`${page.origin}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${page.token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await response.text()
  if (!response.ok) throw new Error(`${path} answered ${response.status}: ${text}`)
  return JSON.parse(text) as A
}

const ready = (names: ReadonlyArray<string>) =>
  is("Servers", (event) =>
    names.every((name) => event.servers.some((server) => server.name === name && server.status === "ready"))
  )

const textOf = (result: unknown) =>
  JSON.stringify((result as { content?: ReadonlyArray<{ text?: string }> }).content?.map((block) => block.text))

describe("the servers", () => {
  it("are listed with their state, and each one's tools", async () => {
    await events.waitFor(ready(["everything", "remote"]), 30_000)
    const state = await api<Api.State>("/api/state")
    expect(state.servers.map((server) => [server.name, server.status, server.transport])).toEqual([
      ["everything", "ready", "stdio"],
      ["remote", "ready", "http"]
    ])
    expect(state.servers[0]?.target).toContain("index.js stdio")
    for (const name of ["everything", "remote"]) {
      const lists = await api<Api.Lists>(`/api/servers/${name}/lists`)
      const tools = lists.tools.map((tool) => (tool as { name: string }).name)
      expect(tools).toContain("echo")
      expect(tools).toContain("trigger-long-running-operation")
      expect(lists.prompts.length).toBeGreaterThan(0)
      expect(lists.errors).toEqual({})
    }
  })

  it("show a stdio server's stderr in its console", async () => {
    const lines = await api<ReadonlyArray<Api.ConsoleLine>>("/api/servers/everything/console")
    expect(lines.map((line) => line.line)).toContain("Starting default (STDIO) server...")
  })

  it("answer roots/list with the page's roots, and tell the servers when they change", async () => {
    const state = await api<Api.State>("/api/state")
    expect(state.pending).toEqual([])
    expect(state.roots).toEqual([{ uri: "file:///tmp", name: "tmp" }])
    await api("/api/roots", { roots: [{ uri: "file:///srv/project", name: "project" }] })
    await events.waitFor(is("RootsChanged"))
    await events.waitFor(
      is(
        "Trace",
        (event) => event.entry.dir === "send" && JSON.stringify(event.entry.message).includes("file:///srv/project")
      )
    )
    await expect(api("/api/roots", { roots: [{ uri: "http://not-a-file" }] })).rejects.toThrow(/400/)
  })
})

describe("a tool call from the page", () => {
  it("gives its result, and the trace has the request and its response", async () => {
    const { callId } = await api<{ callId: string }>("/api/servers/remote/call", {
      tool: "echo",
      arguments: { message: "hi" },
      callId: "echo1"
    })
    expect(callId).toBe("echo1")
    const ended = await events.waitFor(is("CallEnded", (event) => event.callId === "echo1"))
    expect(ended.outcome).toBe("result")
    expect(textOf(ended.result)).toContain("Echo: hi")
    const trace = await api<ReadonlyArray<Api.TraceEntry>>("/api/servers/remote/trace")
    const request = trace.find(
      (entry) => entry.dir === "send" && (entry.message as { method?: string }).method === "tools/call"
    )
    expect(request).toBeDefined()
    const id = request === undefined ? undefined : (request.message as { id: unknown }).id
    const response = trace.find(
      (entry) =>
        entry.dir === "receive" &&
        !("method" in (entry.message as object)) &&
        (entry.message as { id?: unknown }).id === id
    )
    expect(response?.latency).toBeGreaterThanOrEqual(0)
    expect(response?.size).toBeGreaterThan(10)
  })

  it("draws progress as it comes, and Cancel stops it on the server", async () => {
    await api("/api/servers/everything/call", {
      tool: "trigger-long-running-operation",
      arguments: { duration: 30, steps: 30 },
      callId: "long1"
    })
    const first = await events.waitFor(is("CallProgress", (event) => event.callId === "long1"))
    expect(first.total).toBe(30)
    await api("/api/calls/long1/cancel", {})
    const ended = await events.waitFor(is("CallEnded", (event) => event.callId === "long1"))
    expect(ended.outcome).toBe("cancelled")
    const trace = await api<ReadonlyArray<Api.TraceEntry>>("/api/servers/everything/trace")
    expect(
      trace.some(
        (entry) => entry.dir === "send" && (entry.message as { method?: string }).method === "notifications/cancelled"
      )
    ).toBe(true)
  })

  it("shows an elicitation under the call it came during, and sends the answer given", async () => {
    await api("/api/servers/everything/call", { tool: "trigger-elicitation-request", arguments: {}, callId: "ask1" })
    const input = await events.waitFor(is("Input", (event) => event.request.kind === "elicitation-form"))
    expect(input.request.callId).toBe("ask1")
    expect(input.request.server).toBe("everything")
    expect(JSON.stringify(input.request.params)).toContain("requestedSchema")
    const state = await api<Api.State>("/api/state")
    expect(state.pending.map((request) => request.id)).toEqual([input.request.id])
    await api(`/api/input/${input.request.id}`, {
      _tag: "Result",
      result: { action: "accept", content: { name: "Ada Lovelace" } }
    })
    await events.waitFor(is("InputSettled", (event) => event.id === input.request.id))
    const ended = await events.waitFor(is("CallEnded", (event) => event.callId === "ask1"))
    expect(textOf(ended.result)).toContain("Ada Lovelace")
  })

  it("sends an answer that is not an elicitation result back as an error, not as a result", async () => {
    await api("/api/servers/everything/call", { tool: "trigger-elicitation-request", arguments: {}, callId: "ask2" })
    const input = await events.waitFor(is("Input", (event) => event.request.callId === "ask2"))
    await api(`/api/input/${input.request.id}`, { _tag: "Result", result: { action: "maybe" } })
    await events.waitFor(is("CallEnded", (event) => event.callId === "ask2"))
    const trace = await api<ReadonlyArray<Api.TraceEntry>>("/api/servers/everything/trace")
    const message = (entry: Api.TraceEntry) =>
      entry.message as { id?: unknown; method?: string; error?: { message: string } }
    const asked = trace
      .filter((entry) => entry.dir === "receive" && message(entry).method === "elicitation/create")
      .at(-1)
    const answers = trace.filter(
      (entry) =>
        entry.dir === "send" &&
        message(entry).method === undefined &&
        asked !== undefined &&
        message(entry).id === message(asked).id
    )
    expect(answers.map((entry) => message(entry).error?.message)).toEqual([
      expect.stringMatching(/the answer given in the page is not valid/)
    ])
  })

  it("answers sampling with what the user wrote", async () => {
    await api("/api/servers/everything/call", {
      tool: "trigger-sampling-request",
      arguments: { prompt: "a haiku", maxTokens: 50 },
      callId: "sample1"
    })
    const input = await events.waitFor(is("Input", (event) => event.request.kind === "sampling"))
    expect(input.request.callId).toBe("sample1")
    await api(`/api/input/${input.request.id}`, {
      _tag: "Result",
      result: {
        role: "assistant",
        content: { type: "text", text: "old pond, a frog" },
        model: "human",
        stopReason: "endTurn"
      }
    })
    const ended = await events.waitFor(is("CallEnded", (event) => event.callId === "sample1"))
    expect(JSON.stringify(ended.result)).toContain("old pond, a frog")
  })

  it("answers sampling with the chat's model when the user asks it to", async () => {
    await api("/api/servers/everything/call", {
      tool: "trigger-sampling-request",
      arguments: { prompt: "a haiku", maxTokens: 50 },
      callId: "sample2"
    })
    const input = await events.waitFor(is("Input", (event) => event.request.callId === "sample2"))
    await api(`/api/input/${input.request.id}`, { _tag: "AskModel" })
    const ended = await events.waitFor(is("CallEnded", (event) => event.callId === "sample2"))
    expect(JSON.stringify(ended.result)).toContain("the model's haiku")
    const generated = model.received.filter((request) => request.mode === "generate")
    expect(JSON.stringify(generated.at(-1)?.request.prompt)).toContain("a haiku")
  })

  it("refuses to ask the model about an elicitation (404), which stays waiting", async () => {
    await api("/api/servers/everything/call", { tool: "trigger-elicitation-request", arguments: {}, callId: "ask3" })
    const input = await events.waitFor(is("Input", (event) => event.request.callId === "ask3"))
    await expect(api(`/api/input/${input.request.id}`, { _tag: "AskModel" })).rejects.toThrow(
      /404.*no model can answer/
    )
    expect((await api<Api.State>("/api/state")).pending.map((request) => request.id)).toContain(input.request.id)
    await api(`/api/input/${input.request.id}`, { _tag: "Result", result: { action: "decline" } })
    await events.waitFor(is("CallEnded", (event) => event.callId === "ask3"))
  })

  it("fails a call to an unknown tool with its error, and one to an unknown server with 404", async () => {
    await api("/api/servers/everything/call", { tool: "no-such-tool", arguments: {}, callId: "bad1" })
    const ended = await events.waitFor(is("CallEnded", (event) => event.callId === "bad1"))
    expect(["error", "result"]).toContain(ended.outcome)
    await expect(api("/api/servers/nobody/lists")).rejects.toThrow(/404/)
  })
})

describe("tasks and skills", () => {
  it("runs a tool that requires a task as one: its status, then its result; the task is listed", async () => {
    await api("/api/servers/everything/call", {
      tool: "simulate-research-query",
      arguments: { topic: "tide pools" },
      callId: "task1"
    })
    const status = await events.waitFor(is("CallTask", (event) => event.callId === "task1"))
    expect(status.server).toBe("everything")
    const taskId = (status.task as { taskId: string }).taskId
    const ended = await events.waitFor(
      is("CallEnded", (event) => event.callId === "task1"),
      60_000
    )
    expect(ended.outcome).toBe("result")
    expect(textOf(ended.result)).toMatch(/tide pools/i)
    const { tasks } = await api<{ tasks: ReadonlyArray<{ taskId: string; status: string }> }>(
      "/api/servers/everything/tasks"
    )
    expect(tasks.find((task) => task.taskId === taskId)?.status).toBe("completed")
  })

  it("lists no skills for a server without the extension", async () => {
    expect(await api("/api/servers/everything/skills")).toEqual({ skills: [] })
  })
})

describe("the chat", () => {
  it("runs a turn through the tool loop, drawn event by event", async () => {
    const { turnId } = await api<{ turnId: string }>("/api/chat", { text: "echo something" })
    await events.waitFor(is("Chat", (event) => event.message._tag === "Done" && event.message.turnId === turnId))
    const tags = events.seen
      .filter(
        (event): event is Extract<Api.Event, { _tag: "Chat" | "ChatDelta" }> =>
          event._tag === "Chat" || event._tag === "ChatDelta"
      )
      .filter((event) => (event._tag === "Chat" ? event.message.turnId : event.turnId) === turnId)
      .map((event) => (event._tag === "Chat" ? event.message._tag : "Delta"))
    // The user's message, the first words, the tool call starting and ending, the answer, done.
    expect(tags[0]).toBe("User")
    expect(tags.indexOf("Assistant")).toBeGreaterThan(0)
    expect(tags.indexOf("Tool")).toBeGreaterThan(tags.indexOf("Assistant"))
    expect(tags.lastIndexOf("Delta")).toBeGreaterThan(tags.lastIndexOf("Tool"))
    expect(tags.at(-1)).toBe("Done")
    const state = await api<Api.State>("/api/state")
    const tool = state.conversation.find((message) => message._tag === "Tool")
    expect(tool).toMatchObject({ name: "everything__echo", server: "everything", isError: false })
    expect(tool?._tag === "Tool" ? tool.result : "").toContain("Echo: from the model")
    const answers = state.conversation
      .filter((message) => message._tag === "Assistant")
      .map((message) => (message._tag === "Assistant" ? message.text : ""))
    expect(answers).toEqual(["Let me echo that. ", "The server said: Echo: from the model"])
  })

  it("tells a turn in the AI SDK's UI message stream format, which the AI SDK itself reads", async () => {
    const response = await fetch(`${page.origin}/api/chat/ui-stream`, {
      method: "POST",
      headers: { authorization: `Bearer ${page.token}`, "content-type": "application/json" },
      body: JSON.stringify({
        id: "chat-1",
        messages: [{ id: "m1", role: "user", parts: [{ type: "text", text: "echo for the AI SDK" }] }],
        trigger: "submit-message"
      })
    })
    expect(response.status).toBe(200)
    expect(response.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1")
    const text = await response.text()
    const frames = text
      .split("\n\n")
      .filter((frame) => frame.startsWith("data: "))
      .map((frame) => frame.slice(6))
    expect(frames.at(-1)).toBe("[DONE]")
    // Every chunk is one the AI SDK's own schema takes.
    const chunks = frames.slice(0, -1).map((frame) => JSON.parse(frame) as { type: string })
    for (const chunk of chunks) {
      const checked = await asSchema(uiMessageChunkSchema()).validate?.(chunk)
      expect(checked?.success, JSON.stringify(chunk)).toBe(true)
    }
    expect(chunks.map((chunk) => chunk.type)).toEqual([
      "start",
      "text-start",
      ...chunks
        .filter(
          (chunk) =>
            chunk.type === "text-delta" && chunks.indexOf(chunk) < chunks.findIndex((one) => one.type === "text-end")
        )
        .map(() => "text-delta"),
      "text-end",
      "tool-input-available",
      "tool-output-available",
      "text-start",
      ...chunks
        .filter(
          (chunk) =>
            chunk.type === "text-delta" &&
            chunks.indexOf(chunk) > chunks.findIndex((one) => one.type === "tool-output-available")
        )
        .map(() => "text-delta"),
      "text-end",
      "finish"
    ])
    // And the AI SDK's reader makes the message of it: text, the tool's part with its output, text.
    const stream = new ReadableStream({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk)
        controller.close()
      }
    })
    let last: { parts: ReadonlyArray<{ type: string; text?: string; output?: unknown }> } | undefined
    for await (const message of readUIMessageStream({ stream: stream as never })) last = message as never
    const parts = last?.parts.filter((part) => part.type !== "step-start") ?? []
    expect(parts.map((part) => part.type)).toEqual(["text", "dynamic-tool", "text"])
    expect(parts[0]?.text).toBe("Once more. ")
    expect(JSON.stringify(parts[1]?.output)).toContain("Echo: for the AI SDK")
    expect(parts[2]?.text).toBe("Done for the AI SDK.")
  })

  it("refuses a UI stream request without a user's text", async () => {
    const response = await fetch(`${page.origin}/api/chat/ui-stream`, {
      method: "POST",
      headers: { authorization: `Bearer ${page.token}`, "content-type": "application/json" },
      body: JSON.stringify({ messages: [{ role: "user", parts: [{ type: "file", url: "x" }] }] })
    })
    expect(response.status).toBe(400)
  })

  it("keeps the conversation across a restart of the command", async () => {
    events.close()
    await page.stop()
    page = await start({ servers: servers(), stateDir, secrets: Object.values(secretHeaders) })
    events = await open(page.origin, page.token)
    const state = await api<Api.State>("/api/state")
    expect(state.chat.available).toBe(false)
    expect(state.chat.hint).toMatch(/ANTHROPIC_API_KEY/)
    const turn = ["User", "Assistant", "Tool", "Assistant", "Done"]
    expect(state.conversation.map((message) => message._tag)).toEqual([...turn, ...turn])
  })
})

describe("an HTTP server's exchanges", () => {
  it("are recorded: each request's method, status, session id and protocol version, secrets masked", async () => {
    await events.waitFor(ready(["everything", "remote"]), 30_000)
    const exchanges = await api<ReadonlyArray<Api.ExchangeEntry>>("/api/servers/remote/exchanges")
    expect(exchanges.length).toBeGreaterThan(2)
    const posts = exchanges.filter((exchange) => exchange.method === "POST")
    expect(posts.every((exchange) => exchange.url === `${httpServer.origin}/mcp`)).toBe(true)
    expect(posts.map((exchange) => exchange.status)).toContain(200)
    expect(posts.some((exchange) => exchange.sessionId !== undefined)).toBe(true)
    expect(posts.some((exchange) => exchange.protocolVersion === "2025-11-25")).toBe(true)
    const headers = posts[0]?.requestHeaders ?? {}
    expect(headers.authorization).toBe("[masked]")
    expect(headers["x-team"]).toBe("[masked]")
    const everything = JSON.stringify([exchanges, await api("/api/servers/remote/trace")])
    expect(everything).not.toContain("tok-abcdef123456")
    expect(everything).not.toContain("team-secret-7890")
    // A stdio server has none.
    expect(await api("/api/servers/everything/exchanges")).toEqual([])
  })
})
