/**
 * Config files as a user meets them through the built binary: Codex's config.toml, Zed's
 * older command form, one broken entry reported and skipped while the others work, and
 * `servers` as an aligned table or JSON.
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { everything, run } from "./support/cli.js"

const quoted = (text: string) => JSON.stringify(text)

describe("config files", () => {
  it("reads Codex's config.toml: servers, and a call through one of them", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "effect-mcp-codex-"))
    writeFileSync(
      join(cwd, "config.toml"),
      [
        'model = "o3"',
        "[mcp_servers.everything]",
        `command = ${quoted(process.execPath)}`,
        `args = [${quoted(everything)}, "stdio"]`,
        "startup_timeout_sec = 20",
        "[mcp_servers.remote]",
        'url = "https://mcp.example/mcp"',
        'bearer_token_env_var = "REMOTE_TOKEN"'
      ].join("\n")
    )
    const listed = await run(["servers", "--config", "config.toml", "--json"], { cwd })
    expect(listed.code, listed.stderr).toBe(0)
    expect(JSON.parse(listed.stdout).servers).toStrictEqual([
      {
        name: "everything",
        transport: "stdio",
        command: process.execPath,
        args: [everything, "stdio"],
        file: join(cwd, "config.toml"),
        format: "codex"
      },
      {
        name: "remote",
        transport: "http",
        url: "https://mcp.example/mcp",
        httpTransport: "http",
        file: join(cwd, "config.toml"),
        format: "codex"
      }
    ])
    const called = await run(
      ["tools", "call", "get-sum", "a:=2", "b:=40", "--server", "everything", "--config", "config.toml"],
      { cwd }
    )
    expect(called.code, called.stderr).toBe(0)
    expect(called.stdout).toMatch(/42/)
  })

  it("skips one broken entry with its file, server and field; the others work", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "effect-mcp-bad-entry-"))
    writeFileSync(
      join(cwd, ".mcp.json"),
      JSON.stringify({
        mcpServers: {
          everything: { command: process.execPath, args: [everything, "stdio"] },
          bad: { command: "node", args: [1] },
          a: { type: "http", url: "http://127.0.0.1:9/mcp" }
        }
      })
    )
    const listed = await run(["servers"], { cwd })
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.stderr).toMatch(
      /warning: .*\.mcp\.json: server "bad", field "args\.0": Expected string, actual 1 \(server left out\)/
    )
    // An aligned table: the transport and target columns start at the same place on every line.
    const lines = listed.stdout.trimEnd().split("\n")
    expect(lines.map((line) => line.split(/ {2,}/)[0]?.trim())).toStrictEqual(["everything", "a"])
    expect(new Set(lines.map((line) => line.search(/stdio|http/))).size).toBe(1)
    expect(new Set(lines.map((line) => line.search(/\/|http:/))).size).toBe(1)
    const pinged = await run(["ping", "--server", "everything"], { cwd })
    expect(pinged.code, pinged.stderr).toBe(0)
    const broken = await run(["ping", "--server", "bad"], { cwd })
    expect(broken.code).toBe(2)
    expect(broken.stderr).toMatch(/server "bad", field "args\.0"/)
  })

  it("reads Zed's older command form and its source: custom without a warning", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "effect-mcp-zed-"))
    writeFileSync(
      join(cwd, "settings.json"),
      JSON.stringify({
        context_servers: {
          everything: { source: "custom", command: { path: process.execPath, args: [everything, "stdio"] } }
        }
      })
    )
    const pinged = await run(["ping", "--server", "everything", "--config", "settings.json"], { cwd })
    expect(pinged.code, pinged.stderr).toBe(0)
    expect(pinged.stderr).toBe("")
  })

  it("a YAML file says it is a format effect-mcp does not read", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "effect-mcp-yaml-"))
    writeFileSync(join(cwd, "config.yaml"), "mcpServers:\n  a:\n    command: x\n")
    const listed = await run(["servers", "--config", "config.yaml"], { cwd })
    expect(listed.code).toBe(2)
    expect(listed.stderr).toMatch(/is YAML .*does not read/)
  })
})
