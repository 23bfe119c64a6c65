/**
 * A scriptable HTTP server on 127.0.0.1 for transport fault tests: each test supplies the
 * handler; every request (method, headers, body) is recorded.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import * as Effect from "effect/Effect"
import { connectionsTo } from "./httpServers.js"

/** One request the server received. */
export interface Received {
  readonly method: string
  /** The request target (path and query). */
  readonly path: string
  /** The client's port: one per TCP connection. */
  readonly remotePort: number
  readonly headers: IncomingMessage["headers"]
  readonly body: unknown
  readonly at: number
}

/** A handler: answers one request (the parsed JSON body, if any, is given). */
export type Handler = (request: Received, response: ServerResponse, index: number) => void

/** Starts the server for the scope; returns its URL and what it received. */
export const faultServer = (handler: Handler) =>
  Effect.acquireRelease(
    Effect.async<{ readonly url: string; readonly received: Array<Received>; readonly port: number }>((resume) => {
      const received: Array<Received> = []
      const server = createServer((request, response) => {
        const chunks: Array<Buffer> = []
        request.on("data", (chunk: Buffer) => chunks.push(chunk))
        request.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8")
          let body: unknown
          try {
            body = text === "" ? undefined : JSON.parse(text)
          } catch {
            body = text
          }
          const entry: Received = {
            method: request.method ?? "",
            path: request.url ?? "",
            remotePort: request.socket.remotePort ?? 0,
            headers: request.headers,
            body,
            at: Date.now()
          }
          received.push(entry)
          handler(entry, response, received.length - 1)
        })
      })
      servers.add(server)
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        resume(Effect.succeed({ url: `http://127.0.0.1:${port}/mcp`, received, port }))
      })
    }),
    // Released after the client (acquired later): none of our connections may remain by then.
    ({ port }) =>
      Effect.sync(() => connectionsTo(port)).pipe(
        Effect.tap((open) =>
          open === 0 ? Effect.void : Effect.die(`${open} connection(s) to the test server left open`)
        ),
        Effect.ensuring(Effect.promise(() => closeAll()))
      )
  )

const servers = new Set<ReturnType<typeof createServer>>()
const closeAll = () =>
  Promise.all(
    [...servers].map(
      (server) =>
        new Promise<void>((resolve) => {
          servers.delete(server)
          server.closeAllConnections()
          server.close(() => resolve())
        })
    )
  )

/** Writes a JSON-RPC result for the request's id. */
export const json = (response: ServerResponse, body: unknown, headers: Record<string, string> = {}) => {
  response.writeHead(200, { "content-type": "application/json", ...headers })
  response.end(JSON.stringify(body))
}

/** The JSON-RPC request in a received body, if it is one. */
export const rpc = (request: Received): { id?: string | number; method?: string; params?: Record<string, unknown> } =>
  typeof request.body === "object" && request.body !== null
    ? (request.body as { id?: string | number; method?: string })
    : {}

/** The `initialize` result a fault server gives. */
export const initialized = (id: string | number | undefined) => ({
  jsonrpc: "2.0",
  id,
  result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "fault", version: "0" } }
})
