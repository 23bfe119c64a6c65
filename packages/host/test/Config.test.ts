import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ConfigFormats from "../src/config/ConfigFormats.js"
import * as ConfigLoader from "../src/config/ConfigLoader.js"
import type { ExpandContext } from "../src/config/Expand.js"
import * as Jsonc from "../src/config/Jsonc.js"
import type { ServerEntry } from "../src/config/ServerEntry.js"
import type { ConfigError } from "../src/HostError.js"
import * as McpHost from "../src/McpHost.js"

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

const read = (file: string, json: unknown) => Either.getOrThrow(ConfigFormats.read(file, json, "/work/project"))
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

describe("formats", () => {
  it("reads mcpServers entries of every kind, remembering file and format", () => {
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
        entry.format,
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
    expect(vscode.entries[0]?.format).toBe("vscode")
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

  it("names the file, the entry and the field of a broken entry, and leaves only it out", () => {
    const problemOf = (servers: unknown) => {
      const parsed = read("/p/mcp.json", { mcpServers: { good: { command: "node" }, srv: servers } })
      expect(parsed.entries.map((entry) => entry.name)).toStrictEqual(["good"])
      return parsed.problems.map((problem) => problem.message).join("\n")
    }
    expect(problemOf({ command: "node", args: ["ok", 3] })).toMatch(
      /^\/p\/mcp\.json: server "srv", field "args\.1": Expected string, actual 3/
    )
    expect(problemOf({ env: {} })).toMatch(/server "srv", field "url"/)
    expect(problemOf({ command: "x", url: "http://a" })).toMatch(/either a command or a URL/)
    expect(problemOf({ type: "websocket", url: "ws://a" })).toMatch(/field "type"/)
    expect(problemOf("just a string")).toMatch(/server "srv": must be an object/)
    expect(Either.isLeft(ConfigFormats.read("/p/mcp.json", { something: {} }, "/"))).toBe(true)
    const continued = ConfigFormats.read("/p/config.json", { experimental: { modelContextProtocolServers: [] } }, "/")
    expect(Either.isLeft(continued) && continued.left.message).toMatch(/is Continue's config .* does not read/)
  })

  it("reads effect-mcp's own retry key in any format; a bad one is that entry's problem", () => {
    expect(only("/p/.mcp.json", { mcpServers: { srv: { command: "node", retry: 3 } } }).retry).toBe(3)
    expect(
      only("/home/me/.config/zed/settings.json", { context_servers: { srv: { command: "node", retry: 1 } } }).retry
    ).toBe(1)
    expect(only("/p/.mcp.json", { mcpServers: { srv: { command: "node" } } }).retry).toBeUndefined()
    const parsed = read("/p/.mcp.json", { mcpServers: { srv: { command: "node", retry: -1 } } })
    expect(parsed.entries).toStrictEqual([])
    expect(parsed.problems.map((problem) => problem.message).join("\n")).toMatch(/server "srv", field "retry"/)
  })

  it("reads Zed's documented source: custom without a warning", () => {
    const zed = read("/home/me/.config/zed/settings.json", {
      context_servers: { mine: { source: "custom", command: "node", args: ["s.js"], env: {} } }
    })
    expect(zed.entries[0]?.target).toStrictEqual({ _tag: "Stdio", command: "node", args: ["s.js"], env: {} })
    expect(zed.warnings).toStrictEqual([])
    expect(zed.problems).toStrictEqual([])
  })

  it("reads Codex's [mcp_servers.NAME] tables", () => {
    const parsed = Either.getOrThrow(
      ConfigFormats.readCodex("/home/me/.codex/config.toml", {
        model: "o3",
        mcp_servers: {
          docs: { command: "npx", args: ["-y", "docs-mcp"], env: { LOG: "1" }, startup_timeout_sec: 20 },
          remote: {
            url: "https://mcp.example/mcp",
            bearer_token_env_var: "EXAMPLE_TOKEN",
            http_headers: { "X-Team": "core" },
            env_http_headers: { "X-Key": "EXAMPLE_KEY" }
          },
          broken: { args: ["x"] }
        }
      })
    )
    expect(parsed.entries.map((entry) => [entry.name, entry.format, entry.target])).toStrictEqual([
      ["docs", "codex", { _tag: "Stdio", command: "npx", args: ["-y", "docs-mcp"], env: { LOG: "1" } }],
      [
        "remote",
        "codex",
        {
          _tag: "Http",
          url: "https://mcp.example/mcp",
          transport: "http",
          headers: { "X-Team": "core", "X-Key": "${env:EXAMPLE_KEY}", Authorization: "Bearer ${env:EXAMPLE_TOKEN}" }
        }
      ]
    ])
    expect(parsed.warnings).toStrictEqual([
      `/home/me/.codex/config.toml: server "docs": field "startup_timeout_sec" is ignored by effect-mcp`
    ])
    expect(parsed.problems.map((problem) => problem.message)).toStrictEqual([
      `/home/me/.codex/config.toml: server "broken", field "command": is required (or give a url)`
    ])
    expect(Either.isLeft(ConfigFormats.readCodex("/x/config.toml", { model: "o3" }))).toBe(true)
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
      ConfigFormats.read(
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
        const broken = ConfigFormats.read(
          "/p/.mcp.json",
          { mcpServers: { r: { url: "https://x/mcp", oauth: { clientId: 7 } } } },
          "/p"
        )
        expect(Either.isRight(broken) && broken.right.problems[0]?.message).toContain('field "oauth.clientId"')
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
        loaded.entries.map((entry) => [entry.name, entry.target._tag === "Stdio" && entry.target.command, entry.format])
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

  it.effect("then the user's files of every tool, ours first; a file with no server map is skipped", () =>
    Effect.gen(function* () {
      const cwd = mkdtempSync(join(tmpdir(), "effect-mcp-discovery-"))
      const home = mkdtempSync(join(tmpdir(), "effect-mcp-home-"))
      const put = (file: string, text: string) => {
        mkdirSync(join(file, ".."), { recursive: true })
        writeFileSync(file, text)
      }
      put(join(cwd, ".mcp.json"), JSON.stringify({ mcpServers: { a: { command: "project" } } }))
      put(
        join(home, ".config", "effect-mcp", "mcp.json"),
        JSON.stringify({ mcpServers: { a: { command: "ours" }, b: { command: "ours" } } })
      )
      put(join(home, ".codex", "config.toml"), '[mcp_servers.b]\ncommand = "codex"\n[mcp_servers.c]\ncommand = "codex"')
      put(
        join(home, ".codeium", "windsurf", "mcp_config.json"),
        JSON.stringify({ mcpServers: { d: { command: "windsurf" } } })
      )
      put(join(home, ".config", "Code", "User", "mcp.json"), JSON.stringify({ servers: { e: { command: "vscode" } } }))
      put(join(home, ".gemini", "settings.json"), JSON.stringify({ theme: "dark" }))
      put(join(home, ".config", "zed", "settings.json"), '// Zed\n{ "context_servers": { "f": { "command": "zed" } } }')
      const loaded = yield* ConfigLoader.load({ cwd, home, platform: "linux" }).pipe(Effect.provide(NodeContext.layer))
      expect(
        loaded.entries.map((entry) => [entry.name, entry.target._tag === "Stdio" && entry.target.command, entry.format])
      ).toStrictEqual([
        ["a", "project", "claude-code"],
        ["b", "ours", "mcpServers"],
        ["d", "windsurf", "windsurf"],
        ["e", "vscode", "vscode"],
        ["c", "codex", "codex"],
        ["f", "zed", "zed"]
      ])
      expect(loaded.shadowed.map((entry) => [entry.name, entry.format])).toStrictEqual([
        ["a", "mcpServers"],
        ["b", "codex"]
      ])
      expect(loaded.files).toContain(join(home, ".gemini", "settings.json"))
    })
  )

  it.effect("a config's retry key becomes the host server's retry settings (the caller's options win)", () =>
    Effect.gen(function* () {
      const cwd = mkdtempSync(join(tmpdir(), "effect-mcp-retry-"))
      const home = mkdtempSync(join(tmpdir(), "effect-mcp-home-"))
      writeFileSync(
        join(cwd, "mcp.json"),
        JSON.stringify({ mcpServers: { a: { command: "node", retry: 2 }, b: { command: "node" } } })
      )
      const { servers } = yield* McpHost.serversFromConfig({ cwd, home, platform: "linux" }, context()).pipe(
        Effect.provide(NodeContext.layer)
      )
      expect(servers.map((server) => [server.name, server.options?.retry])).toStrictEqual([
        ["a", { reads: { times: 2 }, tools: { times: 2 } }],
        ["b", undefined]
      ])
    })
  )

  it.effect(
    "a config's keepAlive key (seconds) becomes the host server's keepalive; a bad one is that entry's problem",
    () =>
      Effect.gen(function* () {
        expect(
          only("/p/.mcp.json", { mcpServers: { srv: { url: "http://127.0.0.1:1/mcp", keepAlive: 30 } } }).keepAlive
        ).toBe(30)
        const parsed = read("/p/.mcp.json", { mcpServers: { srv: { command: "node", keepAlive: 0 } } })
        expect(parsed.entries).toStrictEqual([])
        expect(parsed.problems.map((problem) => problem.message).join("\n")).toMatch(/server "srv", field "keepAlive"/)
        const cwd = mkdtempSync(join(tmpdir(), "effect-mcp-keepalive-"))
        const home = mkdtempSync(join(tmpdir(), "effect-mcp-home-"))
        writeFileSync(
          join(cwd, "mcp.json"),
          JSON.stringify({
            mcpServers: { a: { url: "http://127.0.0.1:1/mcp", keepAlive: 15 }, b: { command: "node" } }
          })
        )
        const { servers } = yield* McpHost.serversFromConfig({ cwd, home, platform: "linux" }, context()).pipe(
          Effect.provide(NodeContext.layer)
        )
        const keepAlive = servers.map((server) => {
          const interval = server.options?.keepAlive === false ? undefined : server.options?.keepAlive?.interval
          return [server.name, Duration.isDuration(interval) ? Duration.toSeconds(interval) : interval]
        })
        expect(keepAlive).toStrictEqual([
          ["a", 15],
          ["b", undefined]
        ])
      })
  )

  it.effect(
    "the policy keys (allowTools, denyTools, concurrency, maxResultBytes) are read in any format into the host's options; a bad one is that entry's problem",
    () =>
      Effect.gen(function* () {
        const policy = { allowTools: ["echo", "get-sum"], denyTools: ["echo"], concurrency: 4, maxResultBytes: 4096 }
        const zed = only("/home/me/.config/zed/settings.json", {
          context_servers: { srv: { command: "node", ...policy } }
        })
        expect([zed.allowTools, zed.denyTools, zed.concurrency, zed.maxResultBytes]).toStrictEqual([
          ["echo", "get-sum"],
          ["echo"],
          4,
          4096
        ])
        const codex = Either.getOrThrow(
          ConfigFormats.readCodex("/home/me/.codex/config.toml", {
            mcp_servers: { srv: { command: "node", ...policy } }
          })
        ).entries[0]
        expect(codex?.denyTools).toStrictEqual(["echo"])
        expect(codex?.maxResultBytes).toBe(4096)
        const bad: ReadonlyArray<readonly [string, unknown, RegExp]> = [
          ["allowTools", "echo", /field "allowTools"/],
          ["denyTools", ["echo", 3], /field "denyTools\.1"/],
          ["concurrency", 0, /field "concurrency"/],
          ["concurrency", 1.5, /field "concurrency"/],
          ["maxResultBytes", 100, /field "maxResultBytes": .*1024/]
        ]
        for (const [key, value, message] of bad) {
          const parsed = read("/p/.mcp.json", { mcpServers: { srv: { command: "node", [key]: value } } })
          expect(parsed.entries).toStrictEqual([])
          expect(parsed.problems.map((problem) => problem.message).join("\n")).toMatch(/server "srv"/)
          expect(parsed.problems.map((problem) => problem.message).join("\n")).toMatch(message)
        }
        const cwd = mkdtempSync(join(tmpdir(), "effect-mcp-policy-"))
        const home = mkdtempSync(join(tmpdir(), "effect-mcp-home-"))
        writeFileSync(
          join(cwd, "mcp.json"),
          JSON.stringify({ mcpServers: { a: { command: "node", retry: 1, ...policy }, b: { command: "node" } } })
        )
        const { servers } = yield* McpHost.serversFromConfig({ cwd, home, platform: "linux" }, context(), (entry) =>
          entry.name === "a" ? { concurrency: 2 } : undefined
        ).pipe(Effect.provide(NodeContext.layer))
        expect(servers.map((server) => [server.name, server.options])).toStrictEqual([
          [
            "a",
            {
              retry: { reads: { times: 1 }, tools: { times: 1 } },
              allowTools: ["echo", "get-sum"],
              denyTools: ["echo"],
              // The caller's options win.
              concurrency: 2,
              maxResultBytes: 4096
            }
          ],
          ["b", undefined]
        ])
      })
  )

  it.effect("reads Codex's config.toml; a YAML file and a TOML file without servers say what they are", () =>
    Effect.gen(function* () {
      const cwd = mkdtempSync(join(tmpdir(), "effect-mcp-codex-"))
      writeFileSync(
        join(cwd, "config.toml"),
        [
          'model = "o3"',
          "",
          "[mcp_servers.docs]",
          'command = "npx"',
          'args = ["-y", "docs-mcp"]',
          'env = { "LOG" = "1" }',
          "",
          "[mcp_servers.remote]",
          'url = "https://mcp.example/mcp"',
          'bearer_token_env_var = "TOKEN"',
          "",
          "[mcp_servers.bad]",
          "args = 3"
        ].join("\n")
      )
      const load = (config: string) =>
        ConfigLoader.load({ cwd, home: cwd, platform: "linux", config }).pipe(Effect.provide(NodeContext.layer))
      const loaded = yield* load("config.toml")
      expect(loaded.entries.map((entry) => entry.name)).toStrictEqual(["docs", "remote"])
      expect(loaded.problems.map((problem) => problem.message)).toStrictEqual([
        `${join(cwd, "config.toml")}: server "bad", field "args": Expected ReadonlyArray<string>, actual 3`
      ])
      // The broken entry, asked for by name, says what is wrong with it.
      const asked = yield* ConfigLoader.find(loaded, "bad").pipe(Effect.flip)
      expect(asked.message).toMatch(/server "bad", field "args"/)
      const resolved = yield* ConfigLoader.resolveAll(loaded, context({ TOKEN: "t0k" })).pipe(
        Effect.provide(NodeContext.layer)
      )
      expect(resolved.resolved.map(({ target }) => target._tag === "Http" && target.headers)).toStrictEqual([
        false,
        { Authorization: "Bearer t0k" }
      ])
      expect(resolved.problems.map((problem) => problem.entry)).toStrictEqual(["bad"])

      writeFileSync(join(cwd, "other.toml"), 'model = "o3"\n')
      const noServers = yield* load("other.toml").pipe(Effect.flip)
      expect(noServers.message).toMatch(/no \[mcp_servers\.NAME\] table found \(Codex's config\.toml\)/)
      writeFileSync(join(cwd, "broken.toml"), "[mcp_servers.x\n")
      expect((yield* load("broken.toml").pipe(Effect.flip)).message).toMatch(/invalid TOML/)
      writeFileSync(join(cwd, "config.yaml"), "mcpServers: []\n")
      expect((yield* load("config.yaml").pipe(Effect.flip)).message).toMatch(/is YAML .* does not read/)
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
