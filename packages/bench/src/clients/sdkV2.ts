/** The official TypeScript SDK's client v2 (`@modelcontextprotocol/client`), over its own transports. */
import { Client as SdkClient, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { type Client, SDK_CALL_TIMEOUT_MS, sdkSession } from "./Client.js"

/** The SDK v2 client. */
export const client: Client = {
  name: "sdk-v2",
  connect: async (target) => {
    const sdk = new SdkClient({ name: "bench", version: "1.0.0" })
    await sdk.connect(
      target.kind === "stdio"
        ? new StdioClientTransport({ command: target.command, args: [...target.args] })
        : new StreamableHTTPClientTransport(new URL(target.url))
    )
    return sdkSession({
      listTools: () => sdk.listTools(),
      callTool: (name, args) => sdk.callTool({ name, arguments: args }, { timeout: SDK_CALL_TIMEOUT_MS }),
      close: () => sdk.close()
    })
  }
}
