/** The official TypeScript SDK's client (v1, `@modelcontextprotocol/sdk`), over its own transports. */
import { Client as SdkClient } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { Client } from "./Session.js"

const textLength = (result: Awaited<ReturnType<SdkClient["callTool"]>>) =>
  Array.isArray(result.content)
    ? result.content.reduce(
        (sum: number, block: { type: string; text?: unknown }) =>
          sum + (block.type === "text" && typeof block.text === "string" ? block.text.length : 0),
        0
      )
    : 0

/** The SDK v1 client. */
export const client: Client = {
  name: "sdk-v1",
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
        await sdk.callTool({ name: "echo", arguments: { message } }, undefined, options)
      },
      blob: async (kb) => textLength(await sdk.callTool({ name: "blob", arguments: { kb } }, undefined, options)),
      sleep: async (ms) => {
        await sdk.callTool({ name: "sleep", arguments: { ms } }, undefined, options)
      },
      close: () => sdk.close()
    }
  }
}
