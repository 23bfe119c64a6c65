/**
 * `config list | add | remove | import`, `--persist` and the user-level files found without
 * `--config`, on the built binary with HOME and the working directory set to temporary folders:
 * the files' content after each edit (other keys and comments kept), imports from Claude
 * Desktop, VS Code (inputs kept as references), Codex and Zed, name clashes, a server saved by
 * `--persist` and one found in `~/.codex/config.toml`, each then used to connect.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { everything, run } from "./support/cli.js"

/** A project folder and a home folder of their own, and a run of the binary in them. */
const workspace = () => {
  const root = mkdtempSync(join(tmpdir(), "effect-mcp-config-"))
  const home = join(root, "home")
  const project = join(root, "project")
  mkdirSync(home)
  mkdirSync(project)
  const env = { HOME: home, XDG_CONFIG_HOME: undefined, CODEX_HOME: undefined, APPDATA: undefined }
  const write = (file: string, text: string) => {
    mkdirSync(join(file, ".."), { recursive: true })
    writeFileSync(file, text)
  }
  return {
    home,
    project,
    write,
    read: (file: string) => readFileSync(file, "utf8"),
    effectMcp: (args: ReadonlyArray<string>) => run(args, { cwd: project, env })
  }
}

const server = ["--", process.execPath, everything, "stdio"]

describe("config add, list, remove", () => {
  it("round trip in the project's .mcp.json; --scope user writes the user's file (owner only); a clash is refused", async () => {
    const { project, home, read, effectMcp } = workspace()
    const added = await effectMcp([
      "config",
      "add",
      "ev",
      "--env",
      "TOKEN=${MY_TOKEN}",
      "--env",
      "MODE=fast",
      ...server
    ])
    expect(added.code, added.stderr).toBe(0)
    expect(added.stdout).toBe(`added "ev" in ${join(project, ".mcp.json")}\n`)
    // The literal value is named, never printed; the reference is not mentioned.
    expect(added.stderr).toMatch(/note: ev's env MODE is saved in .* as given/)
    expect(added.stderr).not.toContain("fast")
    expect(JSON.parse(read(join(project, ".mcp.json")))).toStrictEqual({
      mcpServers: {
        ev: { command: process.execPath, args: [everything, "stdio"], env: { TOKEN: "${MY_TOKEN}", MODE: "fast" } }
      }
    })
    const clash = await effectMcp(["config", "add", "ev", "--", "node", "other.js"])
    expect(clash.code).toBe(2)
    expect(clash.stderr).toContain(`${join(project, ".mcp.json")}: server "ev": a different server of this name`)
    const user = await effectMcp([
      "config",
      "add",
      "remote",
      "--scope",
      "user",
      "--url",
      "https://mcp.example/mcp",
      "--transport",
      "http",
      "--header",
      "Authorization=Bearer ${API_TOKEN}"
    ])
    expect(user.code, user.stderr).toBe(0)
    const userFile = join(home, ".config", "effect-mcp", "mcp.json")
    expect(JSON.parse(read(userFile))).toStrictEqual({
      mcpServers: {
        remote: { type: "http", url: "https://mcp.example/mcp", headers: { Authorization: "Bearer ${API_TOKEN}" } }
      }
    })
    expect(statSync(userFile).mode & 0o777).toBe(0o600)
    const listed = await effectMcp(["config", "list", "--json"])
    expect(listed.code, listed.stderr).toBe(0)
    expect(
      JSON.parse(listed.stdout).servers.map((entry: { name: string; file: string; used: boolean }) => [
        entry.name,
        entry.file,
        entry.used
      ])
    ).toStrictEqual([
      ["ev", join(project, ".mcp.json"), true],
      ["remote", userFile, true]
    ])
    const removed = await effectMcp(["config", "remove", "ev"])
    expect(removed.code, removed.stderr).toBe(0)
    expect(JSON.parse(read(join(project, ".mcp.json")))).toStrictEqual({ mcpServers: {} })
    const again = await effectMcp(["config", "remove", "remote"])
    expect(again.code).toBe(2)
    expect(again.stderr).toContain(`no server "remote" in ${join(project, ".mcp.json")}; it is in ${userFile}`)
  })

  it("keeps a JSONC file's comments, other keys and trailing commas, and its permissions", async () => {
    const { project, write, read, effectMcp } = workspace()
    const file = join(project, ".mcp.json")
    write(
      file,
      [
        "// servers for this project",
        "{",
        '  "mcpServers": {',
        '    "docs": { "command": "docs-server" }, // the docs',
        "    /* the next one is old */",
        '    "old": { "command": "old-server" },',
        "  },",
        '  "other": [1, 2],',
        "}",
        ""
      ].join("\n")
    )
    chmodSync(file, 0o640)
    expect((await effectMcp(["config", "add", "ev", ...server])).code).toBe(0)
    expect((await effectMcp(["config", "remove", "old"])).code).toBe(0)
    const text = read(file)
    for (const kept of ["// servers for this project", "// the docs", "/* the next one is old */", '"other": [1, 2],'])
      expect(text).toContain(kept)
    expect(text).not.toContain("old-server")
    expect(statSync(file).mode & 0o777).toBe(0o640)
    const listed = await effectMcp(["config", "list", "--json"])
    expect(JSON.parse(listed.stdout).servers.map((entry: { name: string }) => entry.name)).toStrictEqual(["docs", "ev"])
  })

  it("a malformed project file is an error naming it (exit 2); another tool's broken user file is a warning", async () => {
    const { project, home, write, effectMcp } = workspace()
    write(join(home, ".gemini", "settings.json"), '{"mcpServers": {')
    write(join(home, ".cursor", "mcp.json"), JSON.stringify({ mcpServers: { cur: { command: "cursor-server" } } }))
    const warned = await effectMcp(["config", "list"])
    expect(warned.code, warned.stderr).toBe(0)
    expect(warned.stderr).toMatch(/warning: .*\.gemini\/settings\.json: invalid JSON .*\(its servers are left out\)/)
    expect(warned.stdout).toMatch(/^cur +stdio +cursor-server +.*\.cursor\/mcp\.json \(cursor\)$/m)
    write(join(project, ".mcp.json"), '{"mcpServers": {"a": }')
    for (const args of [
      ["config", "list"],
      ["config", "add", "b", "--", "node"],
      ["ping", "--server", "cur"]
    ]) {
      const failed = await effectMcp(args)
      expect([args.join(" "), failed.code]).toStrictEqual([args.join(" "), 2])
      expect(failed.stderr).toContain(`error: ${join(project, ".mcp.json")}: invalid JSON`)
    }
  })
})

describe("config import", () => {
  it("from Claude Desktop, VS Code (inputs kept as references), Codex and Zed, after a dry run that writes nothing", async () => {
    const { project, home, write, read, effectMcp } = workspace()
    write(
      join(home, ".config", "Claude", "claude_desktop_config.json"),
      JSON.stringify({ mcpServers: { desk: { command: "desk-server", args: ["--x"], env: { KEY: "literal" } } } })
    )
    write(
      join(project, ".vscode", "mcp.json"),
      JSON.stringify({
        inputs: [{ type: "promptString", id: "key", description: "API key", password: true }],
        servers: {
          gh: { type: "http", url: "https://gh.example/mcp", headers: { Authorization: "Bearer ${input:key}" } },
          home: { command: "${userHome}/bin/srv", env: { T: "${env:TOKEN}" } }
        }
      })
    )
    write(
      join(home, ".codex", "config.toml"),
      ['model = "o3"', "[mcp_servers.cx]", 'url = "https://cx.example/mcp"', 'bearer_token_env_var = "CX_TOKEN"'].join(
        "\n"
      )
    )
    write(
      join(home, ".config", "zed", "settings.json"),
      '// Zed\n{ "theme": "One", "context_servers": { "z": { "command": { "path": "zed-srv", "args": ["a"] } } } }'
    )
    const file = join(project, ".mcp.json")
    const dry = await effectMcp(["config", "import", "--from", "claude-desktop", "--dry-run"])
    expect(dry.code, dry.stderr).toBe(0)
    expect(dry.stdout).toMatch(/^would be added +desk +stdio +desk-server --x +from .*claude_desktop_config\.json/m)
    expect(() => read(file)).toThrow()
    for (const source of [
      ["--from", "claude-desktop"],
      [join(project, ".vscode", "mcp.json")],
      ["--from", "codex"],
      ["--from", "zed"]
    ]) {
      const imported = await effectMcp(["config", "import", ...source])
      expect([source, imported.code, imported.stderr]).toStrictEqual([source, 0, expect.any(String)])
    }
    expect(JSON.parse(read(file))).toStrictEqual({
      mcpServers: {
        desk: { command: "desk-server", args: ["--x"], env: { KEY: "literal" } },
        gh: { type: "http", url: "https://gh.example/mcp", headers: { Authorization: "Bearer ${input:key}" } },
        home: { command: "${HOME}/bin/srv", env: { T: "${TOKEN}" } },
        cx: { type: "http", url: "https://cx.example/mcp", headers: { Authorization: "Bearer ${CX_TOKEN}" } },
        z: { command: "zed-srv", args: ["a"] }
      },
      inputs: [{ type: "promptString", id: "key", description: "API key", password: true }]
    })
  })

  it("the same server again is unchanged; a different one of that name is a clash, kept unless --force", async () => {
    const { project, home, write, read, effectMcp } = workspace()
    const file = join(project, ".mcp.json")
    const codex = ["[mcp_servers.cx]", 'url = "https://cx.example/mcp"', 'bearer_token_env_var = "CX_TOKEN"']
    write(join(home, ".codex", "config.toml"), codex.join("\n"))
    expect((await effectMcp(["config", "import", "--from", "codex"])).code).toBe(0)
    const same = await effectMcp(["config", "import", "--from", "codex", "--json"])
    expect(JSON.parse(same.stdout).servers).toStrictEqual([
      { name: "cx", outcome: "unchanged", file: join(home, ".codex", "config.toml"), format: "codex" }
    ])
    write(join(home, ".codex", "config.toml"), ["[mcp_servers.cx]", 'command = "new-cx"'].join("\n"))
    const clash = await effectMcp(["config", "import", "--from", "codex"])
    expect(clash.code).toBe(2)
    expect(clash.stdout).toMatch(/^clash +cx /m)
    expect(clash.stderr).toContain(
      `not imported: cx (${file} has a different server of that name; --force replaces it)`
    )
    expect(JSON.parse(read(file)).mcpServers.cx.url).toBe("https://cx.example/mcp")
    expect((await effectMcp(["config", "import", "--from", "codex", "--force"])).code).toBe(0)
    expect(JSON.parse(read(file)).mcpServers.cx).toStrictEqual({ command: "new-cx" })
    const none = await effectMcp(["config", "import", "--from", "windsurf"])
    expect(none.code).toBe(2)
    expect(none.stderr).toMatch(/no windsurf config found \(looked in .*mcp_config\.json\)/)
  })
})

describe("config add writes a URL as each program expects it", () => {
  it("Claude Code's .mcp.json and VS Code's with their type, Gemini's httpUrl, Windsurf's serverUrl, Zed's url alone", async () => {
    const { project, home, write, read, effectMcp } = workspace()
    const url = "https://mcp.example/mcp"
    const add = async (file?: string) => {
      const added = await effectMcp([
        "config",
        "add",
        "remote",
        ...(file === undefined ? [] : ["--config", file]),
        "--url",
        url
      ])
      expect(added.code, added.stderr).toBe(0)
    }
    await add()
    expect(JSON.parse(read(join(project, ".mcp.json"))).mcpServers.remote).toStrictEqual({ type: "http", url })
    const files = {
      vscode: join(project, ".vscode", "mcp.json"),
      gemini: join(home, ".gemini", "settings.json"),
      windsurf: join(home, ".codeium", "windsurf", "mcp_config.json"),
      zed: join(home, ".config", "zed", "settings.json")
    }
    write(files.vscode, JSON.stringify({ servers: {} }))
    write(files.gemini, JSON.stringify({ mcpServers: {} }))
    write(files.windsurf, JSON.stringify({ mcpServers: {} }))
    write(files.zed, JSON.stringify({ context_servers: {} }))
    for (const file of Object.values(files)) await add(file)
    expect({
      vscode: JSON.parse(read(files.vscode)).servers.remote,
      gemini: JSON.parse(read(files.gemini)).mcpServers.remote,
      windsurf: JSON.parse(read(files.windsurf)).mcpServers.remote,
      zed: JSON.parse(read(files.zed)).context_servers.remote
    }).toStrictEqual({
      vscode: { type: "http", url },
      gemini: { httpUrl: url },
      windsurf: { serverUrl: url },
      zed: { url }
    })
  })
})

describe("config import keeps secrets out of project files", () => {
  const secrets = {
    gh: { command: "gh-server", env: { GITHUB_TOKEN: "ghp_literal0123456789", LOG_LEVEL: "debug" } },
    db: { command: "db-server", env: { DATABASE_URL: "postgres://ada:pw-1815@db.example/app" } },
    api: {
      type: "http",
      url: "https://api.example/mcp",
      headers: { Authorization: "Bearer sk-live-abcdef", "X-Trace": "on" },
      oauth: { clientId: "api-client", clientSecret: "cs-literal-42" }
    }
  }

  it("a literal token of a user-level file is written into the project's .mcp.json as a ${VAR} reference, the variable named", async () => {
    const { project, home, write, read, effectMcp } = workspace()
    write(join(home, ".claude.json"), JSON.stringify({ mcpServers: secrets }))
    const imported = await effectMcp(["config", "import", "--from", "claude-code"])
    expect(imported.code, imported.stderr).toBe(0)
    const text = read(join(project, ".mcp.json"))
    for (const secret of ["ghp_literal0123456789", "pw-1815", "sk-live-abcdef", "cs-literal-42"])
      expect(text).not.toContain(secret)
    expect(JSON.parse(text).mcpServers).toStrictEqual({
      gh: { command: "gh-server", env: { GITHUB_TOKEN: "${GITHUB_TOKEN}", LOG_LEVEL: "debug" } },
      db: { command: "db-server", env: { DATABASE_URL: "${DATABASE_URL}" } },
      api: {
        type: "http",
        url: "https://api.example/mcp",
        headers: { Authorization: "Bearer ${API_AUTHORIZATION}", "X-Trace": "on" },
        oauth: { clientId: "api-client", clientSecret: "${API_CLIENT_SECRET}" }
      }
    })
    expect(imported.stderr).toContain("set GITHUB_TOKEN in the environment effect-mcp runs in")
    expect(imported.stderr).toContain('header Authorization is written as "Bearer ${API_AUTHORIZATION}"')
    expect(imported.stderr).toContain("set API_AUTHORIZATION, API_CLIENT_SECRET in the environment")
    expect(imported.stderr).not.toMatch(/ghp_literal|pw-1815|sk-live|cs-literal/)
  })

  it("into the user's own file (owner only) the values are copied as they are", async () => {
    const { home, write, read, effectMcp } = workspace()
    write(join(home, ".claude.json"), JSON.stringify({ mcpServers: { gh: secrets.gh } }))
    const imported = await effectMcp(["config", "import", "--from", "claude-code", "--scope", "user"])
    expect(imported.code, imported.stderr).toBe(0)
    const [file] = /into (\S+):/.exec(imported.stdout)?.slice(1) ?? []
    expect(JSON.parse(read(file ?? "")).mcpServers.gh.env.GITHUB_TOKEN).toBe("ghp_literal0123456789")
  })
})

describe("servers found without --config, and --persist", () => {
  it("--server NAME finds a server of ~/.codex/config.toml and connects through it", async () => {
    const { home, write, effectMcp } = workspace()
    write(
      join(home, ".codex", "config.toml"),
      [
        "[mcp_servers.cx]",
        `command = ${JSON.stringify(process.execPath)}`,
        `args = [${JSON.stringify(everything)}, "stdio"]`
      ].join("\n")
    )
    const called = await effectMcp(["tools", "call", "get-sum", "a=2", "b=40", "--server", "cx"])
    expect(called.code, called.stderr).toBe(0)
    expect(called.stdout).toMatch(/The sum of 2 and 40 is 42/)
  })

  it("--persist saves the inline server once connected; a clash and a named server are refused before connecting", async () => {
    const { project, read, effectMcp } = workspace()
    const saved = await effectMcp(["ping", "--persist", "ev", ...server])
    expect(saved.code, saved.stderr).toBe(0)
    expect(saved.stderr).toContain(`saved as "ev" in ${join(project, ".mcp.json")}`)
    expect(JSON.parse(read(join(project, ".mcp.json")))).toStrictEqual({
      mcpServers: { ev: { command: process.execPath, args: [everything, "stdio"] } }
    })
    const named = await effectMcp(["ping", "--persist", "other", "--server", "ev"])
    expect(named.code).toBe(2)
    expect(named.stderr).toContain("--persist saves a server given inline")
    // A different server of that name: refused before anything starts (the command does not exist).
    const clash = await effectMcp(["ping", "--persist", "ev", "--", "no-such-command-anywhere"])
    expect(clash.code).toBe(2)
    expect(clash.stderr).toContain(`${join(project, ".mcp.json")}: server "ev": a different server of this name`)
  })
})
