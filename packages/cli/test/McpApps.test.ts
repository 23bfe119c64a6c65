/**
 * MCP Apps on the command line, against the official SDK v2 server with the extension's helpers
 * (the client's fixture): `tools list` marks the tools with a view (and those kept from the model),
 * `tools show` prints the view's address, visibility and what its resource declares (CSP domains,
 * permissions), and `resources read ui://…` saves the view's HTML (here, or into `--out`).
 */
import { mkdtempSync, readdirSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import { run } from "./support/cli.js"

const appsServer = fileURLToPath(new URL("../../client/test/fixtures/sdk-v2-apps-server.mjs", import.meta.url))
const server = (mode: "legacy" | "modern") => ["--", process.execPath, appsServer, mode]

describe("MCP Apps", () => {
  it("tools list marks the tools with a view, and the app-only one", async () => {
    const listed = await run(["tools", "list", ...server("legacy")])
    expect(listed.code).toBe(0)
    const line = (name: string) => listed.stdout.split("\n").find((row) => row.startsWith(`${name} `)) ?? ""
    expect(line("weather")).toMatch(/The weather, with a view \[view\]$/)
    expect(line("refresh")).toMatch(/Refreshes the view \[view, app only\]$/)
    expect(line("forecast")).toMatch(/\[view\]$/)
    expect(line("plain")).not.toContain("[view")
    expect(line("broken")).not.toContain("[view")
    // The malformed one is said, on stderr.
    expect(listed.stderr).toContain("tool broken has a malformed _meta.ui")
  })

  it("tools show prints the view's address, visibility and declared CSP (2026-07-28)", async () => {
    const shown = await run(["tools", "show", "weather", ...server("modern")])
    expect(shown.code).toBe(0)
    expect(shown.stdout).toContain("visibility  model, app\n")
    expect(shown.stdout).toContain("view  ui://weather/view.html\n")
    expect(shown.stdout).toContain("  csp  connect https://api.weather.example; resources https://cdn.example\n")
    expect(shown.stdout).toContain("  permissions  clipboardWrite\n")
    const json = await run(["tools", "show", "refresh", "--json", ...server("modern")])
    expect(JSON.parse(json.stdout)).toMatchObject({
      tool: { name: "refresh", ui: { resourceUri: "ui://weather/view.html", visibility: ["app"] } },
      view: { uri: "ui://weather/view.html", declared: { csp: { connectDomains: ["https://api.weather.example"] } } }
    })
  })

  it("resources read ui://… saves the HTML into the working directory, or into --out", async () => {
    const here = mkdtempSync(join(tmpdir(), "effect-mcp-apps-"))
    const read = await run(["resources", "read", "ui://weather/view.html", ...server("legacy")], { cwd: here })
    expect(read.code).toBe(0)
    expect(read.stdout).toContain("saved to view.html\n")
    expect(read.stdout).not.toContain("<h1>")
    expect(readFileSync(join(here, "view.html"), "utf8")).toContain("<h1>weather view</h1>")
    const out = join(here, "views")
    const again = await run(["resources", "read", "ui://weather/view.html", "--out", out, ...server("modern")])
    expect(again.code).toBe(0)
    expect(again.stdout).toContain(`saved to ${join(out, "view.html")}\n`)
    expect(again.stdout).toContain("  csp  connect https://api.weather.example")
    expect(readdirSync(out)).toStrictEqual(["view.html"])
  })
})
