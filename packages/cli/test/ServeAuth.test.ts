/**
 * `effect-mcp serve --port` on the built binary, as the security part of issue 32 asks: an
 * OAuth-protected loopback MCP server behind it (the client tests' authorization and MCP
 * servers), authorized once with `auth login` into the token file the gateway then uses; its
 * tool called through the gateway by the official SDK v1 client (and by SDK v2 at both eras and our
 * own client over HTTP, SDK v1 and v2 over stdio), the token refreshed by the
 * gateway when the server refuses it, and a call failing at once, naming the server, when the
 * tokens can be neither used nor refreshed (the gateway asks no one to authorize); no passthrough:
 * the servers behind never see the gateway client's bearer token nor anything else of its
 * requests' headers; and two clients' sessions kept apart (progress under the same token, a
 * server's request). One gateway for the file (the protected server and the reference server).
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { McpClient } from "@effect-mcp/client"
import * as NodeHttpTransport from "@effect-mcp/node/NodeHttpTransport"
import { Client as ClientV2, StreamableHTTPClientTransport as StreamableHttpV2 } from "@modelcontextprotocol/client"
import { StdioClientTransport as StdioV2 } from "@modelcontextprotocol/client/stdio"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { CreateMessageRequestSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { authorizationServer, resourceServer, type Seen, TokenRegistry } from "../../client/test/support/authServers.js"
import { bin, eventually, everything, type Started, start } from "./support/cli.js"
import { stop } from "./support/processes.js"

const TOKEN = "gateway-client-token-7f3a"
const cwd = mkdtempSync(join(tmpdir(), "effect-mcp-serve-auth-"))
const tokenFile = join(cwd, "oauth.json")
const env = { EFFECT_MCP_TOKEN_FILE: tokenFile, EFFECT_MCP_GATEWAY_TOKEN: TOKEN }

const scope = Effect.runSync(Scope.make())
const registry = new TokenRegistry()
let authorization: { readonly origin: string; readonly seen: Array<Seen> }
let resource: { readonly origin: string; readonly seen: Array<Seen> }
let gateway: Started
let url: URL

/** The tokens in the token file (one issuer and resource: one entry). */
const storedTokens = (): ReadonlyArray<{ access_token: string; refresh_token?: string }> => {
  const entries = (JSON.parse(readFileSync(tokenFile, "utf8")) as { entries: Record<string, string> }).entries
  return Object.entries(entries)
    .filter(([key]) => key.startsWith("tokens/"))
    .map(([, value]) => JSON.parse(value) as { access_token: string; refresh_token?: string })
}

/** The MCP requests the protected server received (method and the Authorization header). */
const mcpRequests = () =>
  resource.seen
    .filter((entry) => entry.path === "/mcp" && entry.method === "POST")
    .map((entry) => ({
      method: (JSON.parse(entry.body) as { method?: string }).method,
      authorization: entry.headers.authorization
    }))

const config = join(cwd, ".mcp.json")

/** This process's environment, its unset entries left out. */
const stringEnv = (): Record<string, string> =>
  Object.fromEntries(Object.entries(process.env).flatMap(([key, value]) => (value === undefined ? [] : [[key, value]])))

const listening = (started: Started) => /listening (http:\/\/\S+)/.exec(started.stdout())?.[1]

beforeAll(async () => {
  // An authorization server issuing refreshable tokens, and the MCP server they protect.
  await Effect.runPromise(
    Effect.gen(function* () {
      authorization = yield* authorizationServer(registry, { expiresIn: 3600, revocation: {} })
      resource = yield* resourceServer(registry, { authorizationServer: () => authorization.origin })
    }).pipe(Scope.extend(scope))
  )
  const protectedUrl = `${resource.origin}/mcp`

  // Authorized once, as a user would: `auth login --no-browser`, the test being the browser.
  const login = start(["auth", "login", "--url", protectedUrl, "--no-browser"], { env })
  const link = /(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)/
  await eventually(() => link.test(login.stderr()), "the authorization URL")
  await (await fetch(link.exec(login.stderr())?.[1] ?? "")).text()
  const loggedIn = await login.finished
  expect(loggedIn.code, loggedIn.stderr).toBe(0)

  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        protected: { type: "http", url: protectedUrl },
        everything: { command: process.execPath, args: [everything, "stdio"] }
      }
    })
  )
  gateway = start(["serve", "--config", config, "--port", "0"], { cwd, env, timeoutMs: 600_000 })
  gateway.finished.catch(() => undefined)
  await eventually(() => listening(gateway) !== undefined, "the gateway to listen")
  url = new URL(listening(gateway) ?? "")
}, 60_000)

afterAll(async () => {
  if (gateway !== undefined) stop(gateway.child)
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

/** An SDK v1 client of the gateway, sending the gateway's bearer token and `headers`. */
const connect = async (name: string, headers: Record<string, string> = {}) => {
  const client = new Client({ name, version: "1.0.0" }, { capabilities: { sampling: {}, elicitation: { form: {} } } })
  await client.connect(
    new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { ...headers, authorization: `Bearer ${TOKEN}` } }
    })
  )
  return client
}

const textOf = (result: Awaited<ReturnType<Client["callTool"]>>) => JSON.stringify(result.content)

describe("effect-mcp serve --port with an OAuth-protected server behind it", () => {
  it("calls the protected server's tool with the token `auth login` stored; the result comes through", async () => {
    const [stored] = storedTokens()
    const client = await connect("oauth-caller")
    try {
      const { tools } = await client.listTools()
      expect(tools.map((tool) => tool.name)).toContain("protected__secret")
      const result = await client.callTool({ name: "protected__secret", arguments: {} })
      expect(textOf(result)).toContain("the secret")
    } finally {
      await client.close()
    }
    const calls = mcpRequests().filter((request) => request.method === "tools/call")
    expect(calls).toStrictEqual([{ method: "tools/call", authorization: `Bearer ${stored?.access_token}` }])
    // Nobody was asked to authorize again: the login's was the only one.
    expect(authorization.seen.filter((entry) => entry.path === "/authorize")).toHaveLength(1)
  })

  it("a token the server no longer accepts is refreshed by the gateway, kept in the token file, and the call goes through", async () => {
    const [before] = storedTokens()
    registry.tokens.delete(before?.access_token ?? "")
    const client = await connect("oauth-refresh")
    try {
      const result = await client.callTool({ name: "protected__secret", arguments: {} })
      expect(textOf(result)).toContain("the secret")
    } finally {
      await client.close()
    }
    const refreshes = authorization.seen
      .filter((entry) => entry.path === "/token")
      .map((entry) => new URLSearchParams(entry.body))
      .filter((form) => form.get("grant_type") === "refresh_token")
    expect(refreshes.map((form) => form.get("refresh_token"))).toStrictEqual([before?.refresh_token])
    const [after] = storedTokens()
    expect(after?.access_token).not.toBe(before?.access_token)
    expect(registry.tokens.has(after?.access_token ?? "")).toBe(true)
    const last = mcpRequests().at(-1)
    expect(last).toStrictEqual({ method: "tools/call", authorization: `Bearer ${after?.access_token}` })
  })
})

describe("the protected server's tool through the gateway, for each kind of client", () => {
  const secret = "the secret"

  it("the SDK v2 client over HTTP, at 2026-07-28 and at 2025-11-25", async () => {
    for (const version of ["2026-07-28", "2025-11-25"] as const) {
      const client = new ClientV2(
        { name: `v2-${version}`, version: "1.0.0" },
        { versionNegotiation: { mode: version === "2026-07-28" ? { pin: version } : "legacy" } }
      )
      await client.connect(
        new StreamableHttpV2(url, { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } })
      )
      try {
        expect(client.getNegotiatedProtocolVersion()).toBe(version)
        expect(JSON.stringify((await client.callTool({ name: "protected__secret", arguments: {} })).content)).toContain(
          secret
        )
      } finally {
        await client.close()
      }
    }
  })

  it("our own client over HTTP", async () => {
    const text = await Effect.gen(function* () {
      const client = yield* McpClient.McpClient
      const result = yield* client.callTool("protected__secret", {})
      return JSON.stringify(result.content)
    }).pipe(
      Effect.provide(McpClient.layer({ name: "gateway" })),
      Effect.provide(
        NodeHttpTransport.layer({ url: url.href, headers: { authorization: `Bearer ${TOKEN}` }, auth: false }).pipe(
          Layer.provide(NodeHttpClient.layer)
        )
      ),
      Effect.scoped,
      Effect.runPromise
    )
    expect(text).toContain(secret)
  })

  it("the SDK v1 and v2 clients over stdio, each launching `serve` with the same token file", async () => {
    const launch = {
      command: process.execPath,
      args: [bin, "serve", "--config", config],
      cwd,
      env: { ...stringEnv(), ...env }
    }
    const v1 = new Client({ name: "v1-stdio", version: "1.0.0" })
    await v1.connect(new StdioClientTransport(launch))
    try {
      expect(textOf(await v1.callTool({ name: "protected__secret", arguments: {} }))).toContain(secret)
    } finally {
      await v1.close()
    }
    const v2 = new ClientV2({ name: "v2-stdio", version: "1.0.0" })
    await v2.connect(new StdioV2(launch))
    try {
      expect(JSON.stringify((await v2.callTool({ name: "protected__secret", arguments: {} })).content)).toContain(
        secret
      )
    } finally {
      await v2.close()
    }
  })
})

describe("effect-mcp serve --port passes nothing of its clients' requests on", () => {
  it("the servers behind never see the gateway's bearer token, nor any other header a client sent", async () => {
    const sent = {
      "x-api-key": "client-api-key-51c2",
      cookie: "session=client-cookie-9d04",
      "user-agent": "client-agent-e6b7",
      traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
    }
    const calledBefore = mcpRequests().filter((request) => request.method === "tools/call").length
    const client = await connect("headers", sent)
    let session: string | undefined
    try {
      session = client.transport instanceof StreamableHTTPClientTransport ? client.transport.sessionId : undefined
      expect(session).toEqual(expect.any(String))
      await client.listTools()
      expect(textOf(await client.callTool({ name: "protected__secret", arguments: {} }))).toContain("the secret")
    } finally {
      await client.close()
    }
    // The call reached the protected server: what it saw includes this client's traffic.
    expect(mcpRequests().filter((request) => request.method === "tools/call").length).toBe(calledBefore + 1)
    // Its own OAuth access tokens, or nothing, in every Authorization header it ever got.
    const issued = new RegExp(`^Bearer at-\\d+-${authorization.origin.slice(-5)}$`)
    const sentTokens = mcpRequests().flatMap(({ authorization: header }) => (header === undefined ? [] : [header]))
    expect(sentTokens.length).toBeGreaterThan(0)
    for (const header of sentTokens) expect(header).toMatch(issued)
    // Nothing the client sent, in any header or body either server ever got. (The trace goes on:
    // the gateway's own spans continue the client's trace id, but its traceparent is not passed on.)
    const secrets = [TOKEN, session ?? "no session", ...Object.values(sent)]
    for (const entry of [...resource.seen, ...authorization.seen]) {
      const received = JSON.stringify({ headers: entry.headers, body: entry.body })
      for (const secret of secrets) expect(received, `${entry.method} ${entry.path}`).not.toContain(secret)
    }
  })
})

describe("effect-mcp serve --port keeps its clients' sessions apart", () => {
  it("A and B calling at once each hear their own progress only; A's elicitation is asked of A; B hears nothing of A's", async () => {
    const asked: Array<string> = []
    const a = await connect("a")
    a.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message)
      return { action: "accept", content: { name: "Ada" } }
    })
    // B, connected after A (so the newest client, which a misrouted server request would reach):
    // every server request, notification and stray progress it gets is written down, and its GET
    // stream (where a message for none of its requests would come) is open before A calls.
    const heardByB: Array<string> = []
    let listening = false
    const b = new Client({ name: "b", version: "1.0.0" }, { capabilities: { sampling: {}, elicitation: { form: {} } } })
    b.setRequestHandler(ElicitRequestSchema, async (request) => {
      heardByB.push(`elicitation: ${request.params.message}`)
      return { action: "decline" }
    })
    b.setRequestHandler(CreateMessageRequestSchema, async () => {
      heardByB.push("sampling")
      return { model: "b", role: "assistant", content: { type: "text", text: "not B's to answer" } }
    })
    b.fallbackNotificationHandler = async (notification) => {
      heardByB.push(notification.method)
    }
    b.onerror = (error) => heardByB.push(`error: ${error.message}`)
    await b.connect(
      new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
        fetch: async (input, init) => {
          const response = await fetch(input, init)
          if (init?.method === "GET" && response.ok) listening = true
          return response
        }
      })
    )
    try {
      await eventually(() => listening, "B's GET stream")
      // The same request ids on both sessions, so the same progress tokens: the gateway must tell them apart.
      const progress = { a: [] as Array<string>, b: [] as Array<string> }
      const call = (client: Client, steps: number, heard: Array<string>) =>
        client.callTool(
          { name: "everything__trigger-long-running-operation", arguments: { duration: 0.2 * steps, steps } },
          undefined,
          { onprogress: (event) => void heard.push(`${event.progress}/${event.total}`) }
        )
      await Promise.all([call(a, 3, progress.a), call(b, 2, progress.b)])
      expect(progress).toStrictEqual({ a: ["1/3", "2/3", "3/3"], b: ["1/2", "2/2"] })

      const elicited = await a.callTool({ name: "everything__trigger-elicitation-request", arguments: {} })
      expect(heardByB).toStrictEqual([])
      expect(asked).toHaveLength(1)
      expect(textOf(elicited)).toContain("Ada")
    } finally {
      await a.close()
      await b.close()
    }
  })
})

describe("effect-mcp serve --port, a protected server whose tokens can be neither used nor refreshed", () => {
  it("the call fails at once with an error naming the server and saying to log in, instead of waiting for a browser", async () => {
    const [before] = storedTokens()
    registry.tokens.delete(before?.access_token ?? "")
    const revoked = await fetch(`${authorization.origin}/revoke`, {
      method: "POST",
      body: new URLSearchParams({ token: before?.refresh_token ?? "" })
    })
    expect(revoked.status).toBe(200)
    const client = await connect("oauth-dead")
    try {
      // Bounded: a gateway waiting for a person at a browser would keep the call until this fails it.
      const call = client.callTool({ name: "protected__secret", arguments: {} }, undefined, { timeout: 20_000 })
      await expect(call).rejects.toThrow(
        /-32603: protected: tools\/call: the server answered 401; .*run `effect-mcp auth login` for it/
      )
    } finally {
      await client.close()
    }
    expect(gateway.stderr()).not.toContain("/authorize?")
  }, 30_000)
})
