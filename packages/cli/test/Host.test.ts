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
        gone: { command: "no-such-mcp-server-anywhere" }
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
    expect(result.code, result.stderr).toBe(0)
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

  it("tools lists one namespaced toolset; call routes by namespaced name", async () => {
    const tools = await run(["host", "tools", "--json"], { cwd })
    expect(tools.code, tools.stderr).toBe(0)
    const names: ReadonlyArray<string> = JSON.parse(tools.stdout).tools.map((tool: { name: string }) => tool.name)
    expect(names).toEqual(expect.arrayContaining(["one__echo", "two__echo", "web__echo", "web__get-sum"]))
    const call = await run(["host", "call", "web__get-sum", "a=2", "b=40"], { cwd })
    expect([call.code, call.stderr]).toStrictEqual([0, ""])
    expect(call.stdout).toMatch(/42/)
    const unknown = await run(["host", "call", "nobody__echo", "message=x"], { cwd })
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(/no ready server offers "nobody__echo"/)
  })

  it("without a config file it says so (exit 2)", async () => {
    const empty = mkdtempSync(join(tmpdir(), "effect-mcp-host-empty-"))
    const result = await run(["host", "status"], { cwd: empty, env: { HOME: empty } })
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/no config file was found/)
  })
})
