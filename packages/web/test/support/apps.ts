/**
 * For the MCP Apps tests: the fixture server whose view is the extension's own `App` (two of them,
 * each naming the other), and Debian's Chromium launched the way these tests drive it.
 */
import { fileURLToPath } from "node:url"
import type { McpHost } from "@effect-mcp/host"
import { type Browser, chromium } from "playwright-core"

const fixture = fileURLToPath(new URL("../fixtures/apps-server.mjs", import.meta.url))

/** The fixture server `label` over stdio; its view calls `<other>-only` as another server's tool. */
export const appsServer = (label: string, other: string): McpHost.ServerConfig => ({
  name: label,
  target: { _tag: "Stdio", command: process.execPath, args: [fixture, label, other], env: {} }
})

/** The two fixture servers, alpha and beta. */
export const appsServers = () => [appsServer("alpha", "beta"), appsServer("beta", "alpha")]

/** Chromium, headless, from the system (no download). */
export const launchChromium = (): Promise<Browser> =>
  chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run"
    ]
  })
