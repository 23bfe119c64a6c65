/**
 * The official TypeScript SDK's client (v1, `@modelcontextprotocol/sdk`), over its own transports,
 * each loaded when a session needs it (as effect-mcp's bench client does).
 */
import { Client as SdkClient } from "@modelcontextprotocol/sdk/client/index.js"
import { type Client, SDK_CALL_TIMEOUT_MS, sdkSession } from "./Client.js"

const loadStdio = () => import("@modelcontextprotocol/sdk/client/stdio.js")
const loadHttp = () => import("@modelcontextprotocol/sdk/client/streamableHttp.js")

/** The SDK v1 client. */
export const client: Client = {
  name: "sdk-v1",
  prepare: async (target) => {
    await (target.kind === "stdio" ? loadStdio() : loadHttp())
  },
  connect: async (target) => {
    const sdk = new SdkClient({ name: "bench", version: "1.0.0" })
    await sdk.connect(
      target.kind === "stdio"
        ? new (await loadStdio()).StdioClientTransport({
            command: target.command,
            args: [...target.args]
          })
        : new (await loadHttp()).StreamableHTTPClientTransport(new URL(target.url))
    )
    return sdkSession({
      listTools: () => sdk.listTools(),
      callTool: (name, args) => sdk.callTool({ name, arguments: args }, undefined, { timeout: SDK_CALL_TIMEOUT_MS }),
      close: () => sdk.close()
    })
  }
}
