/**
 * `effect-mcp host shell` over a config of the reference server twice (`one`, `two`: the same
 * resources, hence the same URIs) and a server whose command is missing (`gone`): what the
 * session says of the servers at its start, and what it offers of them.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { beforeAll, describe, expect, it } from "@effect/vitest"
import { eventually, everything, run } from "./support/cli.js"
import { startOnTerminal } from "./support/pty.js"

const stdio = { command: process.execPath, args: [everything, "stdio"] }
const testServer = fileURLToPath(new URL("fixtures/test-server.mjs", import.meta.url))
/** A directory with a `.mcp.json` of these servers. */
const configOf = (servers: { readonly [name: string]: unknown }) => {
  const dir = mkdtempSync(join(tmpdir(), "effect-mcp-host-shell-"))
  writeFileSync(join(dir, ".mcp.json"), JSON.stringify({ mcpServers: servers }))
  return dir
}
let cwd = ""
let solo = ""
beforeAll(() => {
  cwd = configOf({ one: stdio, two: stdio, gone: { command: "no-such-mcp-server-anywhere" } })
  solo = configOf({ one: stdio })
})

const TEXT = "demo://resource/dynamic/text/5"
const DOCUMENT = "demo://resource/static/document/architecture.md"

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

  it("reads a URI that a template matches", async () => {
    const result = await run(["host", "shell"], {
      cwd: solo,
      input: `resources read ${TEXT}\nresources templates\nreconnect\n`
    })
    // A line failed (said on stderr): the piped session exits 2.
    expect(result.code, result.stderr).toBe(2)
    expect(result.stderr).toContain("error: reconnect: the host starts its servers again itself")
    expect(result.stdout).toMatch(/^Resource 5: This is a plaintext resource/m)
    expect(result.stdout).toMatch(/^demo:\/\/resource\/dynamic\/text\/\{resourceId\} +.*\(one\)$/m)
  })

  it("shows a URI two servers list for both; reading it wants --server off a terminal", async () => {
    const result = await run(["host", "shell"], {
      cwd,
      input: `resources list\nresources read ${TEXT}\nresources read ${TEXT} --server two\nresources read ${DOCUMENT} --server gone\n`
    })
    // A line failed (said on stderr): the piped session exits 2.
    expect(result.code, result.stderr).toBe(2)
    const rows = result.stdout.split("\n").filter((line) => line.startsWith(`${DOCUMENT} `))
    expect(rows.map((line) => /\((\w+)\)$/.exec(line)?.[1])).toStrictEqual(["one", "two"])
    expect(result.stderr).toMatch(
      new RegExp(`error: ${TEXT} can be read from one and two: add --server one or --server two`)
    )
    expect(result.stdout).toMatch(/^Resource 5: This is a plaintext resource/m)
    expect(result.stderr).toMatch(/error: --server gone: it is not ready \(failed: /)
  })

  it("on a terminal, asks which server to read a URI from when several can", async () => {
    const shell = hostShell()
    let at = await shell.waitFor("host> ")
    await shell.type(`resources read ${TEXT}\r`)
    at = await shell.waitFor(`${TEXT} can be read from 2 servers; read it from`, at)
    await shell.type("\x1b[B\r")
    at = await shell.waitFor("Resource 5: This is a plaintext resource", at)
    await shell.type("\x04")
    expect((await shell.finished).code).toBe(0)
  }, 60_000)

  it("logs and subscriptions, as the one-server shell has them, labelled by server", async () => {
    const result = await run(["host", "shell"], {
      cwd,
      input: [
        "logs on debug",
        "tools call one__toggle-simulated-logging",
        `subscribe ${DOCUMENT}`,
        `subscribe ${DOCUMENT} --server two`,
        "tools call two__toggle-subscriber-updates",
        // Time for both to send something (logs every 5 s, updates every few).
        "tools call one__trigger-long-running-operation duration:=8 steps:=1",
        `unsubscribe ${DOCUMENT}`,
        "logs off"
      ].join("\n"),
      timeoutMs: 40_000
    })
    // A line failed (said on stderr): the piped session exits 2.
    expect(result.code, result.stderr).toBe(2)
    expect(result.stderr).toContain("showing log messages at debug and above from one, two")
    expect(result.stderr).toMatch(/^one: \[\w+\] .*level.message/m)
    expect(result.stderr).toMatch(
      new RegExp(`error: ${DOCUMENT} can be read from one and two: add --server one or --server two`)
    )
    expect(result.stderr).toContain(`subscribed to ${DOCUMENT} on two`)
    expect(result.stderr).toContain(`two: updated: ${DOCUMENT}`)
    expect(result.stderr).not.toContain(`one: updated: ${DOCUMENT}`)
    expect(result.stderr).toContain(`unsubscribed from ${DOCUMENT} on two`)
    expect(result.stderr).toContain("log messages hidden")
  }, 45_000)

  it("applies the log level and the subscriptions again to a server's next session after it died", async () => {
    const received = join(mkdtempSync(join(tmpdir(), "effect-mcp-host-restart-")), "received.log")
    writeFileSync(received, "")
    const dir = configOf({ test: { command: process.execPath, args: [testServer, received, "sessions"] } })
    const shell = startOnTerminal(["host", "shell"], { cwd: dir, env: { XDG_STATE_HOME: dir, NO_COLOR: "1" } })
    let at = await shell.waitFor("host> ")
    await shell.type("logs on info\r")
    at = await shell.waitFor("showing log messages at info and above from test", at)
    await shell.type("subscribe test://doc\r")
    at = await shell.waitFor("subscribed to test://doc", at)
    await shell.type("tools call test__exit\r")
    const count = (method: string) => readFileSync(received, "utf8").split(`"method":"${method}"`).length - 1
    await eventually(() => count("initialize") === 2, "the server to be started again")
    await eventually(
      () => count("logging/setLevel") === 2 && count("resources/subscribe") === 2,
      "the level and the subscription on the new session"
    )
    // Ctrl-D at the next prompt (typed while the call still ends, it is the terminal's, as in a shell).
    at = await shell.waitFor("error: test: the server process exited", at)
    await shell.waitFor("host> ", at)
    await shell.type("\x04")
    expect((await shell.finished).code).toBe(0)
  }, 60_000)

  it("a server whose session dies and is started again: its stderr's last lines are said once", async () => {
    const dir = mkdtempSync(join(tmpdir(), "effect-mcp-host-crash-"))
    const received = join(dir, "received.log")
    writeFileSync(received, "")
    const server = [process.execPath, testServer, received, "sessions"].map((word) => `'${word}'`).join(" ")
    // The first session ends by itself after 2 s, saying why on stderr; the next one lasts.
    const crashOnce = [
      `if [ -e '${dir}/crashed' ]; then exec ${server}; fi`,
      `touch '${dir}/crashed'`,
      `timeout 2 ${server}`,
      "echo 'Error: the first session dies' >&2",
      "echo '    at crash (crash.js:1:1)' >&2",
      "exit 3"
    ].join("; ")
    writeFileSync(
      join(dir, ".mcp.json"),
      JSON.stringify({ mcpServers: { test: { command: "/bin/sh", args: ["-c", crashOnce] } } })
    )
    const shell = startOnTerminal(["host", "shell"], { cwd: dir, env: { XDG_STATE_HOME: dir, NO_COLOR: "1" } })
    const prompt = await shell.waitFor("host> ")
    const restarting = await shell.waitFor("reconnecting (attempt 1)", prompt)
    await shell.waitFor("test: ready", restarting)
    await shell.type("\x04")
    const { code, screen } = await shell.finished
    expect(code, screen).toBe(0)
    expect(screen.split("Error: the first session dies").length - 1, screen).toBe(1)
    expect(screen.split("at crash (crash.js:1:1)").length - 1, screen).toBe(1)
    expect(screen).toMatch(/the server process exited with code 3/)
  }, 60_000)

  it("a session that a command ends: the stderr's last lines once, in the status line or the command's error", async () => {
    const dir = mkdtempSync(join(tmpdir(), "effect-mcp-host-crash-"))
    const received = join(dir, "received.log")
    writeFileSync(received, "")
    const server = [process.execPath, testServer, received, "sessions"].map((word) => `'${word}'`).join(" ")
    // `tools call test__exit` ends the session, saying why on stderr.
    const dies = `${server}; echo 'Error: a call ended the session' >&2; echo '    at exit (exit.js:1:1)' >&2; exit 3`
    writeFileSync(
      join(dir, ".mcp.json"),
      JSON.stringify({ mcpServers: { test: { command: "/bin/sh", args: ["-c", dies] } } })
    )
    const shell = startOnTerminal(["host", "shell"], { cwd: dir, env: { XDG_STATE_HOME: dir, NO_COLOR: "1" } })
    let at = await shell.waitFor("host> ")
    await shell.type("tools call test__exit\r")
    at = await shell.waitFor("error: test: the server process exited with code 3", at)
    await shell.waitFor("reconnecting (attempt 1)")
    await shell.waitFor("test: ready")
    await shell.waitFor("host> ", at)
    await shell.type("\x04")
    const { code, screen } = await shell.finished
    expect(code, screen).toBe(0)
    expect(screen.split("Error: a call ended the session").length - 1, screen).toBe(1)
    expect(screen.split("at exit (exit.js:1:1)").length - 1, screen).toBe(1)
  }, 60_000)
})
