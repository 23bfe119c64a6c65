/**
 * A Streamable HTTP session that outlives its client (as a serverless function's session
 * outlives the invocation): the reference server over 127.0.0.1; a first client saves its
 * session and closes without `DELETE`, a second (a new scope, as a new process) reattaches with
 * no handshake, and after it closed with `DELETE` a third finds the session gone and initializes.
 * Every HTTP request is recorded by a small `HttpClient` in front of the real one.
 */

import type * as HttpBody from "@effect/platform/HttpBody"
import * as HttpClient from "@effect/platform/HttpClient"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { HttpTransport, InMemoryTransport, McpClient, Session } from "@effect-mcp/client"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { noFibersLeft } from "./support/fibers.js"
import { keepAliveHttpClient } from "./support/httpClient.js"
import { connectionsTo, type RunningServer, startEverything } from "./support/httpServers.js"
import { textOf } from "./support/restarting.js"

let server: RunningServer | undefined
beforeAll(async () => {
  server = await startEverything("streamableHttp")
})
afterAll(async () => {
  await server?.stop()
})
const running = () => {
  if (server === undefined) throw new Error("the reference server is not running")
  return server
}

/** One HTTP request as sent: its method, its session id, and the JSON-RPC method it carried. */
interface Sent {
  readonly http: string
  readonly session: string | undefined
  readonly rpc: string | undefined
}

const rpcMethodOf = (body: HttpBody.HttpBody): string | undefined => {
  if (body._tag !== "Uint8Array") return undefined
  const message: unknown = JSON.parse(new TextDecoder().decode(body.body))
  return typeof message === "object" && message !== null && "method" in message && typeof message.method === "string"
    ? message.method
    : undefined
}

/** The keep-alive `HttpClient`, every request it is given recorded in `sent`. */
const recording = (sent: Array<Sent>) =>
  Layer.effect(
    HttpClient.HttpClient,
    Effect.map(HttpClient.HttpClient, (client) =>
      // In the last step before the wire, so each request is recorded once however the transport wraps the client.
      HttpClient.transform(client, (response, request) =>
        Effect.zipRight(
          Effect.sync(() => {
            sent.push({
              http: request.method,
              session: request.headers["mcp-session-id"],
              rpc: rpcMethodOf(request.body)
            })
          }),
          response
        )
      )
    )
  ).pipe(Layer.provide(keepAliveHttpClient))

/** A client of the reference server in a scope of its own (as one process would have), its requests recorded. */
const connect = (sent: Array<Sent>, options: McpClient.McpClientOptions, terminateOnClose: boolean) =>
  Effect.map(
    Layer.build(
      McpClient.layer({ name: "everything", requestTimeout: "30 seconds", ...options }).pipe(
        Layer.provide(HttpTransport.layer({ url: `${running().origin}/mcp`, terminateOnClose })),
        Layer.provide(recording(sent))
      )
    ),
    (context) => Context.get(context, McpClient.McpClient)
  )

const SavedJson = Schema.parseJson(Session.SavedSession)

/** The session a client saved, as the JSON a function would store. */
const saveAsJson = (client: McpClient.McpClientService) =>
  Effect.flatMap(client.savedSession, (saved) =>
    Option.match(saved, {
      onNone: () => Effect.dieMessage("the client has no session to save"),
      onSome: Schema.encode(SavedJson)
    })
  )

/** A saved session of no server. */
const aSavedSession = new Session.SavedSession({
  sessionId: "abc",
  protocolVersion: "2025-11-25",
  serverInfo: { name: "s", version: "1" },
  serverCapabilities: {}
})

const echo = (client: McpClient.McpClientService, message: string) =>
  Effect.map(client.callTool("echo", { message }), textOf)

describe("reattaching to a Streamable HTTP session", () => {
  it.live(
    "a second client takes up the session a first one left (no initialize), and its DELETE ends it for a third",
    () =>
      Effect.gen(function* () {
        // The first client: a handshake, then closed without DELETE.
        const first: Array<Sent> = []
        const stored = yield* Effect.scoped(
          Effect.gen(function* () {
            const client = yield* connect(first, {}, false)
            expect(yield* echo(client, "first")).toBe("Echo: first")
            return yield* saveAsJson(client)
          })
        )
        expect(first.filter((sent) => sent.rpc === "initialize")).toHaveLength(1)
        expect(first.filter((sent) => sent.http === "DELETE")).toStrictEqual([])
        const saved = yield* Schema.decode(SavedJson)(stored)
        expect(saved.protocolVersion).toBe("2025-11-25")
        expect(saved.serverInfo.name).toBe("mcp-servers/everything")

        // The second: no handshake; every request carries the saved id and is answered in that session.
        const second: Array<Sent> = []
        yield* Effect.scoped(
          Effect.gen(function* () {
            const client = yield* connect(second, { reattach: saved }, true)
            expect((yield* client.state)._tag).toBe("Ready")
            expect(client.serverInfo).toStrictEqual(saved.serverInfo)
            expect(client.protocolVersion).toBe(saved.protocolVersion)
            expect(yield* echo(client, "second")).toBe("Echo: second")
            yield* client.ping()
            expect(Option.map(yield* client.savedSession, (now) => now.sessionId)).toStrictEqual(
              Option.some(saved.sessionId)
            )
          })
        )
        expect(second.map((sent) => sent.rpc)).not.toContain("initialize")
        expect(second.map((sent) => sent.rpc)).not.toContain("server/discover")
        expect(second.map((sent) => sent.rpc)).toContain("tools/call")
        expect(second.every((sent) => sent.session === saved.sessionId)).toBe(true)
        expect(second.filter((sent) => sent.http === "DELETE")).toHaveLength(1)

        // The third: the server forgot the session (the DELETE ended it), so the client initializes a new one.
        const third: Array<Sent> = []
        const renewed = yield* Effect.scoped(
          Effect.gen(function* () {
            const client = yield* connect(third, { reattach: saved }, true)
            expect(yield* echo(client, "third")).toBe("Echo: third")
            return yield* client.savedSession
          })
        )
        const calls = third.filter((sent) => sent.rpc === "tools/call" || sent.rpc === "tools/list")
        expect(calls[0]?.session).toBe(saved.sessionId)
        expect(third.filter((sent) => sent.rpc === "initialize")).toHaveLength(1)
        const renewedId = Option.map(renewed, (now) => now.sessionId)
        expect(Option.isSome(renewedId)).toBe(true)
        expect(renewedId).not.toStrictEqual(Option.some(saved.sessionId))
        expect(third.at(-1)).toStrictEqual({
          http: "DELETE",
          session: Option.getOrUndefined(renewedId),
          rpc: undefined
        })
      }).pipe(noFibersLeft, Effect.zipRight(Effect.sync(() => expect(connectionsTo(running().port)).toBe(0))))
  )

  it.effect("a stored value that is not a saved session is a ParseError saying where", () =>
    Effect.gen(function* () {
      const valid = yield* Schema.encode(SavedJson)(aSavedSession)
      expect(Either.isRight(yield* Effect.either(Schema.decode(SavedJson)(valid)))).toBe(true)
      for (const [stored, where] of [
        [valid.slice(0, 20), "JSON"],
        [valid.replace('"2025-11-25"', '"2026-07-28"'), "protocolVersion"],
        [valid.replace('"abc"', '""'), "sessionId"],
        [JSON.stringify({ sessionId: "abc", protocolVersion: "2025-11-25" }), "serverInfo"]
      ] as const) {
        const decoded = yield* Effect.either(Schema.decode(SavedJson)(stored))
        if (Either.isRight(decoded)) return expect.unreachable(`decoded ${stored}`)
        expect(decoded.left._tag).toBe("ParseError")
        expect(decoded.left.message).toContain(where)
      }
    })
  )

  it.scoped("a transport that keeps no session cannot reattach: SessionUnavailable, nothing sent", () =>
    Effect.gen(function* () {
      const received: Array<unknown> = []
      const built = yield* Effect.either(
        Layer.build(
          McpClient.layer({ name: "memory", requestTimeout: "2 seconds", reattach: aSavedSession }).pipe(
            Layer.provide(InMemoryTransport.layer((end) => Effect.forkScoped(end.run((item) => received.push(item)))))
          )
        )
      )
      if (Either.isRight(built)) return expect.unreachable("the client was built")
      expect(built.left._tag).toBe("SessionUnavailable")
      expect(built.left.message).toContain("only Streamable HTTP keeps sessions")
      expect(received).toStrictEqual([])
    })
  )
})
