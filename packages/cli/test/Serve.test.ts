/**
 * `effect-mcp serve` on the built binary, used by the official SDK v1 client over stdio (as an
 * editor launches it), with the reference server behind it: the catalog under host-wide names,
 * calls with progress, the server's sampling, elicitation and roots requests answered by the SDK
 * client, logging, and what a client gets for bad input.
 */
import { spawn } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema
} from "@modelcontextprotocol/sdk/types.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bin, everything, run } from "./support/cli.js"
import { lastCall, recordWire } from "./support/wire.js"

const cwd = mkdtempSync(join(tmpdir(), "effect-mcp-serve-"))
const config = join(cwd, ".mcp.json")
/**
 * A server that tells which log levels it was set to (its tool `levels`), so that the test sees
 * what reached the server behind the gateway, not only what the gateway answered.
 */
const levelsServer = join(cwd, "levels-server.mjs")
writeFileSync(
  levelsServer,
  `import { createInterface } from "node:readline"
const levels = []
const write = (message) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\\n")
createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line)
  if (message.id === undefined) return
  const answer = (result) => write({ id: message.id, result })
  if (message.method === "initialize")
    return answer({
      protocolVersion: message.params.protocolVersion,
      capabilities: { tools: {}, logging: {} },
      serverInfo: { name: "levels", version: "0" }
    })
  if (message.method === "logging/setLevel") return levels.push(message.params.level), answer({})
  if (message.method === "tools/list")
    return answer({ tools: [{ name: "levels", inputSchema: { type: "object" } }] })
  if (message.method === "tools/call") return answer({ content: [{ type: "text", text: levels.join(",") }] })
  if (message.method === "ping") return answer({})
  write({ id: message.id, error: { code: -32601, message: "Method not found" } })
})
`
)
writeFileSync(
  config,
  JSON.stringify({
    mcpServers: {
      everything: { command: process.execPath, args: [everything, "stdio"] },
      levels: { command: process.execPath, args: [levelsServer] }
    }
  })
)

let client: Client
let stderr = ""
/** What the SDK client could not read: a line on stdout that is no JSON-RPC message lands here. */
const unreadable: Array<string> = []
const seen = { sampling: 0, elicitation: 0, roots: 0 }
/** Every message the gateway sent, as the client's transport read it (`support/wire.ts`). */
let wire: Array<unknown> = []

beforeAll(async () => {
  client = new Client(
    { name: "sdk-v1-editor", version: "1.0.0" },
    { capabilities: { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } } }
  )
  client.setRequestHandler(CreateMessageRequestSchema, async () => {
    seen.sampling++
    return { model: "test-model", role: "assistant", content: { type: "text", text: "sampled by the editor" } }
  })
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    seen.elicitation++
    expect(request.params.message).toBe("Please provide inputs for the following fields:")
    return { action: "accept", content: { name: "Ada from the editor" } }
  })
  client.setRequestHandler(ListRootsRequestSchema, async () => {
    seen.roots++
    return { roots: [{ uri: "file:///editor/project", name: "project" }] }
  })
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, "serve", "--config", config],
    cwd,
    stderr: "pipe"
  })
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  wire = recordWire(transport)
  // The SDK client reports a line it cannot parse (not JSON: SyntaxError; no JSON-RPC message:
  // ZodError) here and reads on: without this, it goes unseen.
  client.onerror = (error) => {
    if (error.name === "SyntaxError" || error.name === "ZodError") unreadable.push(String(error))
  }
  await client.connect(transport)
}, 60_000)

afterAll(async () => {
  await client?.close()
})

describe("effect-mcp serve, used by the official SDK v1 client over stdio", () => {
  it("initializes as one server with the gateway's capabilities", () => {
    expect(client.getServerVersion()?.name).toBe("effect-mcp-gateway")
    expect(client.getServerCapabilities()).toMatchObject({
      tools: { listChanged: true },
      resources: { subscribe: true },
      prompts: {},
      completions: {},
      logging: {}
    })
  })

  it("lists the servers' tools under host-wide names and routes a call", async () => {
    const { tools } = await client.listTools()
    const names = tools.map((tool) => tool.name)
    expect(names).toContain("everything__get-sum")
    expect(names).toContain("everything__echo")
    const sum = tools.find((tool) => tool.name === "everything__get-sum")
    expect(sum?.inputSchema.properties).toHaveProperty("a")
    const result = await client.callTool({ name: "everything__get-sum", arguments: { a: 2, b: 3 } })
    expect(JSON.stringify(result.content)).toContain("5")
  })

  it("an unknown tool is a JSON-RPC invalid-params error, and the gateway goes on serving", async () => {
    await expect(client.callTool({ name: "everything__nope", arguments: {} })).rejects.toMatchObject({ code: -32602 })
    await expect(client.callTool({ name: "nowhere", arguments: {} })).rejects.toMatchObject({ code: -32602 })
    await expect(client.ping()).resolves.toEqual({})
  })

  it("passes the server's progress on under the client's token, each before the call's result", async () => {
    for (let round = 0; round < 3; round++) {
      const progress: Array<number> = []
      const result = await client.callTool(
        { name: "everything__trigger-long-running-operation", arguments: { duration: 0.2, steps: 2 } },
        undefined,
        { onprogress: (event) => void progress.push(event.progress) }
      )
      expect(JSON.stringify(result.content)).toContain("completed")
      expect(lastCall(wire)).toEqual(["progress 1/2", "progress 2/2", "result"])
      // What the SDK client's onprogress hears: the last report, read with the result, it drops itself.
      expect([[1], [1, 2]]).toContainEqual(progress)
    }
  })

  it("resources, templates, reads and prompts pass through", async () => {
    const { resources } = await client.listResources()
    const document = resources.find((resource) => resource.uri.startsWith("demo://resource/static/document/"))
    expect(document).toBeDefined()
    const read = await client.readResource({ uri: document?.uri ?? "" })
    expect(read.contents[0]?.uri).toBe(document?.uri)
    const { resourceTemplates } = await client.listResourceTemplates()
    expect(resourceTemplates.map((template) => template.uriTemplate)).toContain(
      "demo://resource/dynamic/text/{resourceId}"
    )
    const { prompts } = await client.listPrompts()
    expect(prompts.map((prompt) => prompt.name)).toContain("everything__args-prompt")
    const prompt = await client.getPrompt({ name: "everything__args-prompt", arguments: { city: "Paris" } })
    expect(JSON.stringify(prompt.messages)).toContain("Paris")
    await expect(client.readResource({ uri: "demo://nowhere" })).rejects.toMatchObject({ code: -32002 })
  })

  it("completion is routed by the prompt's host-wide name", async () => {
    const { completion } = await client.complete({
      ref: { type: "ref/prompt", name: "everything__completable-prompt" },
      argument: { name: "department", value: "Eng" }
    })
    expect(completion.values).toContain("Engineering")
  })

  it("completion of a resource template's argument is routed to the server of the template", async () => {
    const complete = (value: string) =>
      client.complete({
        ref: { type: "ref/resource", uri: "demo://resource/dynamic/text/{resourceId}" },
        argument: { name: "resourceId", value }
      })
    expect((await complete("7")).completion.values).toStrictEqual(["7"])
    expect((await complete("x")).completion.values).toStrictEqual([])
    await expect(
      client.complete({
        ref: { type: "ref/resource", uri: "demo://nowhere/{id}" },
        argument: { name: "id", value: "1" }
      })
    ).rejects.toMatchObject({ code: -32602 })
  })

  it("the server's sampling, elicitation and roots requests are asked of the editor", async () => {
    const sampled = await client.callTool({
      name: "everything__trigger-sampling-request",
      arguments: { prompt: "hello", maxTokens: 10 }
    })
    expect(JSON.stringify(sampled.content)).toContain("sampled by the editor")
    const elicited = await client.callTool({ name: "everything__trigger-elicitation-request", arguments: {} })
    expect(JSON.stringify(elicited.content)).toContain("Name: Ada from the editor")
    const roots = await client.callTool({ name: "everything__get-roots-list", arguments: {} })
    expect(JSON.stringify(roots.content)).toContain("file:///editor/project")
    expect(seen.sampling).toBe(1)
    expect(seen.elicitation).toBe(1)
    expect(seen.roots).toBeGreaterThanOrEqual(1)
  })

  it("logging/setLevel is accepted and applied to the servers", async () => {
    await expect(client.setLoggingLevel("debug")).resolves.toEqual({})
    await expect(client.setLoggingLevel("error")).resolves.toEqual({})
    const levels = await client.callTool({ name: "levels__levels", arguments: {} })
    expect(levels.content).toEqual([{ type: "text", text: "debug,error" }])
  })

  it("writes nothing but protocol messages to stdout", async () => {
    // A round trip after everything else, so that whatever was written before it has been read.
    await expect(client.ping()).resolves.toEqual({})
    expect(unreadable).toEqual([])
    expect(stderr).not.toContain("Error")
  })
})

describe("effect-mcp serve, used by our own client at each era", () => {
  it("2026-07-28 (found by its server/discover probe, stateless: no initialize) and 2025-11-25 (pinned) both call through", async () => {
    const gateway = [process.execPath, bin, "serve", "--config", config]
    const info = await run(["info", "--json", "--", ...gateway], { cwd, timeoutMs: 60_000 })
    expect(JSON.parse(info.stdout)).toMatchObject({ protocolVersion: "2026-07-28", era: "stateless" })
    for (const version of ["2026-07-28", "2025-11-25"]) {
      const call = await run(
        ["tools", "call", "everything__get-sum", "a=1", "b=2", "--protocol-version", version, "--", ...gateway],
        { cwd, timeoutMs: 60_000 }
      )
      // The whole result, so that a failure shows stderr too (once on CI: exit 1, nothing printed).
      expect({ version, ...call }).toMatchObject({
        version,
        code: 0,
        stderr: "",
        stdout: "The sum of 1 and 2 is 3.\n"
      })
    }
  }, 120_000)
})

describe("effect-mcp serve, the reference server's requests to our own client at the default era (2026-07-28)", () => {
  const gateway = () => ["--", process.execPath, bin, "serve", "--config", config]
  const call = (...args: ReadonlyArray<string>) =>
    run(["tools", "call", ...args, ...gateway()], { cwd, timeoutMs: 60_000 })

  it("sampling is answered by --sampling-command in the client's input round, and the call finishes", async () => {
    const reply = JSON.stringify({
      role: "assistant",
      content: { type: "text", text: "from the command" },
      model: "sh"
    })
    const sampled = await call(
      "everything__trigger-sampling-request",
      "prompt=hi",
      "--sampling-command",
      `cat > /dev/null; echo '${reply}'`
    )
    expect({ ...sampled, stderr: sampled.stderr.split("\n")[0] }).toMatchObject({ code: 0, stderr: "" })
    expect(sampled.stdout).toMatch(/from the command/)
  }, 60_000)

  it("elicitation is asked (off a terminal: declined, said on stderr) and the call finishes with the answer", async () => {
    const elicited = await call("everything__trigger-elicitation-request")
    expect([elicited.code, elicited.stderr]).toEqual([0, expect.stringMatching(/declined \(not a terminal/)])
    expect(elicited.stdout).toMatch(/declined/)
  }, 60_000)

  it("roots are listed from --root", async () => {
    const root = mkdtempSync(join(tmpdir(), "effect-mcp-serve-root-"))
    const listed = await call("everything__get-roots-list", "--root", root)
    expect([listed.code, listed.stderr]).toEqual([0, ""])
    expect(listed.stdout).toContain(root)
  }, 60_000)
})

describe("effect-mcp serve, given bad input", () => {
  it("answers a line that is not JSON with -32700 and a value that is no message with -32600, then serves on", async () => {
    const child = spawn(process.execPath, [bin, "serve", "--config", config], { cwd, stdio: ["pipe", "pipe", "pipe"] })
    const lines: Array<unknown> = []
    let buffered = ""
    child.stdout.on("data", (chunk: Buffer) => {
      buffered += chunk.toString()
      const parts = buffered.split("\n")
      buffered = parts.pop() ?? ""
      for (const part of parts) if (part.trim() !== "") lines.push(JSON.parse(part))
    })
    const answered = (count: number) =>
      new Promise<void>((resolve, reject) => {
        const check = setInterval(() => {
          if (lines.length >= count) resolve(clearInterval(check))
        }, 20)
        child.once("exit", () => reject(new Error(`serve exited after ${lines.length} answers`)))
      })
    try {
      child.stdin.write("this is not json\n")
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 7, method: 42 })}\n`)
      child.stdin.write(
        `${JSON.stringify({
          jsonrpc: "2.0",
          id: 8,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } }
        })}\n`
      )
      await answered(3)
      expect(lines[0]).toEqual({ jsonrpc: "2.0", error: { code: -32700, message: "Parse error" } })
      expect(lines[1]).toEqual({ jsonrpc: "2.0", id: 7, error: { code: -32600, message: "Invalid request" } })
      expect(lines[2]).toMatchObject({ id: 8, result: { protocolVersion: "2025-06-18" } })
    } finally {
      child.stdin.end()
      await new Promise((resolve) => child.once("exit", resolve))
    }
  }, 60_000)
})
