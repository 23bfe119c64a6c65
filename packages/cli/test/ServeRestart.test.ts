/**
 * `effect-mcp serve` on the built binary, as a platform runs it for long: a server that keeps
 * crashing is restarted for as long as the gateway runs (not given up on after five), its restarts
 * noted on stderr; `SIGHUP` and an edit of the config file reload the set of servers (`SIGHUP`
 * killed the gateway).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { afterEach, describe, expect, it } from "vitest"
import { eventually, run, type Started, start } from "./support/cli.js"

const cwd = mkdtempSync(join(tmpdir(), "effect-mcp-serve-restart-"))
/** A server that counts its starts and exits at once while its `broken` file exists (tools `ping_me`, `die`). */
const script = fileURLToPath(new URL("../../host/test/fixtures/flaky-server.mjs", import.meta.url))
const config = join(cwd, ".mcp.json")

const servers = (entries: Record<string, { readonly counter: string }>) =>
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: Object.fromEntries(
        Object.entries(entries).map(([name, { counter }]) => [
          name,
          { command: process.execPath, args: [script, join(cwd, counter), join(cwd, `${name}-broken`)] }
        ])
      )
    })
  )

let gateway: Started | undefined

afterEach(() => {
  gateway?.child.kill("SIGKILL")
})

const serve = async () => {
  const started = start(["serve", "--config", config, "--port", "0"], { cwd, timeoutMs: 300_000 })
  started.finished.catch(() => undefined)
  gateway = started
  await eventually(() => /listening (http:\/\/\S+)/.test(started.stdout()), "the gateway to listen")
  const url = new URL(/listening (http:\/\/\S+)/.exec(started.stdout())?.[1] ?? "")
  const client = new Client({ name: "restart-test", version: "1.0.0" })
  await client.connect(new StreamableHTTPClientTransport(url))
  return { started, client }
}

const toolNames = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name)

describe("effect-mcp serve, for as long as it runs", () => {
  it("restarts a server that crashed more than five times in a row, and its tools come back", async () => {
    servers({ flaky: { counter: "flaky-starts" } })
    const { started, client } = await serve()
    try {
      expect(await toolNames(client)).toContain("flaky__ping_me")
      // The call dies with the process; the server is broken for five restarts in a row (the
      // default schedule's all), and mended before the sixth.
      writeFileSync(join(cwd, "flaky-broken"), "")
      await client.callTool({ name: "flaky__die", arguments: {} }).catch(() => undefined)
      await eventually(() => /flaky: .*restarting \(attempt 6\)/.test(started.stderr()), "the sixth restart", 30_000)
      // Its state is noted as it goes (a line of its own, written just after the restart's).
      await eventually(
        () => /warning: flaky {2}stdio {2}reconnecting \(attempt 6\) after: /.test(started.stderr()),
        "the sixth restart noted in the server's state",
        10_000
      )
      rmSync(join(cwd, "flaky-broken"))
      let answer = ""
      await eventually(
        () => {
          void client
            .callTool({ name: "flaky__ping_me", arguments: {} })
            .then((result) => {
              answer = JSON.stringify(result.content)
            })
            .catch(() => undefined)
          return answer.includes("start")
        },
        "the server back after its crashes",
        40_000
      )
      expect(started.stderr()).not.toMatch(/flaky {2}stdio {2}failed/)
    } finally {
      await client.close()
    }
  }, 120_000)

  it("SIGHUP reloads the config: a server added appears and the gateway lives on; so does an edit of the file", async () => {
    servers({ first: { counter: "first-starts" } })
    const { started, client } = await serve()
    try {
      expect(await toolNames(client)).toContain("first__ping_me")
      servers({ first: { counter: "first-starts" }, second: { counter: "second-starts" } })
      started.child.kill("SIGHUP")
      let names: ReadonlyArray<string> = []
      await eventually(() => {
        void toolNames(client).then(
          (listed) => {
            names = listed
          },
          () => undefined
        )
        return names.includes("second__ping_me")
      }, "the second server after SIGHUP")
      expect(started.child.exitCode).toBeNull()
      expect(started.stderr()).toContain("config reloaded (SIGHUP)")
      // The file alone, edited: the second server goes.
      servers({ first: { counter: "first-starts" } })
      await eventually(() => {
        void toolNames(client).then(
          (listed) => {
            names = listed
          },
          () => undefined
        )
        return !names.includes("second__ping_me") && names.includes("first__ping_me")
      }, "the second server gone after the file changed")
    } finally {
      await client.close()
    }
  }, 120_000)
})

describe("effect-mcp serve, with servers that cannot start", () => {
  it("warns of each on stderr, as host status shows it, and serves the others", async () => {
    const failing = join(cwd, "failing.json")
    writeFileSync(
      failing,
      JSON.stringify({
        mcpServers: {
          good: { command: process.execPath, args: [script, join(cwd, "good-starts"), join(cwd, "good-broken")] },
          missing: { command: "effect-mcp-no-such-command" },
          crash: { command: process.execPath, args: ["-e", "console.error('Error: broken at start'); process.exit(3)"] }
        }
      })
    )
    const started = start(["serve", "--config", failing], { cwd, keepStdinOpen: true, timeoutMs: 120_000 })
    started.finished.catch(() => undefined)
    gateway = started
    const warnings = () =>
      started
        .stderr()
        .split("\n")
        .filter((line) => line.startsWith("warning: "))
    await eventually(() => warnings().length >= 2, "a warning for each server that cannot start")
    const status = await run(["host", "status", "--config", failing], { cwd, timeoutMs: 60_000 })
    // host status's rows, each on one line whatever the width it wrapped them at.
    const rows = status.stdout
      .replace(/\n\s{2,}/g, " ")
      .split("\n")
      .map((row) => row.replace(/\s+/g, " ").trim())
    const said = warnings().map((line) => line.slice("warning: ".length).replace(/\s+/g, " "))
    expect(said).toHaveLength(2)
    expect(said).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^missing stdio failed: .*not found/),
        expect.stringMatching(/^crash stdio failed: .*exited with code 3 .*Error: broken at start/)
      ])
    )
    for (const row of said) expect(rows).toContain(row)
    expect(rows).toContainEqual(expect.stringMatching(/^good stdio ready/))
    expect(started.child.exitCode).toBeNull()
  }, 120_000)
})
