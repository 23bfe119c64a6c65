/**
 * The protocol package on its own, against the real reference server over stdio: spawn
 * `@modelcontextprotocol/server-everything`, initialize, list its tools, call `echo`, and
 * decode every answer with the method table's Schemas. Plain Node I/O: the transports and
 * the client live in @effect-mcp/client.
 *
 *   npx tsx --conditions=@effect-mcp/source packages/protocol/examples/handshake.ts
 */
import { spawn } from "node:child_process"
import { createRequire } from "node:module"
import { createInterface } from "node:readline"
import * as Either from "effect/Either"
import { JsonRpc, Methods, ProtocolVersion } from "../src/index.js"

const server = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js")
const child = spawn(process.execPath, [server, "stdio"], { stdio: ["pipe", "pipe", "ignore"] })
const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()

let nextId = 0
const call = async <M extends Methods.RequestMethodName>(method: M, params: Methods.RequestParamsOf<M>) => {
  const id = ++nextId
  child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`)
  for (;;) {
    const line = await lines.next()
    if (line.done === true) throw new Error(`the server closed its output while ${method} was pending`)
    const message = JsonRpc.decodeMessage(JSON.parse(line.value))
    if (Either.isLeft(message) || !JsonRpc.isResultResponse(message.right) || message.right.id !== id) continue
    const result = Methods.decodeResult(method, message.right.result, "2025-11-25")
    if (Either.isLeft(result)) throw new Error(`${method}: ${result.left.message}`)
    return result.right
  }
}

const init = await call("initialize", {
  protocolVersion: ProtocolVersion.LATEST,
  capabilities: {},
  clientInfo: { name: "effect-mcp-example", version: "0.1.0" }
})
child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`)
console.log(`${init.serverInfo.name} ${init.serverInfo.version}, protocol ${init.protocolVersion}`)

const { tools } = await call("tools/list", {})
console.log(`${tools.length} tools: ${tools.map((tool) => tool.name).join(", ")}`)

const echoed = await call("tools/call", { name: "echo", arguments: { message: "hello from effect-mcp" } })
console.log(`echo → ${echoed.content.map((block) => (block.type === "text" ? block.text : block.type)).join(" ")}`)

child.stdin.end()
child.kill()
