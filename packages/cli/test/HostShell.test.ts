/**
 * `effect-mcp host shell` over a config of the reference server twice (`one`, `two`: the same
 * resources, hence the same URIs) and a server whose command is missing (`gone`): what the
 * session says of the servers at its start, and what it offers of them.
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "@effect/vitest"
import { everything } from "./support/cli.js"
import { startOnTerminal } from "./support/pty.js"

let cwd = ""
beforeAll(() => {
  cwd = mkdtempSync(join(tmpdir(), "effect-mcp-host-shell-"))
  const stdio = { command: process.execPath, args: [everything, "stdio"] }
  writeFileSync(
    join(cwd, ".mcp.json"),
    JSON.stringify({ mcpServers: { one: stdio, two: stdio, gone: { command: "no-such-mcp-server-anywhere" } } })
  )
})

/** A host shell on a terminal over the config. */
const hostShell = () =>
  startOnTerminal(["host", "shell"], { cwd, env: { XDG_STATE_HOME: cwd, NO_COLOR: "1" }, columns: 200 })

describe("effect-mcp host shell", () => {
  it("says at its start which servers failed, and why", async () => {
    const shell = hostShell()
    const banner = await shell.waitFor("connected to host")
    const prompt = await shell.waitFor("host> ", banner)
    const said = shell.screen().slice(banner, prompt)
    expect(said).toMatch(/warning: gone failed to start: .*no-such-mcp-server-anywhere/)
    expect(said).not.toMatch(/\bone\b|\btwo\b/)
    await shell.type("\x04")
    expect((await shell.finished).code).toBe(0)
  }, 60_000)
})
