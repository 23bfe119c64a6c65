/**
 * A client with no library: newline-delimited JSON over the child's pipes (a linear framer),
 * or JSON POSTs over node:http with a keep-alive agent. No validation at all: it approximates
 * what the transport itself allows.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { Agent, request } from "node:http"
import type { Client, Session, Target } from "./Client.js"

interface Reply {
  readonly result?: {
    readonly content?: ReadonlyArray<{ readonly type: string; readonly text?: string }>
    readonly tools?: ReadonlyArray<unknown>
  }
  readonly error?: { readonly message: string }
}

type Send = (message: object) => Promise<Reply>

const initialize = {
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1.0.0" } }
}

const stdioSender = (
  target: Extract<Target, { kind: "stdio" }>
): { send: Send; notify: (message: object) => void; child: ChildProcess } => {
  const child = spawn(target.command, [...target.args], { stdio: ["pipe", "pipe", "inherit"] })
  const waiting = new Map<number, (reply: Reply) => void>()
  let nextId = 1
  const chunks: Array<Buffer> = []
  child.stdout?.on("data", (chunk: Buffer) => {
    let start = 0
    let newline = chunk.indexOf(10)
    while (newline !== -1) {
      chunks.push(chunk.subarray(start, newline))
      const line = Buffer.concat(chunks).toString("utf8")
      chunks.length = 0
      const message = JSON.parse(line) as Reply & { id?: number }
      if (message.id !== undefined) {
        waiting.get(message.id)?.(message)
        waiting.delete(message.id)
      }
      start = newline + 1
      newline = chunk.indexOf(10, start)
    }
    if (start < chunk.length) chunks.push(chunk.subarray(start))
  })
  const write = (message: object) => child.stdin?.write(`${JSON.stringify(message)}\n`)
  return {
    child,
    notify: (message) => write({ jsonrpc: "2.0", ...message }),
    send: (message) =>
      new Promise((resolve) => {
        const id = nextId++
        waiting.set(id, resolve)
        write({ jsonrpc: "2.0", id, ...message })
      })
  }
}

const httpSender = (
  target: Extract<Target, { kind: "http" }>
): { send: Send; notify: (message: object) => void; agent: Agent } => {
  const agent = new Agent({ keepAlive: true })
  const url = new URL(target.url)
  let session: string | undefined
  let nextId = 1
  const post = (body: object) =>
    new Promise<string>((resolve, reject) => {
      const headers: Record<string, string> = {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25"
      }
      if (session !== undefined) headers["mcp-session-id"] = session
      const req = request(
        { host: url.hostname, port: url.port, path: url.pathname, method: "POST", agent, headers },
        (res) => {
          const id = res.headers["mcp-session-id"]
          if (typeof id === "string") session = id
          const parts: Array<Buffer> = []
          res.on("data", (chunk: Buffer) => parts.push(chunk))
          res.on("end", () => resolve(Buffer.concat(parts).toString("utf8")))
          res.on("error", reject)
        }
      )
      req.on("error", reject)
      req.end(JSON.stringify(body))
    })
  return {
    agent,
    notify: (message) => void post({ jsonrpc: "2.0", ...message }),
    send: async (message) => JSON.parse(await post({ jsonrpc: "2.0", id: nextId++, ...message })) as Reply
  }
}

const textLength = (reply: Reply) =>
  (reply.result?.content ?? []).reduce((sum, block) => sum + (block.text?.length ?? 0), 0)

/** The raw client. */
export const client: Client = {
  name: "raw",
  connect: async (target): Promise<Session> => {
    const sender = target.kind === "stdio" ? stdioSender(target) : httpSender(target)
    await sender.send(initialize)
    sender.notify({ method: "notifications/initialized" })
    const call = (name: string, args: object) =>
      sender.send({ method: "tools/call", params: { name, arguments: args } })
    return {
      list: async () => (await sender.send({ method: "tools/list" })).result?.tools?.length ?? 0,
      echo: async (message) => {
        await call("echo", { message })
      },
      blob: async (kb) => textLength(await call("blob", { kb })),
      sleep: async (ms) => {
        await call("sleep", { ms })
      },
      close: async () => {
        if ("child" in sender) {
          sender.child.stdin?.end()
          sender.child.kill()
        } else sender.agent.destroy()
      }
    }
  }
}
