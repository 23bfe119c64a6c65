/**
 * `effect-mcp generate` on the built binary against the reference server over stdio: the module
 * and the standalone program are written into a directory inside the repository (so they resolve
 * the workspace's packages), type-checked with the repository's `tsc` under the project's strict
 * settings, and used: the module's functions in this process against the reference server, the
 * program as a process. Then the failures: a server with no tools, an unreachable server, an
 * `--out` that cannot be written.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { McpClient, StdioTransport } from "@effect-mcp/client"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { everything, everythingStdio, run, startCommand } from "./support/cli.js"
import { typecheck } from "./support/typecheck.js"

const cliRoot = fileURLToPath(new URL("..", import.meta.url))
const repoRoot = join(cliRoot, "..", "..")
let dir = ""

beforeAll(() => {
  mkdirSync(join(cliRoot, "build"), { recursive: true })
  dir = mkdtempSync(join(cliRoot, "build", "generate-"))
})

afterAll(() => {
  if (dir !== "") rmSync(dir, { recursive: true, force: true })
})

/** A stdio server that declares tools and lists none (and answers nothing else). */
const NO_TOOLS = `
const write = (message) => process.stdout.write(JSON.stringify(message) + "\\n")
require("node:readline").createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line)
  if (message.id === undefined) return
  if (message.method === "initialize")
    return write({ jsonrpc: "2.0", id: message.id, result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "empty", version: "0" } } })
  if (message.method === "tools/list") return write({ jsonrpc: "2.0", id: message.id, result: { tools: [] } })
  write({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "Method not found" } })
})`

/** Runs a TypeScript program with `tsx` (the packages as built); its exit code and output. */
const runProgram = (file: string, args: ReadonlyArray<string>) =>
  startCommand(join(repoRoot, "node_modules", ".bin", "tsx"), [file, ...args], { cwd: dir, timeoutMs: 60_000 }).finished

/** What the test uses of the generated module: imported at run time, its types checked by `tsc` beside. */
interface Generated {
  readonly getSum: (input: {
    readonly a: number
    readonly b: number
  }) => Effect.Effect<McpClient.CallToolResult, Failure, McpClient.McpClient>
  readonly getStructuredContent: (input: {
    readonly location: string
  }) => Effect.Effect<{ readonly temperature: number }, Failure, McpClient.McpClient>
  readonly simulateResearchQuery: (input: {
    readonly topic: string
  }) => Effect.Effect<McpClient.CallToolResult, Failure, McpClient.McpClient>
  readonly getResourceLinks: (input: {
    readonly count: number
  }) => Effect.Effect<McpClient.CallToolResult, Failure, McpClient.McpClient>
}
interface Failure {
  readonly _tag: string
  readonly direction?: string
}

describe("generate", () => {
  it("writes a module and a program that type-check and call the reference server", { timeout: 120_000 }, async () => {
    const moduleFile = join(dir, "everything.ts")
    const programFile = join(dir, "everything-cli.ts")
    const [module, program] = await Promise.all([
      run(["generate", "--out", moduleFile, ...everythingStdio]),
      run(["generate", "--cli", "--name", "everything", "--out", programFile, ...everythingStdio])
    ])
    expect(module.stderr).toMatch(/^wrote .*everything\.ts: \d+ tools$/m)
    expect(module.code).toBe(0)
    expect(program.code).toBe(0)
    const source = readFileSync(moduleFile, "utf8")
    expect(source).toMatch(/^ \* Typed tools of the MCP server mcp-servers\/everything /m)
    expect(source).toMatch(/\(protocol revision \d{4}-\d{2}-\d{2}\)/)
    expect(source).toContain("Generated code: do not edit")
    expect(source).toContain(`from ${everythingStdio.slice(1).join(" ")}`)
    expect(source).toMatch(/export const getSum = \(input: GetSumInput, options\?: McpClient.ToolCallOptions\) =>/)
    expect(source).toMatch(/export const GetStructuredContentOutput = Schema.Struct\(\{/)
    expect(source).toMatch(
      /export const simulateResearchQuery = \(input: SimulateResearchQueryInput, options\?: TaskRunOptions\)/
    )
    // The program reaches the same server, with no environment value written into it.
    const programSource = readFileSync(programFile, "utf8")
    expect(programSource).toContain(`args: [${JSON.stringify(everything)}, "stdio"]`)
    expect(programSource).toContain('McpClient.layer({ name: "everything" })')
    expect(programSource).toContain('Command.run(root, { name: "everything"')

    const Everything: Generated = await import(pathToFileURL(moduleFile).href)
    const ServerLive = McpClient.layer({ name: "everything" }).pipe(
      Layer.provide(StdioTransport.layer({ command: process.execPath, args: [everything, "stdio"] })),
      Layer.provide(NodeContext.layer)
    )
    const used = Effect.all(
      {
        sum: Everything.getSum({ a: 2, b: 3 }),
        weather: Everything.getStructuredContent({ location: "Chicago" }),
        // Refused by the generated Schema (count is at most 10) before anything is sent.
        refused: Effect.flip(Everything.getResourceLinks({ count: 11 })),
        // A tool that requires a task runs as one.
        research: Everything.simulateResearchQuery({ topic: "effect" })
      },
      { concurrency: "unbounded" }
    ).pipe(Effect.provide(ServerLive))
    const [errors, result, ran] = await Promise.all([
      typecheck(dir),
      Effect.runPromise(used),
      runProgram(programFile, ["get-sum", "-a", "2", "-b", "3"])
    ])
    expect(errors).toBe("")
    expect(result.sum.content).toEqual([{ type: "text", text: "The sum of 2 and 3 is 5." }])
    expect(Object.keys(result.weather).sort()).toEqual(["conditions", "humidity", "temperature"])
    expect(typeof result.weather.temperature).toBe("number")
    expect(result.refused._tag).toBe("SchemaMismatch")
    expect(result.refused.direction).toBe("input")
    expect(result.research.content).toContainEqual(expect.objectContaining({ type: "text" }))
    expect(ran.stdout.trim()).toBe("The sum of 2 and 3 is 5.")
    expect(ran.code).toBe(0)
  })

  it("refuses a server with no tools", async () => {
    const result = await run(["generate", "--", process.execPath, "-e", NO_TOOLS])
    expect(result.stderr).toMatch(/^error: empty has no tools: there is nothing to generate$/m)
    expect(result.stdout).toBe("")
    expect(result.code).toBe(2)
  })

  it("reports an unreachable server as other commands do", async () => {
    const url = "http://127.0.0.1:9/mcp"
    const [generated, listed] = await Promise.all([
      run(["generate", "--url", url]),
      run(["tools", "list", "--url", url])
    ])
    expect(generated.stderr).toMatch(/^error: /)
    expect(generated.stderr).toBe(listed.stderr)
    expect(generated.code).toBe(3)
  })

  it("never writes a config entry's command line when variables were expanded into it", async () => {
    const config = join(dir, "mcp.json")
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { secret: { command: process.execPath, args: [everything, "stdio", "--token=${GENERATE_SECRET}"] } }
      })
    )
    const env = { GENERATE_SECRET: "hunter2-generated" }
    const options = ["--server", "secret", "--config", config]
    const [module, program] = await Promise.all([
      run(["generate", ...options], { env }),
      run(["generate", "--cli", ...options], { env })
    ])
    expect(module.stdout).toContain("`effect-mcp generate` from the server secret of a config file")
    expect(module.stdout).not.toContain("hunter2")
    expect(module.code).toBe(0)
    expect(program.stderr).toMatch(
      /^error: the command line or URL of secret holds values of the config file's variables/m
    )
    expect(program.stdout).toBe("")
    expect(program.code).toBe(2)
  })

  it("reports an --out that cannot be written", async () => {
    const out = join(dir, "missing", "everything.ts")
    const result = await run(["generate", "--out", out, ...everythingStdio])
    expect(result.stderr).toContain(`error: cannot write ${out}: its directory does not exist`)
    expect(result.code).toBe(2)
  })
})
