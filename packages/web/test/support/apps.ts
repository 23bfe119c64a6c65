/**
 * For the MCP Apps tests: the fixture server whose view is the extension's own `App` (two of them,
 * each naming the other), and Debian's Chromium launched the way these tests drive it.
 */
import { fileURLToPath } from "node:url"
import type { McpHost } from "@effect-mcp/host"

const fixture = fileURLToPath(new URL("../fixtures/apps-server.mjs", import.meta.url))

/** The fixture server `label` over stdio; its view calls `<other>-only` as another server's tool. */
export const appsServer = (label: string, other: string): McpHost.ServerConfig => ({
  name: label,
  target: { _tag: "Stdio", command: process.execPath, args: [fixture, label, other], env: {} }
})

/** The two fixture servers, alpha and beta. */
export const appsServers = () => [appsServer("alpha", "beta"), appsServer("beta", "alpha")]
