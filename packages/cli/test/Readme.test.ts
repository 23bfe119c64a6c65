/**
 * The READMEs' TypeScript (the repository's and every package's): every `ts` block is type-checked
 * (with the TypeScript compiler API, under the repository's compiler options, against the packages'
 * built declarations), and the client, host and model examples run as they are written, as
 * processes (`tsx`), against the reference server (the model example against a loopback Anthropic
 * Messages API). A fragment that continues an earlier block gets only the declarations of what a
 * reader supplies, listed below.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "@effect/vitest"
import ts from "typescript"
import { everythingServer } from "../../client/test/support/processes.js"
import { everythingStdio, run } from "./support/cli.js"
import { fakeAnthropic } from "./support/fakeAnthropic.js"
import { spawnOwned } from "./support/processes.js"

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..")

/** The READMEs, relative to the repository: the root's, then each package's. */
const readmes = [
  "README.md",
  ...readdirSync(join(root, "packages"))
    .sort()
    .map((name) => `packages/${name}/README.md`)
    .filter((path) => existsSync(join(root, path)))
]

interface Block {
  readonly readme: string
  readonly heading: string
  readonly line: number
  readonly code: string
}

/** The `ts` blocks of a README, each with the section it is in and the line it starts on. */
const blocks = (readme: string): ReadonlyArray<Block> => {
  const found: Array<Block> = []
  let heading = ""
  let open: { line: number; lines: Array<string> } | undefined
  for (const [index, line] of readFileSync(join(root, readme), "utf8").split("\n").entries()) {
    if (open !== undefined) {
      if (line.startsWith("```")) {
        found.push({ readme, heading, line: open.line, code: open.lines.join("\n") })
        open = undefined
      } else open.lines.push(line)
    } else if (line === "```ts") open = { line: index + 1, lines: [] }
    else if (line.startsWith("## ")) heading = line.slice(3)
  }
  return found
}

/**
 * What a fragment takes as given (a name a reader defines, or the client of the block before),
 * keyed by a line the fragment contains: declarations before it, and what encloses it.
 */
const fragments: ReadonlyArray<{ readonly contains: string; readonly before: string; readonly after?: string }> = [
  {
    contains: "JsonRpc.decodeMessage(JSON.parse(line))",
    before: `declare const line: string
declare const raw: unknown
declare const serverCapabilities: import("@effect-mcp/protocol").McpSchema.ServerCapabilities
declare const encodedParams: { readonly [key: string]: unknown }
`
  },
  {
    contains: "const skills = yield* client.skills.list",
    before: `import { Effect as Effect_ } from "effect"
import { McpClient as McpClient_ } from "@effect-mcp/client"
export const fragment = Effect_.gen(function* () {
const client = yield* McpClient_.McpClient
`,
    after: "\n})\n"
  },
  {
    contains: "Layer.provide(myAuthorizer)",
    before: `declare const myAuthorizer: import("effect").Layer.Layer<import("@effect-mcp/client").Authorizer.Authorizer>
`
  },
  {
    contains: "McpToolkit.layer({ maxResultTokens: 4_000 })",
    before: `import { McpToolkit, ToolLoop } from "@effect-mcp/ai"
declare const prompt: string
declare const args: unknown
declare const toolkit: import("effect").Context.Tag.Service<typeof McpToolkit.McpToolkit>
`
  },
  {
    contains: "ToolLoop.run({ prompt, tools: ToolSelection.lexical() })",
    before: `import { ToolLoop, ToolSelection } from "@effect-mcp/ai"
declare const prompt: string
`
  },
  {
    contains: "KeyValueStore.makeStringOnly({ get, set, remove, clear, size })",
    before: `import { Layer } from "effect"
import { TokenStore } from "@effect-mcp/client"
declare const { get, set, remove, clear, size }: Parameters<
  typeof import("@effect/platform/KeyValueStore").makeStringOnly
>[0]
`
  }
]

/** A directory inside the repository (so the workspace's packages resolve), removed after the tests. */
const workspace = (() => {
  const cache = join(root, "packages", "cli", "node_modules", ".cache")
  mkdirSync(cache, { recursive: true })
  const directory = mkdtempSync(join(cache, "readme-"))
  writeFileSync(join(directory, "package.json"), JSON.stringify({ type: "module", private: true }))
  return directory
})()
afterAll(() => rmSync(workspace, { recursive: true, force: true }))

/**
 * The reference server as the README starts it (`npx -y …`), and as the tests start it: the
 * workspace's own copy (npx in this directory, outside any project with it installed, would fetch
 * it from the registry).
 */
const NPX_EVERYTHING = 'command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"]'
const LOCAL_EVERYTHING = `command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(everythingServer)}, "stdio"]`

/** Each block as a module file of its own (`export {}` makes a fragment without imports a module too). */
const files = readmes.flatMap(blocks).map((block, index) => {
  const fragment = fragments.find((entry) => block.code.includes(entry.contains))
  const file = join(workspace, `block-${index}.ts`)
  const code = block.code.replaceAll(NPX_EVERYTHING, LOCAL_EVERYTHING)
  writeFileSync(file, `${fragment?.before ?? ""}${code}${fragment?.after ?? ""}\nexport {}\n`)
  return { ...block, file, prelude: (fragment?.before ?? "").split("\n").length - 1 }
})

describe("the READMEs", () => {
  it("every package has one, they have TypeScript blocks, and every fragment listed here is still in one", () => {
    for (const name of readdirSync(join(root, "packages")))
      if (existsSync(join(root, "packages", name, "package.json")))
        expect(readmes, name).toContain(`packages/${name}/README.md`)
    expect(files.length).toBeGreaterThanOrEqual(13)
    for (const fragment of fragments) expect(files.some((file) => file.code.includes(fragment.contains))).toBe(true)
  })

  it("every TypeScript block type-checks", { timeout: 240_000 }, () => {
    const base = ts.readConfigFile(join(root, "tsconfig.base.json"), ts.sys.readFile)
    const { options } = ts.convertCompilerOptionsFromJson(base.config.compilerOptions, root)
    const program = ts.createProgram(
      files.map((file) => file.file),
      {
        ...options,
        // A block shows how to use an API: names it leaves for the reader to use are fine.
        noUnusedLocals: false,
        noUnusedParameters: false,
        noEmit: true,
        composite: false,
        incremental: false,
        declaration: false,
        declarationMap: false,
        // The packages as a reader gets them: their built declarations (npm test builds first), not
        // their sources, which would make this check type-check every package again (npm run check does).
        customConditions: []
      }
    )
    const problems = ts.getPreEmitDiagnostics(program).map((diagnostic) => {
      const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")
      const file = files.find((entry) => entry.file === diagnostic.file?.fileName)
      if (file === undefined || diagnostic.start === undefined) return text
      const { line } = ts.getLineAndCharacterOfPosition(diagnostic.file as ts.SourceFile, diagnostic.start)
      return `${file.readme}:${file.line + 1 + line - file.prelude} (${file.heading}): ${text}`
    })
    expect(problems).toStrictEqual([])
  })

  /** The first block of a README's section. */
  const blockOf = (readme: string, heading: string) =>
    files.find((file) => file.readme === readme && file.heading === heading)

  /** Runs a block as a program (`tsx`, the workspace's sources) in `cwd`; its exit code and output. */
  const runBlock = (readme: string, heading: string, cwd: string, env: Record<string, string> = {}) =>
    new Promise<{ readonly code: number | null; readonly output: string }>((resolve, reject) => {
      const block = blockOf(readme, heading)
      if (block === undefined) return reject(new Error(`no TypeScript block under ${heading} in ${readme}`))
      const child = spawnOwned(
        join(root, "node_modules", ".bin", "tsx"),
        ["--conditions=@effect-mcp/source", block.file],
        { cwd, env: { ...process.env, ...env } }
      )
      child.stdin.end()
      let output = ""
      child.stdout.on("data", (chunk: Buffer) => {
        output += chunk.toString()
      })
      child.stderr.on("data", (chunk: Buffer) => {
        output += chunk.toString()
      })
      child.on("error", reject)
      child.on("close", (code) => resolve({ code, output }))
    })

  /** The client examples: the repository's quickstart and the client package's. */
  const clientExamples = [
    ["README.md", "Quickstart"],
    ["packages/client/README.md", "Quickstart"]
  ] as const

  it("the client examples start the reference server as npx would", () => {
    for (const [readme, heading] of clientExamples)
      expect(blockOf(readme, heading)?.code, readme).toContain(NPX_EVERYTHING)
  })

  for (const [readme, heading] of clientExamples)
    it(`the client example of ${readme} runs against the reference server`, { timeout: 120_000 }, async () => {
      const { code, output } = await runBlock(readme, heading, workspace)
      expect(output).toMatch(/\d+ tools; echo answered \[\{"type":"text","text":"Echo: hi"\}\]/)
      expect(code).toBe(0)
    })

  it("the host example runs against the reference server, from a config file", { timeout: 120_000 }, async () => {
    const cwd = mkdtempSync(join(workspace, "host-"))
    writeFileSync(
      join(cwd, ".mcp.json"),
      JSON.stringify({
        // The reference server, started as npx would (npx in a home without its cache would fetch it).
        mcpServers: { everything: { command: process.execPath, args: [everythingServer, "stdio"] } }
      })
    )
    // The user's own config files are not read: home is the test's directory.
    const { code, output } = await runBlock("packages/host/README.md", "Quickstart", cwd, { HOME: cwd, APPDATA: cwd })
    expect(output).toMatch(/INFO .*: everything\n\s+Ready/)
    expect(output).toMatch(/\d+ tools; echo answered \[\{"type":"text","text":"Echo: hi"\}\]/)
    expect(code).toBe(0)
  })

  it("the model example runs against the reference server and a loopback Messages API", {
    timeout: 120_000
  }, async () => {
    const fake = await fakeAnthropic([
      (request) => {
        if (request.body.tools?.some((tool) => tool.name === "everything__get-sum") !== true)
          throw new Error("everything__get-sum was not offered")
        return { calls: [{ name: "everything__get-sum", input: { a: 2, b: 40 } }] }
      },
      (request) => {
        const last = JSON.stringify(request.body.messages.at(-1))
        if (!last.includes("tool_result") || !last.includes("42")) throw new Error(`no tool result: ${last}`)
        return { text: "It is 42." }
      }
    ])
    try {
      const { code, output } = await runBlock("packages/ai/README.md", "Quickstart", workspace, {
        ANTHROPIC_API_KEY: "sk-test",
        ANTHROPIC_API_URL: fake.url
      })
      expect(fake.problems).toStrictEqual([])
      expect(fake.requests).toHaveLength(2)
      expect(output).toContain("It is 42.")
      expect(code).toBe(0)
    } finally {
      await fake.stop()
    }
  })
})

describe("the command's README's shell tour", () => {
  it("each tool name completed with Tab (⇥) is a prefix of exactly one of the reference server's tools", async () => {
    const listed = await run(["tools", "list", "--json", ...everythingStdio])
    expect(listed.code, listed.stderr).toBe(0)
    const decoded: unknown = JSON.parse(listed.stdout)
    const tools =
      typeof decoded === "object" && decoded !== null && "tools" in decoded && Array.isArray(decoded.tools)
        ? decoded.tools.flatMap((tool: unknown) =>
            typeof tool === "object" && tool !== null && "name" in tool && typeof tool.name === "string"
              ? [tool.name]
              : []
          )
        : []
    const completed = [
      ...readFileSync(join(root, "packages", "cli", "README.md"), "utf8").matchAll(/tools (?:call|show) (\S+)⇥/g)
    ].map((match) => match[1] ?? "")
    expect(completed.length).toBeGreaterThan(0)
    for (const prefix of completed)
      expect([prefix, tools.filter((name: string) => name.startsWith(prefix))]).toStrictEqual([
        prefix,
        [expect.any(String)]
      ])
  })
})
