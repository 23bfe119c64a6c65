/**
 * The one-file client for Promise programs (`@effect-mcp/node/NodePromiseClient`), as a program
 * runs it: the built bundle, imported through the package's export in a fresh Node, against the
 * reference server over stdio and over Streamable HTTP on 127.0.0.1 (`npm test` builds first).
 * Its errors are instances of the bundle's classes, and `@effect-mcp/client`'s `isMcpError` (whose
 * copy of `effect` is another) recognises them by their brand, not by `instanceof`.
 */
import { spawnSync } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { type RunningServer, startEverything } from "../../client/test/support/httpServers.js"
import { everythingServer } from "../../client/test/support/processes.js"

const packageDir = fileURLToPath(new URL("..", import.meta.url))
const bundleDir = fileURLToPath(new URL("../dist/bundle/", import.meta.url))

/** Runs `body` in a fresh Node (in this package, without the source condition) after importing the entry as `mcp`. */
const inFreshNode = (body: string): unknown => {
  const script = `
    const resolved = import.meta.resolve("@effect-mcp/node/NodePromiseClient")
    const mcp = await import(resolved)
    const own = await import("@effect-mcp/client")
    const failure = (promise) => promise.then(() => "resolved", (error) => ({
      tag: error._tag,
      typed:
        error instanceof mcp.McpError[error._tag] &&
        !(error instanceof own.McpError[error._tag]) &&
        own.McpError.isMcpError(error) &&
        mcp.McpError.isMcpError(error)
    }))
    ${body}
  `
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    cwd: packageDir,
    encoding: "utf8",
    timeout: 60_000
  })
  expect(run.stderr).toBe("")
  return JSON.parse(run.stdout)
}

let http: RunningServer | undefined
beforeAll(async () => {
  http = await startEverything("streamableHttp")
})
afterAll(async () => {
  await http?.stop()
})

describe("NodePromiseClient", () => {
  it("the export is the bundle, which imports nothing but Node's built-ins and its own chunks", () => {
    const files = ["NodePromiseClient.js", ...readdirSync(`${bundleDir}chunks`).map((chunk) => `chunks/${chunk}`)]
    const imported = files.flatMap((file) =>
      Array.from(
        readFileSync(`${bundleDir}${file}`, "utf8").matchAll(/\bfrom\s*"([^"]+)"|\bimport\(\s*"([^"]+)"\s*\)/g),
        (match) => match[1] ?? match[2]
      )
    )
    expect(imported.filter((specifier) => !specifier?.startsWith("node:") && !specifier?.startsWith("./"))).toEqual([])
    const answer = inFreshNode(`console.log(JSON.stringify(resolved))`)
    expect(answer).toMatch(/\/dist\/bundle\/NodePromiseClient\.js$/)
  })

  it("over stdio: connects, calls, rejects a bad call with the client's typed error, closes", () => {
    const answer = inFreshNode(`
      const client = await mcp.connect({ command: process.execPath, args: [${JSON.stringify(everythingServer)}, "stdio"] })
      const echoed = await client.callTool("echo", { message: "one file" })
      const tools = (await client.listTools()).length > 0
      const invalid = await failure(client.callTool("echo", { message: 1 }))
      const unknown = await failure(client.request("resources/read", { uri: "nothing://here" }))
      await client.close()
      const closed = await failure(client.callTool("echo", { message: "late" }))
      console.log(JSON.stringify({ echoed: echoed.content[0].text, tools, invalid, unknown, closed }))
    `)
    expect(answer).toEqual({
      echoed: "Echo: one file",
      tools: true,
      invalid: { tag: "InvalidInput", typed: true },
      unknown: { tag: "RpcError", typed: true },
      closed: { tag: "SessionUnavailable", typed: true }
    })
  })

  it("over Streamable HTTP: connects, calls, closes", () => {
    const answer = inFreshNode(`
      const client = await mcp.connect({ url: ${JSON.stringify(`${http?.origin}/mcp`)}, transport: "http" })
      const sum = await client.callTool("get-sum", { a: 2, b: 3 })
      await client.close()
      console.log(JSON.stringify(sum.content[0].text))
    `)
    expect(answer).toBe("The sum of 2 and 3 is 5.")
  })

  it("a server that cannot be started rejects the connect with a TransportError", () => {
    const answer = inFreshNode(`
      console.log(JSON.stringify(await failure(mcp.connect({ command: "/nonexistent/effect-mcp-server" }))))
    `)
    expect(answer).toEqual({ tag: "TransportError", typed: true })
  })
})
