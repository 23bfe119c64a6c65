/** The official TypeScript SDK's client v2 (`@modelcontextprotocol/client`), over its own transports. */
import { Client as SdkClient, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import type { Client } from "./Session.js"

const textLength = (result: Awaited<ReturnType<SdkClient["callTool"]>>) =>
  result.content.reduce((sum, block) => sum + (block.type === "text" ? block.text.length : 0), 0)

/** The SDK v2 client. */
export const client: Client = {
  name: "sdk-v2",
  connect: async (target) => {
    const sdk = new SdkClient({ name: "bench", version: "1.0.0" })
    const transport =
      target.kind === "stdio"
        ? new StdioClientTransport({ command: target.command, args: [...target.args] })
        : new StreamableHTTPClientTransport(new URL(target.url))
    await sdk.connect(transport)
    const options = { timeout: 120_000 }
    return {
      list: async () => (await sdk.listTools()).tools.length,
      echo: async (message) => {
        await sdk.callTool({ name: "echo", arguments: { message } }, options)
      },
      blob: async (kb) => textLength(await sdk.callTool({ name: "blob", arguments: { kb } }, options)),
      sleep: async (ms) => {
        await sdk.callTool({ name: "sleep", arguments: { ms } }, options)
      },
      close: () => sdk.close()
    }
  }
}
