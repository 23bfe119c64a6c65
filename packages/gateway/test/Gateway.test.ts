/**
 * The gateway in process, with the reference server behind a host and our own client in front
 * (over an in-memory pair): the catalog under host-wide names, the server's elicitation asked of
 * the client (and refused with -32601 for a client that cannot answer it), subscriptions, logging
 * and list changes passed on. One host (one reference server) for the file; one connection per test.
 */
import { expect, layer } from "@effect/vitest"
import { McpHost } from "@effect-mcp/host"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Listen from "../src/internal/listen.js"
import * as McpGateway from "../src/McpGateway.js"
import { connect, elicitation, everything, faultServer, GATEWAY, gatewayHost, textOf } from "./support/gateway.js"

/**
 * The longest a test waits for something the server sends (the reference server sends at once):
 * generous, for a loaded machine; a test goes on as soon as it comes.
 */
const WAIT = "30 seconds"

layer(gatewayHost({ servers: [{ name: "everything", target: everything }] }), {
  excludeTestServices: true,
  timeout: "60 seconds"
})("McpGateway, serving the reference server to our client", (it) => {
  it.scoped("initializes as one server and lists the tools under host-wide names; a call is routed", () =>
    Effect.gen(function* () {
      const { client } = yield* connect()
      expect(client.serverInfo.name).toBe("effect-mcp-gateway")
      expect(client.protocolVersion).toBe("2025-11-25")
      expect(client.serverCapabilities).toMatchObject({ tools: { listChanged: true }, resources: { subscribe: true } })
      const names = (yield* client.tools).map((tool) => tool.name)
      expect(names).toEqual(expect.arrayContaining(["everything__echo", "everything__get-sum"]))
      expect(names.every((name) => name.startsWith("everything__"))).toBe(true)
      expect(textOf(yield* client.callTool("everything__get-sum", { a: 2, b: 40 }))).toContain("42")
    })
  )

  // The spec's tools page: invalid arguments are a tool execution error, so the model can correct itself.
  for (const protocolVersion of ["2025-11-25", "2026-07-28"] as const) {
    it.scoped(`${protocolVersion}: arguments the tool's schema refuses give a tool error naming them, not -32602`, () =>
      Effect.gen(function* () {
        const { client } = yield* connect({ protocolVersion, validateToolInput: false })
        const result = yield* client.callTool("everything__get-sum", { a: "two", b: 40 })
        expect(result.isError).toBe(true)
        expect(textOf(result)).toContain("everything__get-sum")
        expect(textOf(result)).toContain("/a")
      })
    )
  }

  it.scoped("a server's elicitation reaches our client's handler, and its answer goes back to the server", () =>
    Effect.gen(function* () {
      const asked: Array<string> = []
      const { client } = yield* connect({ elicitation: elicitation(asked, { name: "Ada Lovelace" }) })
      const result = yield* client.callTool("everything__trigger-elicitation-request", {})
      expect(asked).toStrictEqual([`${GATEWAY}: Please provide inputs for the following fields:`])
      expect(result.isError).not.toBe(true)
      expect(textOf(result)).toContain("Name: Ada Lovelace")
    })
  )

  it.scoped("a client without elicitation: the server's request fails with -32601 and the call still ends", () =>
    Effect.gen(function* () {
      const { client } = yield* connect()
      const result = yield* client
        .callTool("everything__trigger-elicitation-request", {})
        .pipe(Effect.timeoutFail({ duration: WAIT, onTimeout: () => "the call hung" }))
      // The reference server reports its failed request as the tool's error.
      expect(result.isError).toBe(true)
      expect(textOf(result)).toContain("-32601")
      expect(textOf(result)).toContain("does not support elicitation/create")
    })
  )

  it.scoped("a 2026-07-28 client without elicitation: its call fails with -32021 naming the capability", () =>
    Effect.gen(function* () {
      const { client } = yield* connect({ protocolVersion: "2026-07-28" })
      const error = yield* client
        .callTool("everything__trigger-elicitation-request", {})
        .pipe(Effect.timeoutFail({ duration: WAIT, onTimeout: () => "the call hung" }), Effect.flip)
      expect(error).toMatchObject({
        _tag: "RpcError",
        code: -32021,
        data: { requiredCapabilities: { elicitation: {} } }
      })
    })
  )

  // A connection's attachment goes with the connection: a server's request never goes to a client
  // that has gone, and the live one that did not declare the capability answers for itself (-32601).
  it.scoped("a client that has gone is not asked: the one still connected answers for itself", () =>
    Effect.gen(function* () {
      const gone = yield* Scope.make()
      const asked: Array<string> = []
      const first = yield* connect({ elicitation: elicitation(asked, { name: "gone" }), clientScope: gone })
      yield* Scope.close(gone, Exit.void)
      expect(Exit.isSuccess(yield* Fiber.await(first.served).pipe(Effect.timeout(WAIT)))).toBe(true)
      const { client } = yield* connect()
      const result = yield* client.callTool("everything__trigger-elicitation-request", {}).pipe(Effect.timeout(WAIT))
      expect(asked).toStrictEqual([])
      expect(textOf(result)).toContain("does not support elicitation/create")
    })
  )

  for (const protocolVersion of ["2025-11-25", "2026-07-28"] as const) {
    // At 2026-07-28 the client opens its subscriptions/listen again with the resource in its filter.
    it.scoped(`${protocolVersion}: a subscription's updates are passed on for the subscribed resource`, () =>
      Effect.gen(function* () {
        const { client } = yield* connect({ protocolVersion })
        const uri = (yield* client.resources).find((resource) =>
          resource.uri.startsWith("demo://resource/static/")
        )?.uri
        expect(uri).toBeDefined()
        const subscribed = uri ?? ""
        const update = yield* client.resourceUpdates.pipe(
          Stream.filter((params) => params.uri === subscribed),
          Stream.runHead,
          Effect.timeout(WAIT),
          Effect.fork
        )
        yield* Effect.yieldNow()
        yield* client.subscribe(subscribed)
        // The reference server sends its subscribers an update at once when the updates are turned on.
        yield* client.callTool("everything__toggle-subscriber-updates", {})
        const received = yield* Fiber.join(update).pipe(
          Effect.ensuring(Effect.ignore(client.callTool("everything__toggle-subscriber-updates", {})))
        )
        expect(Option.map(received, (params) => params.uri)).toStrictEqual(Option.some(subscribed))
        yield* client.unsubscribe(subscribed)
        // A URI no server lists goes to the one server that offers resources, which takes it as it
        // would directly (a URI no server has is refused: UnlistedResources.test).
        if (protocolVersion === "2025-11-25") {
          yield* client.subscribe("demo://nowhere")
          yield* client.unsubscribe("demo://nowhere")
        }
        // Its read is asked of that server, whose "not found" (SDK v1: -32602) is the revision's.
        const unread = yield* Effect.flip(client.readResource("demo://nowhere"))
        expect(unread).toMatchObject({ _tag: "RpcError", code: protocolVersion === "2025-11-25" ? -32002 : -32602 })
      })
    )
  }

  // The host's one session with the server stays subscribed while any connection is.
  it.scoped("a connection's unsubscribe leaves another connection's subscription to the same resource", () =>
    Effect.gen(function* () {
      const first = yield* connect()
      const second = yield* connect()
      const uri = (yield* second.client.resources).find((resource) =>
        resource.uri.startsWith("demo://resource/static/")
      )?.uri
      const subscribed = uri ?? ""
      yield* first.client.subscribe(subscribed)
      yield* second.client.subscribe(subscribed)
      yield* first.client.unsubscribe(subscribed)
      const update = yield* second.client.resourceUpdates.pipe(
        Stream.filter((params) => params.uri === subscribed),
        Stream.runHead,
        Effect.timeout(WAIT),
        Effect.fork
      )
      yield* Effect.yieldNow()
      yield* second.client.callTool("everything__toggle-subscriber-updates", {})
      const received = yield* Fiber.join(update).pipe(
        Effect.ensuring(Effect.ignore(second.client.callTool("everything__toggle-subscriber-updates", {}))),
        Effect.ensuring(Effect.ignore(second.client.unsubscribe(subscribed)))
      )
      expect(received).toStrictEqual(Option.some({ uri: subscribed }))
    })
  )

  // The spec: servers MUST NOT send elicitation requests with modes the client does not support
  // (only an empty `elicitation: {}` means form).
  it.scoped("a client that declared only URL elicitation is not asked a form: the server gets -32601", () =>
    Effect.gen(function* () {
      const asked: Array<string> = []
      const { client } = yield* connect({
        elicitation: {
          url: (params) =>
            Effect.sync(() => void asked.push(params.message)).pipe(Effect.as({ action: "decline" as const }))
        }
      })
      const result = yield* client.callTool("everything__trigger-elicitation-request", {}).pipe(Effect.timeout(WAIT))
      expect(asked).toStrictEqual([])
      expect(result.isError).toBe(true)
      expect(textOf(result)).toContain("-32601")
    })
  )

  it.scoped("logging/setLevel is applied, and the server's log messages come under its name", () =>
    Effect.gen(function* () {
      const { client } = yield* connect()
      const message = yield* client.logMessages.pipe(
        Stream.filter((params) => /level.message/i.test(String(params.data))),
        Stream.runHead,
        Effect.timeout(WAIT),
        Effect.fork
      )
      yield* Effect.yieldNow()
      yield* client.setLoggingLevel("debug")
      // The reference server logs one message at once when simulated logging is turned on.
      yield* client.callTool("everything__toggle-simulated-logging", {})
      const received = yield* Fiber.join(message).pipe(
        Effect.ensuring(Effect.ignore(client.callTool("everything__toggle-simulated-logging", {})))
      )
      expect(Option.isSome(received)).toBe(true)
      const logger = Option.getOrThrow(received).logger ?? ""
      expect(logger === "everything" || logger.startsWith("everything/")).toBe(true)
    })
  )

  it.scoped("2026-07-28: subscriptions/listen misses nothing that happens once it has acknowledged", () =>
    Effect.gen(function* () {
      const host = yield* McpHost.McpHost
      const attachments = yield* McpGateway.Attachments
      yield* attachments.fanout(host)
      yield* host.add({ name: "extra", target: faultServer })
      yield* host.servers.pipe(
        Effect.repeat({
          until: (servers) => servers.some((server) => server.name === "extra" && server.status._tag === "Ready"),
          schedule: Schedule.spaced("20 millis")
        }),
        Effect.timeout(WAIT)
      )
      const subscription = yield* Stream.toPull(
        Listen.listen(
          {
            jsonrpc: "2.0",
            id: 7,
            method: "subscriptions/listen",
            params: { notifications: { toolsListChanged: true } }
          },
          { host, attachments }
        )
      )
      expect(Chunk.toReadonlyArray(yield* subscription)).toMatchObject([
        { method: "notifications/subscriptions/acknowledged" }
      ])
      // One change, right after the acknowledgement was read.
      yield* host.remove("extra")
      expect(Chunk.toReadonlyArray(yield* Effect.timeout(subscription, WAIT))).toMatchObject([
        {
          method: "notifications/tools/list_changed",
          params: { _meta: { "io.modelcontextprotocol/subscriptionId": 7 } }
        }
      ])
    })
  )

  it.scoped("a server added to the host changes the tool list: the client hears it and sees the new tools", () =>
    Effect.gen(function* () {
      const host = yield* McpHost.McpHost
      const { client } = yield* connect()
      expect((yield* client.tools).some((tool) => tool.name.startsWith("extra__"))).toBe(false)
      const changed = yield* client.listChanged.pipe(
        Stream.filter((list) => list === "tools"),
        Stream.take(1),
        Stream.runCollect,
        Effect.timeout(WAIT),
        Effect.fork
      )
      yield* Effect.yieldNow()
      yield* Effect.acquireRelease(host.add({ name: "extra", target: faultServer }), () =>
        Effect.ignore(host.remove("extra"))
      )
      expect(Chunk.toReadonlyArray(yield* Fiber.join(changed))).toStrictEqual(["tools"])
      const names = (yield* client.tools).map((tool) => tool.name)
      expect(names).toEqual(expect.arrayContaining(["extra__echo", "everything__echo"]))
      expect(textOf(yield* client.callTool("extra__echo", { message: "via the gateway" }))).toContain(
        "echo: via the gateway"
      )
    })
  )
})
