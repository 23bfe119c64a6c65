/**
 * The one server every client is measured against, written with the official SDK's server
 * classes (v1): `echo`, `blob` (a result of N KB), `sleep` (answers after N ms) and a resource.
 * Over stdio (`node server.js stdio`) or Streamable HTTP on 127.0.0.1 (`node server.js http
 * <port>`, stateful sessions, JSON responses; `http-sse <port>`: each POST answered with an event
 * stream, as the gateway and mcp-proxy answer), printing `listening <port>` when ready.
 */

import { randomUUID } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { z } from "zod"

const blobs = new Map<number, string>()
const blobOf = (kb: number) => {
  let text = blobs.get(kb)
  if (text === undefined) {
    text = "x".repeat(kb * 1024)
    blobs.set(kb, text)
  }
  return text
}

/** A fresh server with the benchmark's tools and resource. */
export const makeServer = () => {
  const server = new McpServer({ name: "bench-server", version: "1.0.0" }, { capabilities: { resources: {} } })
  server.registerTool(
    "echo",
    { description: "Echoes its message", inputSchema: { message: z.string() } },
    async ({ message }) => ({
      content: [{ type: "text", text: message }]
    })
  )
  server.registerTool(
    "blob",
    { description: "Returns kb kilobytes of text", inputSchema: { kb: z.number() } },
    async ({ kb }) => ({
      content: [{ type: "text", text: blobOf(kb) }]
    })
  )
  server.registerTool(
    "sleep",
    { description: "Answers after ms milliseconds", inputSchema: { ms: z.number() } },
    async ({ ms }) => {
      await new Promise((resolve) => setTimeout(resolve, ms))
      return { content: [{ type: "text", text: "slept" }] }
    }
  )
  server.registerResource("readme", "bench://readme", { mimeType: "text/plain" }, async (uri) => ({
    contents: [{ uri: uri.href, text: "the benchmark server" }]
  }))
  return server
}

const readBody = (request: IncomingMessage) =>
  new Promise<unknown>((resolve, reject) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8")
      try {
        resolve(text === "" ? undefined : JSON.parse(text))
      } catch (error) {
        reject(error)
      }
    })
    request.on("error", reject)
  })

const serveHttp = (port: number, json: boolean) => {
  const sessions = new Map<string, StreamableHTTPServerTransport>()
  const http = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    try {
      const id = request.headers["mcp-session-id"]
      const known = typeof id === "string" ? sessions.get(id) : undefined
      const body = request.method === "POST" ? await readBody(request) : undefined
      if (known !== undefined) return await known.handleRequest(request, response, body)
      if (request.method !== "POST") {
        response.writeHead(405).end()
        return
      }
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: json,
        onsessioninitialized: (session) => {
          sessions.set(session, transport)
        }
      })
      transport.onclose = () => {
        if (transport.sessionId !== undefined) sessions.delete(transport.sessionId)
      }
      await makeServer().connect(transport)
      await transport.handleRequest(request, response, body)
    } catch (error) {
      if (!response.headersSent) response.writeHead(500).end(String(error))
    }
  })
  http.keepAliveTimeout = 60_000
  http.listen(port, "127.0.0.1", () => {
    const address = http.address()
    process.stdout.write(`listening ${typeof address === "object" && address !== null ? address.port : port}\n`)
  })
}

const [mode = "stdio", port = "0", startDelay = "0"] = process.argv.slice(2)
if (mode === "http" || mode === "http-sse") serveHttp(Number(port), mode === "http")
else {
  // A server that takes a while to start (loading a model, opening a database): `stdio <port> <ms>`.
  await new Promise((resolve) => setTimeout(resolve, Number(startDelay)))
  await makeServer().connect(new StdioServerTransport())
}
