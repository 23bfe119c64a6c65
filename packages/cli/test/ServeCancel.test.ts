/**
 * Cancellation end to end through `effect-mcp serve` on the built binary, with the gateway's fault
 * server behind it (`slow` reports progress once, then waits until it is cancelled; `cancelled`
 * says how many `slow` calls it saw cancelled): the official SDK v2 client aborts one call over
 * stdio (2025-11-25, `notifications/cancelled`) and over Streamable HTTP (at 2025-11-25, and at
 * 2026-07-28, where closing the call's stream is the cancellation); each time the server sees the
 * call cancelled, and the client's connection goes on.
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bin, eventually, type Started, start } from "./support/cli.js"
import { stop } from "./support/processes.js"

const cwd = mkdtempSync(join(tmpdir(), "effect-mcp-serve-cancel-"))
const faultServer = fileURLToPath(new URL("../../gateway/test/fixtures/faultServer.mjs", import.meta.url))
const config = join(cwd, "fault.json")
writeFileSync(config, JSON.stringify({ mcpServers: { fault: { command: process.execPath, args: [faultServer] } } }))

let gateway: Started
let url: URL
beforeAll(async () => {
  gateway = start(["serve", "--config", config, "--port", "0"], { cwd, timeoutMs: 600_000 })
  gateway.finished.catch(() => undefined)
  await eventually(() => /listening (http:\/\/\S+)/.test(gateway.stdout()), "the gateway to listen", 60_000)
  url = new URL(/listening (http:\/\/\S+)/.exec(gateway.stdout())?.[1] ?? "")
}, 90_000)

afterAll(() => {
  if (gateway !== undefined) stop(gateway.child)
})

const text = (result: { readonly content?: unknown }) => JSON.stringify(result.content)

/** How many `slow` calls the fault server behind `client` has seen cancelled, once at least `atLeast`. */
const cancelled = async (client: Client, atLeast: number) =>
  Number(
    /cancelled (\d+) in/.exec(text(await client.callTool({ name: "fault__cancelled", arguments: { atLeast } })))?.[1]
  )

/** Starts `slow`, waits until it has reached the server (its progress), aborts it: the call's outcome. */
const abortSlow = async (client: Client) => {
  const controller = new AbortController()
  let reached: () => void = () => {}
  const reachedServer = new Promise<void>((resolve) => {
    reached = resolve
  })
  const call = client.callTool(
    { name: "fault__slow", arguments: {} },
    { signal: controller.signal, onprogress: () => reached(), timeout: 120_000 }
  )
  call.catch(() => undefined)
  await reachedServer
  controller.abort("the user stopped it")
  return call.then(
    () => "answered",
    () => "aborted"
  )
}

/** Each client, with how it reaches the gateway. */
const clients: ReadonlyArray<readonly [string, string, () => Promise<Client>]> = [
  [
    "over stdio at 2025-11-25",
    "2025-11-25",
    async () => {
      const client = new Client({ name: "cancel-stdio", version: "1.0.0" })
      await client.connect(
        new StdioClientTransport({ command: process.execPath, args: [bin, "serve", "--config", config], cwd })
      )
      return client
    }
  ],
  [
    "over Streamable HTTP at 2025-11-25",
    "2025-11-25",
    async () => {
      const client = new Client({ name: "cancel-http", version: "1.0.0" }, { versionNegotiation: { mode: "legacy" } })
      await client.connect(new StreamableHTTPClientTransport(url))
      return client
    }
  ],
  [
    "over Streamable HTTP at 2026-07-28",
    "2026-07-28",
    async () => {
      const client = new Client(
        { name: "cancel-modern", version: "1.0.0" },
        { versionNegotiation: { mode: { pin: "2026-07-28" } } }
      )
      await client.connect(new StreamableHTTPClientTransport(url))
      return client
    }
  ]
]

describe("effect-mcp serve: a client cancels a call", () => {
  for (const [how, version, connect] of clients) {
    it(`the official SDK v2 client ${how}: the server sees the call cancelled; the connection goes on`, async () => {
      const client = await connect()
      try {
        expect(client.getNegotiatedProtocolVersion()).toBe(version)
        const before = await cancelled(client, 0)
        expect(await abortSlow(client)).toBe("aborted")
        expect(await cancelled(client, before + 1)).toBe(before + 1)
        expect(text(await client.callTool({ name: "fault__echo", arguments: { message: "after" } }))).toContain(
          "echo: after"
        )
      } finally {
        await client.close()
      }
    }, 120_000)
  }
})
