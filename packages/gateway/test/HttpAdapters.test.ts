/**
 * The gateway's one HTTP core behind both of its adapters: Node's own server
 * (`NodeStreamableHttpServer`, what `effect-mcp serve --port` runs) and `@effect/platform`'s
 * (`StreamableHttpServer`, an `HttpApp`, here on platform-node's server). The same checks run on
 * each, with our own client over Streamable HTTP and the reference server behind the host: a
 * 2025-11-25 session (progress and a server request on a call's event stream) and 2026-07-28
 * requests (a JSON answer, an event stream for progress, the refusal to replay an unmarked tool).
 */
import { createServer } from "node:http"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { expect, layer } from "@effect/vitest"
import { Capabilities, McpClient, type Session } from "@effect-mcp/client"
import * as HttpTransport from "@effect-mcp/client/HttpTransport"
import type { McpHost } from "@effect-mcp/host"
import type { ProtocolVersion } from "@effect-mcp/protocol"
import * as Chunk from "effect/Chunk"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { type McpGateway, NodeStreamableHttpServer, StreamableHttpServer } from "../src/index.js"
import { elicitation, everything, faultServer, GATEWAY, gatewayHost, textOf } from "./support/gateway.js"

/** The largest request body the adapters read here. */
const LIMIT = 64 * 1024

/** How long a POST waits for its answer (long: a loaded machine must not turn a JSON answer into a stream). */
const WINDOW = "1 minute"

/** A POST of `body` (a string as it is, anything else as JSON) to the gateway at `port`. */
const rawPost = (port: number, body: unknown, headers: Record<string, string> = {}) =>
  Effect.promise(() =>
    fetch(`http://127.0.0.1:${port}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body)
    }).then(async (response) => ({ status: response.status, headers: response.headers, text: await response.text() }))
  )

/** Each adapter, listening on a free loopback port for the scope: its port. */
const adapters = {
  "node:http (NodeStreamableHttpServer)": Effect.map(
    NodeStreamableHttpServer.listen({ port: 0, maxBodyBytes: LIMIT, answerWindow: WINDOW }),
    ({ port }) => port
  ).pipe(Effect.orDie),
  "@effect/platform (StreamableHttpServer)": Effect.gen(function* () {
    const app = yield* StreamableHttpServer.make({ maxBodyBytes: LIMIT, answerWindow: WINDOW })
    const server = yield* NodeHttpServer.make(() => createServer(), { port: 0, host: "127.0.0.1" }).pipe(Effect.orDie)
    yield* server.serve(app)
    return server.address._tag === "TcpAddress" ? server.address.port : 0
  })
}

/** Our client at `protocolVersion` on the gateway at `port`, answering elicitation with a name. */
const clientAt = (port: number, protocolVersion: ProtocolVersion.ProtocolVersion, asked: Array<string>) =>
  Effect.gen(function* () {
    // Built in the test's scope: the transport lives as long as the client.
    const transport = yield* Layer.build(
      HttpTransport.layer({ url: `http://127.0.0.1:${port}/mcp`, name: GATEWAY, transport: "http" }).pipe(
        Layer.provide(NodeHttpClient.layer)
      )
    )
    return yield* McpClient.make({ name: GATEWAY, protocolVersion }).pipe(
      Effect.provideService(Capabilities.Elicitation, elicitation(asked, { name: "Ada" })),
      Effect.provide(transport)
    )
  })

/** Our client of the gateway at `port` in a scope of its own (a process of its own), reattaching to `saved` when given. */
const clientOf = (port: number, terminateOnClose: boolean, saved?: Session.SavedSession) =>
  Effect.flatMap(
    Layer.build(
      HttpTransport.layer({
        url: `http://127.0.0.1:${port}/mcp`,
        name: GATEWAY,
        transport: "http",
        terminateOnClose
      }).pipe(Layer.provide(NodeHttpClient.layer))
    ),
    (transport) =>
      McpClient.make({
        name: GATEWAY,
        protocolVersion: "2025-11-25",
        ...(saved === undefined ? {} : { reattach: saved })
      }).pipe(Effect.provide(transport))
  )

/**
 * Our client at `protocolVersion` on a fresh listener, after what every era must do: a call, and a
 * call whose progress comes on its event stream before the result.
 */
const served = (
  listen: Effect.Effect<
    number,
    never,
    Scope.Scope | McpHost.McpHost | Context.Tag.Identifier<typeof McpGateway.Attachments>
  >,
  protocolVersion: ProtocolVersion.ProtocolVersion
) =>
  Effect.gen(function* () {
    const asked: Array<string> = []
    const client = yield* clientAt(yield* listen, protocolVersion, asked)
    expect(client.protocolVersion).toBe(protocolVersion)
    expect(textOf(yield* client.callTool("everything__get-sum", { a: 2, b: 40 }))).toContain("42")
    const events = yield* client
      .callToolStream("everything__trigger-long-running-operation", { duration: 0.2, steps: 2 })
      .pipe(Stream.runCollect, Effect.map(Chunk.toReadonlyArray))
    expect(events.map((event) => event._tag)).toStrictEqual(["Progress", "Progress", "Result"])
    return { client, asked }
  })

for (const [adapter, listen] of Object.entries(adapters)) {
  layer(
    gatewayHost({
      servers: [
        { name: "everything", target: everything },
        { name: "fixture", target: faultServer }
      ]
    }),
    {
      excludeTestServices: true,
      timeout: "60 seconds"
    }
  )(`the gateway over ${adapter}`, (it) => {
    it.scoped("2025-11-25: a session; a call's progress and the server's request come on its event stream", () =>
      Effect.gen(function* () {
        const { client, asked } = yield* served(listen, "2025-11-25")
        const elicited = yield* client.callTool("everything__trigger-elicitation-request", {})
        expect(asked).toStrictEqual([`${GATEWAY}: Please provide inputs for the following fields:`])
        expect(textOf(elicited)).toContain("Name: Ada")
      })
    )

    it.scoped("2025-11-25: a call whose result comes first is answered with it as JSON, not an event stream", () =>
      Effect.gen(function* () {
        const port = yield* listen
        const post = (body: unknown, headers: Record<string, string> = {}) =>
          rawPost(port, body, { "mcp-protocol-version": "2025-11-25", ...headers })
        const opened = yield* post({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } }
        })
        const session = { "mcp-session-id": opened.headers.get("mcp-session-id") ?? "" }
        expect(opened.headers.get("content-type")).toMatch(/^application\/json/)
        yield* post({ jsonrpc: "2.0", method: "notifications/initialized" }, session)
        const called = yield* post(
          {
            jsonrpc: "2.0",
            id: 2,
            method: "tools/call",
            params: { name: "everything__echo", arguments: { message: "hi" } }
          },
          session
        )
        expect(called.headers.get("content-type")).toMatch(/^application\/json/)
        expect(called.headers.get("mcp-session-id")).toBe(session["mcp-session-id"])
        expect(JSON.parse(called.text)).toMatchObject({
          id: 2,
          result: { content: [{ type: "text", text: "Echo: hi" }] }
        })
      })
    )

    it.scoped("2025-11-25: a session outlives its client: another reattaches to it (no handshake) and goes on", () =>
      Effect.gen(function* () {
        const port = yield* listen
        const saved = yield* Effect.scoped(
          Effect.gen(function* () {
            const first = yield* clientOf(port, false)
            expect(textOf(yield* first.callTool("everything__echo", { message: "first" }))).toBe("Echo: first")
            return Option.getOrThrow(yield* first.savedSession)
          })
        )
        const second = yield* clientOf(port, true, saved)
        expect(textOf(yield* second.callTool("everything__echo", { message: "second" }))).toBe("Echo: second")
        expect(Option.map(yield* second.savedSession, (now) => now.sessionId)).toStrictEqual(
          Option.some(saved.sessionId)
        )
      })
    )

    it.scoped("a body over the limit is answered 413 and not read whole; the gateway serves on", () =>
      Effect.gen(function* () {
        const port = yield* listen
        const post = (body: string) => rawPost(port, body)
        const ping = (padding: string) => JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", padding })
        const refused = yield* post(ping("x".repeat(LIMIT)))
        expect(refused.status).toBe(413)
        expect(JSON.parse(refused.text)).toMatchObject({ error: { code: -32600 } })
        // Just under the limit the same request is read (and refused for what it is: no session).
        const read = yield* post(ping("x".repeat(LIMIT - 100)))
        expect(read.status).toBe(400)
        expect(read.text).not.toMatch(/larger than/)
        // Sent in chunks, with no length declared: refused as it grows past the limit.
        const body = ping("x".repeat(LIMIT))
        const chunked = yield* Effect.promise(() =>
          fetch(`http://127.0.0.1:${port}/mcp`, {
            method: "POST",
            headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
            body: new ReadableStream({
              start(controller) {
                controller.enqueue(new TextEncoder().encode(body.slice(0, LIMIT / 2)))
                controller.enqueue(new TextEncoder().encode(body.slice(LIMIT / 2)))
                controller.close()
              }
            }),
            duplex: "half"
          } as RequestInit).then(async (response) => ({ status: response.status, text: await response.text() }))
        )
        expect(chunked.status).toBe(413)
        expect(JSON.parse(chunked.text)).toMatchObject({ error: { code: -32600 } })
      })
    )

    it.scoped("a body nested too deeply is a JSON-RPC error (400) at both revisions; the gateway serves on", () =>
      Effect.gen(function* () {
        const port = yield* listen
        // 30,000 levels fit under the limit; 1,000 are the most a message may have.
        const deep = `${"[".repeat(30_000)}${"]".repeat(30_000)}`
        const stateless = {
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/call",
          "mcp-name": "fixture__meta"
        }
        const meta = {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {}
        }
        const call = (args: string) =>
          `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fixture__meta","arguments":${args},"_meta":${JSON.stringify(meta)}}}`
        const refused = (response: { readonly status: number; readonly text: string }) => {
          expect(response.status).toBe(400)
          expect(JSON.parse(response.text)).toMatchObject({ jsonrpc: "2.0", error: { code: -32600 } })
        }
        refused(yield* rawPost(port, call(`{"deep":${deep}}`), stateless))
        refused(yield* rawPost(port, deep, { "mcp-protocol-version": "2026-07-28" }))
        const opened = yield* rawPost(port, {
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } }
        })
        const session = {
          "mcp-session-id": opened.headers.get("mcp-session-id") ?? "",
          "mcp-protocol-version": "2025-11-25"
        }
        yield* rawPost(port, { jsonrpc: "2.0", method: "notifications/initialized" }, session)
        refused(
          yield* rawPost(
            port,
            `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fixture__meta","arguments":{"deep":${deep}}}}`,
            session
          )
        )
        refused(yield* rawPost(port, deep, session))
        // The gateway serves on, and a message nested as deeply as allowed is served.
        const allowed = `${"[".repeat(990)}${"]".repeat(990)}`
        const answered = yield* rawPost(port, call(`{"deep":${allowed}}`), stateless)
        expect(answered.status).toBe(200)
        expect(JSON.parse(answered.text)).toMatchObject({ id: 3, result: { content: [{ type: "text" }] } })
        const inSession = yield* rawPost(port, { jsonrpc: "2.0", id: 4, method: "ping" }, session)
        expect(JSON.parse(inSession.text)).toStrictEqual({ jsonrpc: "2.0", id: 4, result: {} })
      })
    )

    it.scoped(
      "2026-07-28: requests stand alone; progress on an event stream; a stateful server's call that asks is held across the round",
      () =>
        Effect.gen(function* () {
          const { client, asked } = yield* served(listen, "2026-07-28")
          // The reference server (2025-11-25) asks mid-call; the client answers in a new request,
          // which continues the server's call where it waits (the tool is not marked safe to repeat).
          const result = yield* client.callTool("everything__trigger-elicitation-request", {})
          expect(asked).toHaveLength(1)
          expect(textOf(result)).toContain("Name: Ada")
        })
    )

    it.scoped(
      "2026-07-28: a call that asks for log messages gets them on its event stream; a bad level is -32602",
      () =>
        Effect.gen(function* () {
          const port = yield* listen
          const call = (logLevel: unknown) =>
            rawPost(
              port,
              {
                jsonrpc: "2.0",
                id: 7,
                method: "tools/call",
                params: {
                  name: "fixture__logThenAnswer",
                  arguments: {},
                  _meta: {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {},
                    ...(logLevel === undefined ? {} : { "io.modelcontextprotocol/logLevel": logLevel })
                  }
                }
              },
              { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "fixture__logThenAnswer" }
            ).pipe(
              Effect.map((response) => ({ type: response.headers.get("content-type") ?? "", text: response.text }))
            )
          const messagesOf = (text: string): Array<{ method?: string; params?: { data?: unknown }; id?: number }> =>
            text
              .split("\n")
              .filter((line) => line.startsWith("data: {"))
              .map((line) => JSON.parse(line.slice("data: ".length)))
          const streamed = yield* call("info")
          expect(streamed.type).toMatch(/^text\/event-stream/)
          expect(messagesOf(streamed.text).map((message) => message.params?.data ?? message.id)).toStrictEqual([
            "step 1",
            "step 2",
            "step 3",
            7
          ])
          // Without the field, no log message: a plain JSON answer.
          const plain = yield* call(undefined)
          expect(plain.type).toMatch(/^application\/json/)
          expect(JSON.parse(plain.text)).toMatchObject({ id: 7, result: { content: [{ text: "logged" }] } })
          const bad = yield* call("loud")
          expect(JSON.parse(bad.text)).toMatchObject({ id: 7, error: { code: -32602 } })
        })
    )
  })
}
