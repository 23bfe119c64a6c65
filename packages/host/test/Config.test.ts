import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ConfigLoader from "../src/config/ConfigLoader.js"
import * as Dialects from "../src/config/Dialects.js"
import type { ExpandContext } from "../src/config/Expand.js"
import * as Jsonc from "../src/config/Jsonc.js"
import type { ServerEntry } from "../src/config/ServerEntry.js"
import type { ConfigError } from "../src/HostError.js"

const context = (
  env: { readonly [name: string]: string } = {},
  answers: { readonly [id: string]: string } = {}
): ExpandContext => ({
  env,
  home: "/home/me",
  workspaceFolder: "/work/project",
  pathSeparator: "/",
  ask: (input, entry) =>
    answers[input.id] === undefined
      ? Effect.fail({
          _tag: "ConfigError",
          file: entry.file,
          entry: entry.name,
          reason: `input "${input.id}" cannot be asked`
        } as unknown as ConfigError)
      : Effect.succeed(answers[input.id] as string)
})

const read = (file: string, json: unknown) => Either.getOrThrow(Dialects.read(file, json, "/work/project"))
const only = (file: string, json: unknown): ServerEntry => {
  const [entry] = read(file, json).entries
  if (entry === undefined) throw new Error("no entry")
  return entry
}
const resolve = (entry: ServerEntry, ctx: ExpandContext) =>
  ConfigLoader.resolve(entry, ctx).pipe(Effect.provide(NodeContext.layer), Effect.either)

describe("JSON with comments", () => {
  it("allows comments and trailing commas, and says where a syntax error is", () => {
    expect(Jsonc.parse(`{ // a comment\n "a": [1, 2,], /* more */ "b": "// not a comment", }`)).toStrictEqual(
      Either.right({ a: [1, 2], b: "// not a comment" })
    )
    const broken = Jsonc.parse(`{\n  "a": 1\n  "b": 2\n}`)
    expect(Either.isLeft(broken) && broken.left).toMatch(/line 3, column 3/)
  })
})

describe("dialects", () => {
  it("reads mcpServers entries of every kind, remembering file and dialect", () => {
    const parsed = read("/p/.mcp.json", {
      mcpServers: {
        local: { command: "npx", args: ["-y", "pkg"], env: { K: "v" }, cwd: "/tmp" },
        remote: { type: "http", url: "https://example.com/mcp", headers: { Authorization: "Bearer x" } },
        legacy: { type: "sse", url: "https://example.com/sse" },
        guess: { url: "https://example.com/mcp" },
        windsurf: { serverUrl: "https://example.com/mcp" }
      }
    })
    expect(
      parsed.entries.map((entry) => [
        entry.name,
        entry.dialect,
        entry.file,
        entry.target._tag === "Http" ? entry.target.transport : "stdio"
      ])
    ).toStrictEqual([
      ["local", "claude-code", "/p/.mcp.json", "stdio"],
      ["remote", "claude-code", "/p/.mcp.json", "http"],
      ["legacy", "claude-code", "/p/.mcp.json", "sse"],
      ["guess", "claude-code", "/p/.mcp.json", "auto"],
      ["windsurf", "claude-code", "/p/.mcp.json", "http"]
    ])
    expect(parsed.entries[0]?.target).toStrictEqual({
      _tag: "Stdio",
      command: "npx",
      args: ["-y", "pkg"],
      env: { K: "v" },
      cwd: "/tmp"
    })
  })

  it("reads Gemini's httpUrl as Streamable HTTP and its plain url as legacy SSE", () => {
    const parsed = read("/home/me/.gemini/settings.json", {
      mcpServers: { a: { httpUrl: "https://a.example/mcp" }, b: { url: "https://b.example/sse" } }
    })
    expect(parsed.entries.map((entry) => entry.target._tag === "Http" && entry.target.transport)).toStrictEqual([
      "http",
      "sse"
    ])
  })

  it("reads VS Code's servers with inputs, and Zed's context_servers in both shapes", () => {
    const vscode = read("/p/.vscode/mcp.json", {
      inputs: [{ type: "promptString", id: "token", description: "API token", password: true }],
      servers: {
        gh: { type: "http", url: "https://api.example/mcp", headers: { Authorization: "Bearer ${input:token}" } }
      }
    })
    expect(vscode.entries[0]?.dialect).toBe("vscode")
    expect(vscode.entries[0]?.inputs).toStrictEqual([{ id: "token", description: "API token", password: true }])
    const zed = read("/home/me/.config/zed/settings.json", {
      context_servers: {
        modern: { command: "node", args: ["s.js"], env: {} },
        older: { command: { path: "python", args: ["-m", "srv"], env: { A: "1" } }, settings: {} }
      }
    })
    expect(zed.entries.map((entry) => entry.target)).toStrictEqual([
      { _tag: "Stdio", command: "node", args: ["s.js"], env: {} },
      { _tag: "Stdio", command: "python", args: ["-m", "srv"], env: { A: "1" } }
    ])
    expect(zed.warnings).toStrictEqual([
      `/home/me/.config/zed/settings.json: server "older": field "settings" is ignored by effect-mcp`
    ])
  })

  it("names the file, the entry and the field of a broken entry", () => {
    const bad = Dialects.read("/p/mcp.json", { mcpServers: { srv: { command: "node", args: ["ok", 3] } } }, "/")
    expect(Either.isLeft(bad) && bad.left.message).toMatch(
      /^\/p\/mcp\.json: server "srv", field "args\.1": Expected string, actual 3/
    )
    const neither = Dialects.read("/p/mcp.json", { mcpServers: { srv: { env: {} } } }, "/")
    expect(Either.isLeft(neither) && neither.left.message).toMatch(/server "srv", field "url"/)
    const both = Dialects.read("/p/mcp.json", { mcpServers: { srv: { command: "x", url: "http://a" } } }, "/")
    expect(Either.isLeft(both) && both.left.message).toMatch(/either a command or a URL/)
    const wrongType = Dialects.read("/p/mcp.json", { mcpServers: { srv: { type: "websocket", url: "ws://a" } } }, "/")
    expect(Either.isLeft(wrongType) && wrongType.left.message).toMatch(/field "type"/)
    expect(Either.isLeft(Dialects.read("/p/mcp.json", { something: {} }, "/"))).toBe(true)
  })

  it("warns about fields it ignores", () => {
    const parsed = read("/p/mcp.json", { mcpServers: { srv: { command: "x", disabled: false, colour: "red" } } })
    expect(parsed.warnings).toStrictEqual([
      `/p/mcp.json: server "srv": field "disabled" is ignored by effect-mcp`,
      `/p/mcp.json: server "srv": unknown field "colour" is ignored`
    ])
  })

  it("reads Claude Code's ~/.claude.json with the current project's servers", () => {
    const parsed = Either.getOrThrow(
      Dialects.read(
        "/home/me/.claude.json",
        { mcpServers: { a: { command: "a" } }, projects: { "/work/project": { mcpServers: { b: { command: "b" } } } } },
        "/work/project"
      )
    )
    expect(parsed.entries.map((entry) => entry.name)).toStrictEqual(["a", "b"])
  })
})

describe("variable expansion", () => {
  it.effect("expands Claude Code's ${VAR} and ${VAR:-default} in values, never in keys", () =>
    Effect.gen(function* () {
      const entry = only("/p/.mcp.json", {
        mcpServers: {
          s: { command: "${BIN}", args: ["--port=${PORT:-8080}", "$LITERAL"], env: { "${KEY}": "${SECRET}" } }
        }
      })
      const resolved = yield* resolve(entry, context({ BIN: "node", SECRET: "s3cret", KEY: "k" }))
      expect(resolved).toStrictEqual(
        Either.right({ _tag: "Stdio", command: "node", args: ["--port=8080", "$LITERAL"], env: { "${KEY}": "s3cret" } })
      )
    })
  )

  it.effect(
    "reads an HTTP entry's oauth settings (Claude Code's clientId, callbackPort accepted) and expands them",
    () =>
      Effect.gen(function* () {
        const entry = only("/p/.mcp.json", {
          mcpServers: {
            remote: {
              type: "http",
              url: "https://mcp.example/mcp",
              oauth: {
                clientId: "registered",
                clientSecret: "${CLIENT_SECRET}",
                callbackPort: 8080,
                scope: "read write"
              }
            }
          }
        })
        const resolved = yield* resolve(entry, context({ CLIENT_SECRET: "s3cret" }))
        expect(resolved).toStrictEqual(
          Either.right({
            _tag: "Http",
            url: "https://mcp.example/mcp",
            transport: "http",
            headers: {},
            oauth: { clientId: "registered", clientSecret: "s3cret", scope: "read write" }
          })
        )
        const broken = Dialects.read(
          "/p/.mcp.json",
          { mcpServers: { r: { url: "https://x/mcp", oauth: { clientId: 7 } } } },
          "/p"
        )
        expect(Either.isLeft(broken) && broken.left.message).toContain('field "oauth.clientId"')
      })
  )

  it.effect("fails on an unset variable without a default, naming the variable, the entry and the file", () =>
    Effect.gen(function* () {
      const entry = only("/p/.mcp.json", { mcpServers: { s: { type: "http", url: "https://x/${MISSING}" } } })
      const resolved = yield* resolve(entry, context())
      expect(Either.isLeft(resolved) && resolved.left.message).toBe(
        `/p/.mcp.json: server "s", field "url": variable MISSING is not set and has no default`
      )
    })
  )

  it.effect("expands VS Code and Cursor variables, and asks for inputs", () =>
    Effect.gen(function* () {
      const vscode = only("/p/.vscode/mcp.json", {
        inputs: [{ type: "promptString", id: "token", password: true }],
        servers: {
          s: {
            command: "${userHome}/bin/srv",
            args: ["${workspaceFolder}", "${workspaceFolderBasename}", "${env:HOST}"],
            env: { T: "${input:token}" }
          }
        }
      })
      expect(yield* resolve(vscode, context({ HOST: "h" }, { token: "t0k" }))).toStrictEqual(
        Either.right({
          _tag: "Stdio",
          command: "/home/me/bin/srv",
          args: ["/work/project", "project", "h"],
          env: { T: "t0k" }
        })
      )
      const unasked = yield* resolve(vscode, context({ HOST: "h" }))
      expect(Either.isLeft(unasked) && unasked.left.reason).toMatch(/input "token" cannot be asked/)
      const cursor = only("/p/.cursor/mcp.json", { mcpServers: { c: { command: "x", args: ["${env:NOPE}"] } } })
      const failed = yield* resolve(cursor, context())
      expect(Either.isLeft(failed) && failed.left.message).toMatch(
        /server "c", field "args\.0": variable NOPE is not set/
      )
    })
  )

  it.effect("expands nothing for Claude Desktop and Zed", () =>
    Effect.gen(function* () {
      const desktop = only("/home/me/.config/Claude/claude_desktop_config.json", {
        mcpServers: { d: { command: "x", args: ["${HOME}"] } }
      })
      expect(yield* resolve(desktop, context({ HOME: "/h" }))).toStrictEqual(
        Either.right({ _tag: "Stdio", command: "x", args: ["${HOME}"], env: {} })
      )
    })
  )

  it.effect("merges an envFile under the entry's own env", () =>
    Effect.gen(function* () {
      const dir = mkdtempSync(join(tmpdir(), "effect-mcp-config-"))
      writeFileSync(join(dir, ".env"), `# comment\nexport A=from-file\nB="quoted # not a comment"\nC=plain # comment\n`)
      const entry = only(join(dir, ".mcp.json"), {
        mcpServers: { s: { command: "x", env: { A: "own" }, envFile: ".env" } }
      })
      const resolved = yield* resolve(entry, context())
      expect(Either.map(resolved, (target) => target._tag === "Stdio" && target.env)).toStrictEqual(
        Either.right({ A: "own", B: "quoted # not a comment", C: "plain" })
      )
      const missing = only(join(dir, ".mcp.json"), { mcpServers: { s: { command: "x", envFile: "nope.env" } } })
      const failed = yield* resolve(missing, context())
      expect(Either.isLeft(failed) && failed.left.message).toMatch(/server "s", field "envFile": cannot read/)
    })
  )
})

describe("discovery", () => {
  it.effect("searches the project files in order, then Claude's; the first entry of a name wins", () =>
    Effect.gen(function* () {
      const cwd = mkdtempSync(join(tmpdir(), "effect-mcp-discovery-"))
      const home = mkdtempSync(join(tmpdir(), "effect-mcp-home-"))
      mkdirSync(join(cwd, ".cursor"))
      mkdirSync(join(home, ".config", "Claude"), { recursive: true })
      writeFileSync(join(cwd, "mcp.json"), JSON.stringify({ mcpServers: { a: { command: "from-mcp-json" } } }))
      writeFileSync(
        join(cwd, ".cursor", "mcp.json"),
        JSON.stringify({ mcpServers: { a: { command: "from-cursor" }, b: { command: "b" } } })
      )
      writeFileSync(
        join(home, ".config", "Claude", "claude_desktop_config.json"),
        JSON.stringify({ mcpServers: { c: { command: "c" } } })
      )
      const loaded = yield* ConfigLoader.load({ cwd, home, platform: "linux" }).pipe(Effect.provide(NodeContext.layer))
      expect(
        loaded.entries.map((entry) => [
          entry.name,
          entry.target._tag === "Stdio" && entry.target.command,
          entry.dialect
        ])
      ).toStrictEqual([
        ["a", "from-mcp-json", "mcpServers"],
        ["b", "b", "cursor"],
        ["c", "c", "claude-desktop"]
      ])
      expect(loaded.shadowed.map((entry) => entry.file)).toStrictEqual([join(cwd, ".cursor", "mcp.json")])
      const missing = yield* ConfigLoader.find(loaded, "zzz").pipe(Effect.flip)
      expect(missing.message).toMatch(/no server named "zzz".*configured: a, b, c/)
    })
  )

  it.effect("reports a file that is not valid JSON with its name and position", () =>
    Effect.gen(function* () {
      const cwd = mkdtempSync(join(tmpdir(), "effect-mcp-broken-"))
      writeFileSync(join(cwd, "broken.json"), `{ "mcpServers": { "a": { "command": "x" }, } `)
      const error = yield* ConfigLoader.load({ cwd, home: cwd, platform: "linux", config: "broken.json" }).pipe(
        Effect.provide(NodeContext.layer),
        Effect.flip
      )
      expect(error.message).toMatch(new RegExp(`^${join(cwd, "broken.json")}: invalid JSON at line 1`))
    })
  )
})
