/**
 * `effect-mcp host …` as a user runs it: the built binary over a config with the reference
 * server twice over stdio, once over Streamable HTTP, and one entry whose command is missing.
 */

import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { type RunningServer, startEverything } from "../../client/test/support/httpServers.js"
import { everything, run } from "./support/cli.js"

let web: RunningServer | undefined
let cwd = ""
beforeAll(async () => {
  web = await startEverything("streamableHttp")
  cwd = mkdtempSync(join(tmpdir(), "effect-mcp-host-"))
  const stdio = { command: process.execPath, args: [everything, "stdio"] }
  writeFileSync(
    join(cwd, ".mcp.json"),
    JSON.stringify({
      mcpServers: {
        one: stdio,
        two: stdio,
        web: { type: "http", url: `${web.origin}/mcp` },
        gone: { command: "no-such-mcp-server-anywhere" },
        broken: { command: "node", args: "not a list" }
      }
    })
  )
})
afterAll(async () => {
  await web?.stop()
})

describe("effect-mcp host", () => {
  it("status shows every server, the missing one failed with its reason", async () => {
    const result = await run(["host", "status"], { cwd })
    // A failed server makes the status a failure; the broken entry is reported and left out.
    expect(result.code, result.stderr).toBe(3)
    expect(result.stderr).toMatch(/error: 1 of 4 servers failed: gone/)
    expect(result.stderr).toMatch(/warning: .*\.mcp\.json: server "broken", field "args": .*\(server left out\)/)
    expect(result.stdout).not.toMatch(/^broken/m)
    expect(result.stdout).toMatch(/^one +stdio +ready/m)
    expect(result.stdout).toMatch(/^two +stdio +ready/m)
    expect(result.stdout).toMatch(/^web +http +ready/m)
    expect(result.stdout).toMatch(/^gone +stdio +failed: .*no-such-mcp-server-anywhere/m)
    const json = await run(["host", "status", "--json"], { cwd })
    expect(JSON.parse(json.stdout).servers.map((server: { status: string }) => server.status)).toStrictEqual([
      "Ready",
      "Ready",
      "Ready",
      "Failed"
    ])
  })

  it("status --quiet for scripts: nothing printed, the exit code says it (--exit-code: every server ready)", async () => {
    const quiet = await run(["host", "status", "--quiet"], { cwd })
    expect(quiet.code).toBe(3)
    expect(quiet.stdout).toBe("")
    expect(quiet.stderr).not.toMatch(/servers failed/)
    const healthy = mkdtempSync(join(tmpdir(), "effect-mcp-healthy-"))
    writeFileSync(
      join(healthy, ".mcp.json"),
      JSON.stringify({ mcpServers: { one: { command: process.execPath, args: [everything, "stdio"] } } })
    )
    for (const flags of [["--quiet"], ["--quiet", "--exit-code"]]) {
      const ok = await run(["host", "status", ...flags], { cwd: healthy })
      expect({ code: ok.code, stdout: ok.stdout, stderr: ok.stderr }).toStrictEqual({ code: 0, stdout: "", stderr: "" })
    }
    const strict = await run(["host", "status", "--exit-code"], { cwd })
    expect(strict.code).toBe(3)
    expect(strict.stdout).toMatch(/^gone +stdio +failed/m)
  })

  it("tools lists the servers that started and names the one that failed, with its reason (exit 3)", async () => {
    const tools = await run(["host", "tools"], { cwd })
    expect(tools.code, tools.stderr).toBe(3)
    expect(tools.stdout).toMatch(/^one__echo +/m)
    expect(tools.stdout).toMatch(/^web__get-sum +/m)
    expect(tools.stderr).toMatch(/^error: 1 of 4 servers failed: gone\n {2}gone: .*no-such-mcp-server-anywhere/m)
    const json = await run(["host", "tools", "--json"], { cwd })
    expect(json.code, json.stderr).toBe(3)
    const names: ReadonlyArray<string> = JSON.parse(json.stdout).tools.map((tool: { name: string }) => tool.name)
    expect(names).toEqual(expect.arrayContaining(["one__echo", "two__echo", "web__echo", "web__get-sum"]))
    const error = JSON.parse(json.stderr.trim().split("\n").at(-1) ?? "{}").error
    expect(error).toMatchObject({ kind: "ServersFailed", exitCode: 3 })
    expect(error.message).toMatch(/gone: .*no-such-mcp-server-anywhere/)
  })

  it("call routes by namespaced name", async () => {
    const call = await run(["host", "call", "web__get-sum", "a=2", "b=40"], { cwd })
    expect(call.code, call.stderr).toBe(0)
    expect(call.stderr.split("\n").filter((line) => line !== "" && !line.startsWith("warning:"))).toStrictEqual([])
    expect(call.stdout).toMatch(/42/)
    const unknown = await run(["host", "call", "nobody__echo", "message=x"], { cwd })
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(/no ready server offers "nobody__echo"/)
    // A typo lists the closest names, not all of them.
    const typo = await run(["host", "call", "web__get-sun", "a=2", "b=40"], { cwd })
    expect(typo.code).toBe(2)
    expect(typo.stderr).toMatch(/no ready server offers "web__get-sun" \(did you mean web__get-sum/)
    expect(typo.stderr).not.toMatch(/one__echo/)
    // A tool of a server that is down says why it is down.
    const down = await run(["host", "call", "gone__echo", "message=x"], { cwd })
    expect(down.code).toBe(2)
    expect(down.stderr).toMatch(
      /"gone__echo" cannot be called: gone is not ready \(failed: .*no-such-mcp-server-anywhere/
    )
  })

  it("without a config file it says so (exit 2)", async () => {
    const empty = mkdtempSync(join(tmpdir(), "effect-mcp-host-empty-"))
    const result = await run(["host", "status"], { cwd: empty, env: { HOME: empty } })
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/no config file was found/)
  })
})
