/**
 * The published packages as a user gets them: every package is packed with `npm pack` (from the
 * build, which `npm test` makes before vitest runs), the tarballs are installed together in a
 * fresh project outside the workspace (under the OS's temporary directory), and from there the
 * README's programs run against the reference server over stdio, the installed `effect-mcp`
 * binary runs, and TypeScript resolves the packages' declarations. Nothing here sees the
 * workspace's sources: no `@effect-mcp/source` condition, no symlinks to packages/.
 *
 * The programs are `fixtures/consumer/*.mjs`, copied into the project. The install takes the
 * packages' dependencies from npm's cache (warm after `npm ci`), else from the registry.
 */
import { execFile, spawn } from "node:child_process"
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync
} from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"

const repo = fileURLToPath(new URL("../../../", import.meta.url))
const require = createRequire(import.meta.url)

/** The reference server's entry point, run with `node <it> stdio`. */
const everything = require.resolve("@modelcontextprotocol/server-everything/dist/index.js")

/** The published packages (the bench package is private), by directory under packages/. */
const published = ["protocol", "jsonrpc", "client", "node", "host", "gateway", "ai", "web", "cli"] as const
type Published = (typeof published)[number]

/** What each package needs from the build, beyond dist/index.js: without it the test cannot start. */
const built: Record<Published, ReadonlyArray<string>> = {
  protocol: ["dist/index.js"],
  jsonrpc: ["dist/index.js", "dist/Peer.js"],
  client: ["dist/index.js", "dist/Platform.js"],
  node: ["dist/index.js", "dist/NodeTransports.js", "dist/bundle/NodePromiseClient.js"],
  host: ["dist/index.js"],
  gateway: ["dist/index.js", "dist/McpGateway.js"],
  ai: ["dist/index.js"],
  web: ["dist/index.js", "dist/page/index.html"],
  cli: ["dist/index.js", "dist/bin.js", "dist/bundle/effect-mcp.js"]
}

interface PackageJson {
  readonly name: string
  readonly version: string
  readonly exports: Record<string, null | string | Record<string, string>>
  readonly dependencies?: Record<string, string>
}
const manifest = (name: Published): PackageJson =>
  JSON.parse(readFileSync(join(repo, "packages", name, "package.json"), "utf8"))

/** One entry of `npm pack --json`. */
interface Packed {
  readonly name: string
  readonly filename: string
  readonly size: number
  readonly unpackedSize: number
  readonly files: ReadonlyArray<{ readonly path: string }>
}

/**
 * The environment of every child. `npm test` hands its scripts npm settings as variables, some
 * of which would point the inner npm elsewhere (`npm_config_local_prefix` is the repository:
 * `npm install` would install there) or change what it does; those are left out, and so is
 * NODE_OPTIONS (a consumer has none). The cache, registry, proxy and certificate settings stay.
 */
const env = Object.fromEntries(
  Object.entries(process.env).filter(
    ([name]) =>
      !/^npm_config_(local_prefix|prefix|global|location|workspaces?|include_workspace_root|dry_run|omit|include|production|package_lock_only|save|loglevel|json|call)$/i.test(
        name
      ) && name !== "NODE_OPTIONS"
  )
)

interface Ran {
  readonly stdout: string
  readonly stderr: string
}

/** Runs a command to its end (killed after `timeout` ms); fails with what it printed. */
const run = (command: string, args: ReadonlyArray<string>, cwd: string, timeout = 60_000): Promise<Ran> =>
  new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      { cwd, env: { ...env, NO_COLOR: "1" }, timeout, maxBuffer: 64 * 1024 * 1024, encoding: "utf8" },
      (error, stdout, stderr) => {
        if (error === null) resolve({ stdout, stderr })
        else
          reject(
            new Error(
              `${command} ${args.join(" ")} (in ${cwd}) failed: ${error.message}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`
            )
          )
      }
    )
  })

/** Runs one of the consumer programs with node, and parses the JSON line it prints. */
const program = async (file: string, ...args: ReadonlyArray<string>): Promise<Record<string, unknown>> => {
  const { stdout } = await run(process.execPath, [file, ...args], project)
  return JSON.parse(stdout.trim().split("\n").at(-1) ?? "")
}

/** `pattern` ("./dist/*.js") with its star replaced by `value`, without the leading "./". */
const fill = (pattern: string, value: string) => pattern.replace("*", value).replace(/^\.\//, "")

let temp = ""
let project = ""
let packed: ReadonlyArray<Packed> = []

beforeAll(async () => {
  const missing = published.flatMap((name) =>
    built[name].map((file) => join("packages", name, file)).filter((file) => !existsSync(join(repo, file)))
  )
  if (missing.length > 0)
    throw new Error(`the packages are not built (${missing.join(", ")} missing): run npm run build first`)

  temp = realpathSync(mkdtempSync(join(tmpdir(), "effect-mcp-packaging-")))
  const tarballs = join(temp, "tarballs")
  project = join(temp, "project")
  mkdirSync(tarballs)
  mkdirSync(project)

  const workspaces = published.flatMap((name) => ["-w", manifest(name).name])
  const pack = await run("npm", ["pack", "--json", "--pack-destination", tarballs, ...workspaces], repo)
  packed = JSON.parse(pack.stdout)

  // What a user's project would depend on: the packages, and what the README's programs import besides.
  const deps = { ...manifest("cli").dependencies, ...manifest("ai").dependencies }
  const dependencies = Object.fromEntries([
    ...packed.map((entry) => [entry.name, `file:${join(tarballs, entry.filename)}`]),
    ...["effect", "@effect/platform-node", "@effect/ai"].map((name) => [name, deps[name]])
  ])
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "consumer", private: true, type: "module", dependencies }, null, 2)
  )
  await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], project, 200_000)

  cpSync(fileURLToPath(new URL("fixtures/consumer", import.meta.url)), project, { recursive: true })
  writeFileSync(
    join(project, ".mcp.json"),
    JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everything, "stdio"] } } })
  )
}, 240_000)

afterAll(() => {
  if (temp !== "") rmSync(temp, { recursive: true, force: true })
})

describe("the published packages, installed from their tarballs", () => {
  it("the project is outside the workspace and holds one copy of each package, from its tarball", () => {
    expect(relative(repo, project).startsWith("..")).toBe(true)
    expect(packed.map((entry) => entry.name).sort()).toEqual(published.map((name) => manifest(name).name).sort())
    for (const name of published) {
      const installed = join(project, "node_modules", manifest(name).name)
      expect(JSON.parse(readFileSync(join(installed, "package.json"), "utf8")).version).toBe(manifest(name).version)
      // A nested @effect-mcp copy would mean a "*" dependency was fetched from the registry instead.
      expect(existsSync(join(installed, "node_modules", "@effect-mcp")), `${installed}/node_modules/@effect-mcp`).toBe(
        false
      )
    }
  })

  it("each tarball holds the build, the sources and the launcher, and no tests, fixtures or build info", () => {
    for (const entry of packed) {
      const files = entry.files.map((file) => file.path)
      const outside = files.filter(
        (path) => !/^(dist|src|bin)\/|^(package\.json|README\.md|LICENSE(\.\w+)?)$/.test(path)
      )
      expect(outside, entry.name).toEqual([])
      const unwanted = files.filter((path) =>
        /(^|\/)(test|tests|__tests__|fixtures|conformance|scripts)\/|\.test\.|\.tsbuildinfo$/.test(path)
      )
      expect(unwanted, entry.name).toEqual([])
      const name = published.find((candidate) => manifest(candidate).name === entry.name) ?? "protocol"
      for (const file of [...built[name], "dist/index.d.ts"]) expect(files, entry.name).toContain(file)
    }
    const cli = packed.find((entry) => entry.name === "@effect-mcp/cli")?.files.map((file) => file.path) ?? []
    expect(cli).toContain("bin/effect-mcp.js")
    expect(cli.some((path) => path.startsWith("dist/bundle/chunks/"))).toBe(true)
    expect(cli).toContain("dist/bundle/chunks/tiktoken_bg.wasm")
  })

  it("without the source condition, every export resolves its types and code to files in the tarball", () => {
    for (const name of published) {
      const { exports, name: packageName } = manifest(name)
      const files = new Set(packed.find((entry) => entry.name === packageName)?.files.map((file) => file.path))
      const blocked = Object.entries(exports)
        .filter(([, target]) => target === null)
        .map(([key]) => fill(key, ""))
      for (const [key, target] of Object.entries(exports)) {
        if (target === null) continue
        if (typeof target === "string") {
          expect(files, `${packageName} ${key}`).toContain(fill(target, ""))
          continue
        }
        const { types, default: code } = target
        expect([types, code], `${packageName} ${key}`).not.toContain(undefined)
        if (!key.includes("*")) {
          for (const file of [types, code]) expect(files, `${packageName} ${key}`).toContain(fill(file ?? "", ""))
          continue
        }
        // A pattern: each module the sources offer under it, unless an exports entry blocks it,
        // has its declarations and its code.
        const source = target["@effect-mcp/source"] ?? ""
        const [before, after] = fill(source, "\u0000").split("\u0000") as [string, string]
        const modules = [...files]
          .filter((path) => path.startsWith(before) && path.endsWith(after))
          .map((path) => path.slice(before.length, path.length - after.length))
          .filter((module) => !blocked.some((prefix) => `${fill(key, module)}`.startsWith(prefix)))
        expect(modules.length, `${packageName} ${key}`).toBeGreaterThan(0)
        for (const module of modules)
          for (const file of [types, code]) expect(files, `${packageName} ${key}`).toContain(fill(file ?? "", module))
      }
    }
  })

  it("every export of a library, installed, gives the members its source module exports", async () => {
    const entries = published
      .filter((name) => name !== "cli")
      .flatMap((name) =>
        Object.entries(manifest(name).exports).flatMap(([key, target]) => {
          const source = typeof target === "string" ? undefined : target?.["@effect-mcp/source"]
          return source === undefined || key.includes("*")
            ? []
            : [{ specifier: `${manifest(name).name}${key.slice(1)}`, source: join(repo, "packages", name, source) }]
        })
      )
    expect(entries.length).toBeGreaterThan(40)
    // Imported last package first (an entry must not need another imported before it), and the
    // client's Transport is jsonrpc's, its error classes one set.
    const script = `const out = {}
      for (const specifier of ${JSON.stringify(entries.map((entry) => entry.specifier).reverse())})
        out[specifier] = Object.keys(await import(specifier)).sort()
      const client = await import("@effect-mcp/client")
      const same = [
        client.Transport.Transport === (await import("@effect-mcp/jsonrpc/Transport")).Transport,
        (await import("@effect-mcp/client/Transport")).Transport === (await import("@effect-mcp/jsonrpc")).Transport.Transport,
        client.McpError.TransportError === (await import("@effect-mcp/client/McpError")).TransportError,
        client.McpClient.McpClient === (await import("@effect-mcp/client/McpClient")).McpClient
      ]
      console.log(JSON.stringify({ out, same }))`
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], project)
    const installed: {
      readonly out: Record<string, ReadonlyArray<string>>
      readonly same: ReadonlyArray<boolean>
    } = JSON.parse(stdout)
    expect(installed.same).toStrictEqual([true, true, true, true])
    for (const { specifier, source } of entries) {
      const members = Object.keys(await import(source)).sort()
      expect(members.length, specifier).toBeGreaterThan(0)
      expect(installed.out[specifier], specifier).toStrictEqual(members)
    }
  }, 120_000)

  it("TypeScript resolves the packages' declarations (NodeNext, no source condition)", async () => {
    const nodeTypes = dirname(dirname(require.resolve("@types/node/package.json")))
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "NodeNext",
          moduleResolution: "NodeNext",
          target: "ES2022",
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ["node"],
          typeRoots: [nodeTypes]
        },
        files: ["types.ts"]
      })
    )
    const tsc = require.resolve("typescript/bin/tsc")
    // One program, checked (a type error fails the run) and listed: which declaration files it
    // was made of, each package's from its dist/.
    const { stdout } = await run(process.execPath, [tsc, "-p", ".", "--listFiles"], project, 120_000)
    const listed = stdout.split("\n").map((line) => line.trim())
    for (const file of [
      "client/dist/index.d.ts",
      "client/dist/Platform.d.ts",
      "node/dist/index.d.ts",
      "node/dist/NodePromiseClient.d.ts",
      "node/dist/NodeStdioTransport.d.ts",
      "host/dist/index.d.ts",
      "gateway/dist/index.d.ts",
      "gateway/dist/StreamableHttpServer.d.ts",
      "jsonrpc/dist/index.d.ts",
      "jsonrpc/dist/Peer.d.ts",
      "ai/dist/index.d.ts",
      "protocol/dist/index.d.ts",
      "protocol/dist/Methods.d.ts",
      "cli/dist/index.d.ts"
    ])
      expect(listed, file).toContain(join(project, "node_modules", "@effect-mcp", file))
    expect(listed.filter((line) => line.includes("/@effect-mcp/") && !line.includes("/dist/"))).toEqual([])
  })

  it("the client example calls the reference server's echo tool", async () => {
    const printed = await program("client.mjs", everything)
    expect(printed.tools).toContain("echo")
    expect(printed.content).toEqual([{ type: "text", text: "Echo: hi" }])
  })

  it("the bundled Promise client (@effect-mcp/node/NodePromiseClient) calls it too", async () => {
    const printed = await program("promise-client.mjs", everything)
    expect(printed.content).toEqual([{ type: "text", text: "Echo: hi from a Promise" }])
  })

  it("the protocol example decodes messages", async () => {
    expect(await program("protocol.mjs")).toEqual({ decoded: true, tool: "echo" })
  })

  it("the host example routes a namespaced call to the server of ./.mcp.json, on Node's transports", async () => {
    const printed = await program("host.mjs")
    expect(printed.tools).toContain("everything__echo")
    expect(printed.content).toEqual([{ type: "text", text: "Echo: hi from the host" }])
  })

  it("the ai example runs a tool-loop turn: the model calls the tool and reads its result", async () => {
    const printed = await program("ai.mjs", everything)
    expect(printed.offered).toContain("everything__echo")
    expect(printed.toolCalls).toBe(1)
    expect(printed.events).toEqual(expect.arrayContaining(["ToolCallStarted", "ToolResult", "TextDelta"]))
    expect(printed.text).toContain("Echo: hi from the model")
  })

  it("the installed effect-mcp binary prints its version and calls a tool", async () => {
    const bin = join(project, "node_modules", ".bin", "effect-mcp")
    expect(readdirSync(join(project, "node_modules", ".bin"))).toContain("effect-mcp")
    const version = await run(bin, ["--version"], project)
    expect(version.stdout).toBe(`${manifest("cli").version}\n`)
    const called = await run(
      bin,
      ["tools", "call", "echo", "message=hi", "--", process.execPath, everything, "stdio"],
      project
    )
    expect(called.stdout).toBe("Echo: hi\n")
  })

  it("the installed effect-mcp serve is a gateway: the installed client calls the project's server through it", async () => {
    const bin = join(project, "node_modules", ".bin", "effect-mcp")
    // The gateway over stdio with the project's .mcp.json, at the default era (2026-07-28, found by
    // server/discover) and at 2025-11-25 (a session); a gateway that dies on serve fails both.
    for (const version of ["auto", "2025-11-25"]) {
      const called = await run(
        bin,
        ["tools", "call", "everything__echo", "message=through", "--protocol-version", version, "--", bin, "serve"],
        project
      )
      expect([version, called.stdout]).toEqual([version, "Echo: through\n"])
    }
  }, 90_000)

  it("the installed effect-mcp ui serves its page, built into the web package's tarball", async () => {
    const bin = join(project, "node_modules", ".bin", "effect-mcp")
    const child = spawn(bin, ["ui", "--no-open", "--state-dir", join(temp, "ui-state")], {
      cwd: project,
      env: { ...env, NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"]
    })
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let printed = ""
        const timer = setTimeout(() => reject(new Error(`no address in 60 s: ${printed}`)), 60_000)
        const read = (chunk: Buffer) => {
          printed += chunk.toString("utf8")
          const found = /http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+/.exec(printed)
          if (found !== null) {
            clearTimeout(timer)
            resolve(found[0])
          }
        }
        child.stdout.on("data", read)
        child.stderr.on("data", read)
        child.on("exit", (code) => reject(new Error(`ui exited ${code}: ${printed}`)))
      })
      const opened = await fetch(url, { redirect: "manual" })
      expect(opened.status).toBe(303)
      const cookie = (opened.headers.get("set-cookie") ?? "").split(";")[0] ?? ""
      const page = await fetch(new URL("/", url), { headers: { cookie } })
      expect(page.status).toBe(200)
      const html = await page.text()
      const script = /<script[^>]+src="([^"]+)"/.exec(html)?.[1]
      expect(script).toBeDefined()
      const code = await fetch(new URL(script ?? "", url), { headers: { cookie } })
      expect(code.status).toBe(200)
      expect(code.headers.get("content-type")).toMatch(/javascript/)
      const state = await fetch(new URL("/api/state", url), { headers: { cookie } })
      expect(await state.json()).toMatchObject({ servers: [{ name: "everything" }] })
    } finally {
      child.kill("SIGTERM")
    }
  }, 90_000)

  it("the installed effect-mcp generate says what its module needs, and the module runs on the installed packages", async () => {
    const bin = join(project, "node_modules", ".bin", "effect-mcp")
    const out = join(project, "everything.ts")
    const generated = await run(bin, ["generate", "--out", out, "--", process.execPath, everything, "stdio"], project)
    const imports = /^it imports (.*): install them beside it/m.exec(generated.stderr)?.[1]?.split(", ") ?? []
    expect(imports, generated.stderr).toContain("@effect-mcp/client")
    expect(imports).toContain("effect")
    expect(generated.stderr).toContain(
      "npm pack -w @effect-mcp/protocol -w @effect-mcp/jsonrpc -w @effect-mcp/client, then npm install the three tarballs"
    )
    // What it names is what this project installed, from the tarballs for ours.
    for (const name of imports) expect(existsSync(join(project, "node_modules", name, "package.json")), name).toBe(true)
    writeFileSync(
      join(project, "use-generated.ts"),
      [
        'import * as NodeContext from "@effect/platform-node/NodeContext"',
        'import { McpClient, StdioTransport } from "@effect-mcp/client"',
        'import * as Effect from "effect/Effect"',
        'import * as Layer from "effect/Layer"',
        'import * as Everything from "./everything.js"',
        'const live = McpClient.layer({ name: "everything" }).pipe(',
        `  Layer.provide(StdioTransport.layer({ command: process.execPath, args: [${JSON.stringify(everything)}, "stdio"] })),`,
        "  Layer.provide(NodeContext.layer)",
        ")",
        "const result = await Effect.runPromise(Everything.getSum({ a: 2, b: 3 }).pipe(Effect.provide(live)))",
        "console.log(JSON.stringify({ content: result.content }))"
      ].join("\n")
    )
    // tsx (the repository's) only strips the types: every import resolves from the project.
    const used = await run(process.execPath, ["--import", require.resolve("tsx"), "use-generated.ts"], project)
    expect(JSON.parse(used.stdout.trim().split("\n").at(-1) ?? "")).toStrictEqual({
      content: [{ type: "text", text: "The sum of 2 and 3 is 5." }]
    })
  }, 90_000)
})
