/**
 * Two `effect-mcp serve --port` instances behind HAProxy. At 2025-11-25 a session lives in the
 * process that answered its `initialize`, so a balancer must be sticky: HAProxy learns each
 * `Mcp-Session-Id` from the response and routes the session's requests by it. Without the stick
 * lines the same setup fails (a session's request lands on the other instance: 404). An instance
 * killed: its sessions are gone, HAProxy marks it down, its clients get 404 and must initialize
 * again, on the live one (the SDK v1 client leaves that to its user; ours does it by itself).
 *
 * HAProxy is required, not optional: `.ci/run` installs it (Debian's), and without it this file
 * fails saying so.
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as HttpClient from "@effect/platform/HttpClient"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { HttpTransport, PromiseClient } from "@effect-mcp/client"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Balancer, haproxyMissing, type Instance, startBalancer, startInstance } from "./support/balancer.js"
import { eventually, everything } from "./support/cli.js"
import { stop } from "./support/processes.js"

const cwd = mkdtempSync(join(tmpdir(), "effect-mcp-serve-balanced-"))
const config = join(cwd, ".mcp.json")
writeFileSync(
  config,
  JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everything, "stdio"] } } })
)

let instances: ReadonlyArray<Instance> = []
let sticky: Balancer
let roundRobin: Balancer

beforeAll(async () => {
  if (haproxyMissing !== undefined) throw new Error(haproxyMissing)
  instances = await Promise.all(["one", "two"].map((name) => startInstance(name, ["--config", config], { cwd })))
  sticky = await startBalancer("sticky", instances, true, cwd)
  roundRobin = await startBalancer("round-robin", instances, false, cwd)
}, 60_000)

afterAll(() => {
  for (const started of [sticky?.started, roundRobin?.started, ...instances.map((instance) => instance.started)])
    if (started !== undefined) stop(started.child)
})

/** Asks `instance` itself (not through HAProxy) whether it holds `session`: the ground truth of where a session lives. */
const holds = async (instance: Instance, session: string): Promise<boolean> => {
  const response = await fetch(instance.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-session-id": session,
      "mcp-protocol-version": "2025-11-25"
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" })
  })
  await response.body?.cancel()
  if (response.status !== 200 && response.status !== 404) throw new Error(`ping said ${response.status}`)
  return response.status === 200
}

/** The instance holding `session`, asked of each (of those alive). */
const home = async (session: string, alive: ReadonlyArray<Instance> = instances): Promise<string> => {
  const holders: Array<string> = []
  for (const instance of alive) if (await holds(instance, session)) holders.push(instance.name)
  expect(holders, `the instances holding session ${session}`).toHaveLength(1)
  return holders[0] ?? ""
}

/** An SDK v1 client through `url`, and its session. */
const connectSdk = async (url: URL, name: string) => {
  const client = new Client({ name, version: "1.0.0" }, { capabilities: {} })
  const transport = new StreamableHTTPClientTransport(url)
  await client.connect(transport)
  return { client, session: transport.sessionId ?? "" }
}

const echo = async (client: Client, message: string) => {
  const result = await client.callTool({ name: "everything__echo", arguments: { message } })
  return JSON.stringify(result.content)
}

/** How the SDK v1 client fails on a session its server does not know. */
const sessionNotFound = { code: 404, message: expect.stringContaining("Session not found") }

/**
 * Our client (`@effect-mcp/client`) through `url`, speaking `protocolVersion` (default: auto), its
 * HTTP client noting each status and each session id it is given, its logs kept.
 */
const connectOurs = async (url: URL, protocolVersion?: "2025-11-25") => {
  const given: Array<string> = []
  const statuses: Array<number> = []
  const logs: Array<string> = []
  const noting = Layer.effect(
    HttpClient.HttpClient,
    Effect.map(
      HttpClient.HttpClient,
      HttpClient.tap((response) =>
        Effect.sync(() => {
          statuses.push(response.status)
          const session = response.headers["mcp-session-id"]
          if (session !== undefined && !given.includes(session)) given.push(session)
        })
      )
    )
  ).pipe(Layer.provide(NodeHttpClient.layer))
  const kept = Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ message }) => void logs.push(String(message)))
  )
  const client = await PromiseClient.connect(
    Layer.merge(HttpTransport.layer({ url: url.href, name: "gateways" }).pipe(Layer.provide(noting)), kept),
    { name: "gateways", requestTimeout: "20 seconds", ...(protocolVersion === undefined ? {} : { protocolVersion }) }
  )
  const echo = async (message: string) =>
    JSON.stringify((await client.callTool("everything__echo", { message })).content)
  return { client, echo, given, statuses, logs }
}

describe("effect-mcp serve --port, two instances behind HAProxy", () => {
  it("without stickiness (round robin on every request) a session's requests land on the other instance: 404", async () => {
    const failures: Array<unknown> = []
    for (let i = 0; i < 4; i++) {
      const client = new Client({ name: `unstuck-${i}`, version: "1.0.0" }, { capabilities: {} })
      try {
        await client.connect(new StreamableHTTPClientTransport(roundRobin.url))
        for (let call = 0; call < 3; call++) await echo(client, `unstuck ${i}.${call}`)
      } catch (error) {
        failures.push(error)
      } finally {
        await client.close()
      }
    }
    expect(failures).toHaveLength(4)
    for (const failure of failures) expect(failure).toMatchObject(sessionNotFound)
  })

  it("at 2026-07-28 (our client's default with this gateway) there is no session: round robin alone serves every call", async () => {
    const ours = await connectOurs(roundRobin.url)
    try {
      for (let call = 0; call < 4; call++)
        expect(await ours.echo(`stateless ${call}`)).toContain(`Echo: stateless ${call}`)
      expect(ours.given).toEqual([])
    } finally {
      await ours.client.close()
    }
  })

  it("sticky on Mcp-Session-Id: sessions spread over both instances, every call succeeds", async () => {
    const clients = await Promise.all([0, 1, 2, 3].map((i) => connectSdk(sticky.url, `stuck-${i}`)))
    try {
      for (let call = 0; call < 3; call++) {
        for (const [i, { client }] of clients.entries()) {
          expect(await echo(client, `stuck ${i}.${call}`)).toContain(`Echo: stuck ${i}.${call}`)
        }
      }
      const homes = await Promise.all(clients.map(({ session }) => home(session)))
      expect(new Set(homes)).toEqual(new Set(instances.map((instance) => instance.name)))
    } finally {
      await Promise.all(clients.map(({ client }) => client.close()))
    }
  })

  it("an instance killed: its SDK client gets 404 (and must initialize again, landing on the live one); our client initializes again by itself", async () => {
    const ours = await connectOurs(sticky.url, "2025-11-25")
    const sdk = await Promise.all([0, 1, 2].map((i) => connectSdk(sticky.url, `survivor-${i}`)))
    try {
      expect(await ours.echo("before")).toContain("Echo: before")
      expect(ours.given).toHaveLength(1)
      const doomed = await home(ours.given[0] ?? "")
      const dead = instances.find((instance) => instance.name === doomed)
      const live = instances.find((instance) => instance.name !== doomed)
      const homes = await Promise.all(sdk.map(({ session }) => home(session)))
      const orphan = sdk.find((_, i) => homes[i] === dead?.name)
      const kept = sdk.find((_, i) => homes[i] === live?.name)
      if (dead === undefined || live === undefined || orphan === undefined || kept === undefined)
        throw new Error(`round robin put no SDK session on each instance: ${homes.join(", ")}`)

      // SIGKILL, the instance and its server: its sessions are gone with it.
      stop(dead.started.child)
      await eventually(
        () => sticky.started.stderr().includes(`Server gateways/${dead.name} is DOWN`),
        `haproxy to mark ${dead.name} down`
      )

      // The SDK v1 client does not initialize again by itself: its call fails.
      await expect(echo(orphan.client, "orphaned")).rejects.toMatchObject(sessionNotFound)
      // A session on the live instance is untouched.
      expect(await echo(kept.client, "kept")).toContain("Echo: kept")
      // A new initialize through HAProxy lands on the live instance and works.
      const fresh = await connectSdk(sticky.url, "fresh")
      try {
        expect(await echo(fresh.client, "fresh")).toContain("Echo: fresh")
        expect(await home(fresh.session, [live])).toBe(live.name)
      } finally {
        await fresh.client.close()
      }

      // Ours: the call after the death is answered (told 404, the client initialized a new session
      // on the live instance and sent the call again), the caller sees no failure.
      const after = ours.statuses.length
      expect(await ours.echo("after")).toContain("Echo: after")
      expect(ours.statuses.slice(after)).toContain(404)
      expect(ours.logs).toContainEqual(expect.stringContaining("the server lost the session; initializing a new one"))
      expect(ours.given).toHaveLength(2)
      expect(await home(ours.given[1] ?? "", [live])).toBe(live.name)
    } finally {
      await ours.client.close()
      await Promise.all(sdk.map(({ client }) => client.close().catch(() => undefined)))
    }
  })
})
