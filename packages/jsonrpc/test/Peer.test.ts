/** The JSON-RPC peer against a scripted server: correlation, timeouts, cancellation and every fault. */

import { describe, expect, it } from "@effect/vitest"
import { JsonRpc } from "@effect-mcp/protocol"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as InMemoryTransport from "../src/InMemoryTransport.js"
import * as Middleware from "../src/Middleware.js"
import * as Peer from "../src/Peer.js"
import * as PlainForm from "../src/PlainForm.js"
import * as Transport from "../src/Transport.js"
import { scriptedPeer, startRequest } from "./support/scripted.js"

const requestOf = (message: JsonRpc.JSONRPCMessage) => {
  if (!JsonRpc.isRequest(message)) throw new Error(`expected a request, got ${JSON.stringify(message)}`)
  return message
}

describe("Peer", () => {
  it.scoped("correlates responses by id, whatever their order", () =>
    Effect.gen(function* () {
      const { peer, server, next } = yield* scriptedPeer()
      const a = yield* Effect.fork(peer.request("a", { n: 1 }))
      const b = yield* Effect.fork(peer.request("b", undefined))
      const first = requestOf(yield* next)
      const second = requestOf(yield* next)
      yield* server.send({ jsonrpc: "2.0", id: second.id, result: { for: second.method } })
      yield* server.send({ jsonrpc: "2.0", id: first.id, result: { for: first.method } })
      expect(yield* Fiber.join(a)).toStrictEqual({ for: "a" })
      expect(yield* Fiber.join(b)).toStrictEqual({ for: "b" })
      expect(first.params).toMatchObject({ n: 1 })
      expect(Object.keys(second.params ?? {})).not.toContain("n")
    })
  )

  it.scoped("an error response fails the request with the server's code, message and data", () =>
    Effect.gen(function* () {
      const { peer, server, next } = yield* scriptedPeer()
      const call = yield* Effect.fork(Effect.flip(peer.request("tools/call", { name: "x" })))
      const sent = requestOf(yield* next)
      yield* server.send({ jsonrpc: "2.0", id: sent.id, error: { code: -32602, message: "bad", data: { why: 1 } } })
      const error = yield* Fiber.join(call)
      expect(error).toMatchObject({
        _tag: "RpcError",
        server: "scripted",
        method: "tools/call",
        code: -32602,
        data: { why: 1 }
      })
    })
  )

  it.effect("times out, fails with a typed error and cancels the request on the server", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { peer, next } = yield* scriptedPeer()
        const call = yield* Effect.fork(Effect.flip(peer.request("slow", undefined, { timeout: "5 seconds" })))
        const sent = requestOf(yield* next)
        yield* TestClock.adjust("5 seconds")
        const error = yield* Fiber.join(call)
        expect(error).toMatchObject({ _tag: "RequestTimeout", method: "slow", kind: "idle" })
        const cancel = yield* next
        expect(cancel).toMatchObject({ method: "notifications/cancelled", params: { requestId: sent.id } })
        expect((yield* peer.stats).pending).toBe(0)
      })
    )
  )

  it.effect("a request given up by Effect.timeout (its fiber interrupted) is cancelled on the server at once", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { peer, next } = yield* scriptedPeer()
        const call = yield* Effect.fork(Effect.either(Effect.timeout(peer.request("slow", undefined), "1 second")))
        const sent = requestOf(yield* next)
        yield* TestClock.adjust("1 second")
        expect(yield* Fiber.join(call)).toMatchObject({ _tag: "Left", left: { _tag: "TimeoutException" } })
        expect(yield* next).toMatchObject({
          method: "notifications/cancelled",
          params: { requestId: sent.id, reason: "The request was cancelled" }
        })
        expect((yield* peer.stats).pending).toBe(0)
      })
    )
  )

  it.effect("one timer serves every request: a shorter timeout fires first, the longer one later", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { peer, next } = yield* scriptedPeer()
        const long = yield* Effect.fork(Effect.flip(peer.request("long", undefined, { timeout: "60 seconds" })))
        yield* next
        const short = yield* Effect.fork(Effect.flip(peer.request("short", undefined, { timeout: "2 seconds" })))
        yield* next
        yield* TestClock.adjust("2 seconds")
        expect(yield* Fiber.join(short)).toMatchObject({ _tag: "RequestTimeout", method: "short" })
        expect(Option.isNone(yield* Fiber.poll(long))).toBe(true)
        expect((yield* peer.stats).pending).toBe(1)
        yield* TestClock.adjust("58 seconds")
        expect(yield* Fiber.join(long)).toMatchObject({ _tag: "RequestTimeout", method: "long" })
        expect((yield* peer.stats).pending).toBe(0)
      })
    )
  )

  it.effect("progress restarts the timeout when asked, and the maximum total time still holds", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { peer, server, next } = yield* scriptedPeer()
        const progress: Array<unknown> = []
        const call = yield* Effect.fork(
          Effect.flip(
            peer.request("slow", undefined, {
              timeout: "5 seconds",
              resetTimeoutOnProgress: true,
              maxTotalTimeout: "12 seconds",
              onProgress: (params) => Effect.sync(() => progress.push(params.progress))
            })
          )
        )
        const sent = requestOf(yield* next)
        const meta = sent.params?._meta
        const token =
          typeof meta === "object" && meta !== null && "progressToken" in meta ? meta.progressToken : undefined
        expect(token).toBeDefined()
        for (const step of [1, 2]) {
          yield* TestClock.adjust("4 seconds")
          yield* server.send({
            jsonrpc: "2.0",
            method: "notifications/progress",
            params: { progressToken: token, progress: step }
          })
          yield* Effect.yieldNow()
        }
        expect(Option.isNone(yield* Fiber.poll(call))).toBe(true)
        yield* TestClock.adjust("4 seconds")
        const error = yield* Fiber.join(call)
        expect(error).toMatchObject({ _tag: "RequestTimeout", kind: "total" })
        expect(progress).toStrictEqual([1, 2])
      })
    )
  )

  it.effect("interrupting a request sends notifications/cancelled with a reason; initialize is never cancelled", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { peer, next } = yield* scriptedPeer()
        const call = yield* Effect.fork(peer.request("tools/call", { name: "x" }))
        const sent = requestOf(yield* next)
        yield* Fiber.interrupt(call)
        expect(yield* next).toMatchObject({
          method: "notifications/cancelled",
          params: { requestId: sent.id, reason: "The request was cancelled" }
        })
        const init = yield* Effect.fork(peer.request("initialize", {}, { cancellable: false }))
        yield* next
        yield* Fiber.interrupt(init)
        const probe = yield* Effect.fork(peer.request("ping", undefined))
        expect(yield* next).toMatchObject({ method: "ping" })
        yield* Fiber.interrupt(probe)
      })
    )
  )

  it.effect("a request abandoned by its caller while the timer cancels another is cancelled once, not twice", () =>
    Effect.scoped(
      Effect.gen(function* () {
        // The first cancellation written is held, so the timer is mid-way through what fell due.
        const gate = yield* Deferred.make<void>()
        let held = false
        const holding: Middleware.Interceptor = {
          outbound: (message, next) =>
            "method" in message && message.method === "notifications/cancelled" && !held
              ? Effect.zipRight(
                  Effect.sync(() => {
                    held = true
                  }),
                  Effect.zipRight(Deferred.await(gate), next(message))
                )
              : next(message)
        }
        const { peer, next, received } = yield* scriptedPeer().pipe(
          Effect.provideService(Middleware.Middleware, [holding])
        )
        const a = yield* Effect.fork(Effect.flip(peer.request("a", undefined, { timeout: "5 seconds" })))
        const b = yield* Effect.fork(Effect.exit(peer.request("b", undefined, { timeout: "5 seconds" })))
        const sentA = requestOf(yield* next)
        const sentB = requestOf(yield* next)
        yield* TestClock.adjust("5 seconds")
        expect(yield* Fiber.join(a)).toMatchObject({ _tag: "RequestTimeout", method: "a" })
        // B's caller gives up while A's cancellation is held: B is abandoned and cancelled by its caller.
        yield* Fiber.interruptFork(b)
        yield* Effect.repeatN(Effect.yieldNow(), 20)
        yield* Deferred.succeed(gate, undefined)
        yield* Fiber.await(b)
        yield* Effect.repeatN(Effect.yieldNow(), 50)
        const waiting = Option.getOrElse(received.unsafeSize(), () => 0)
        const [messages] = yield* received.takeN(waiting)
        const cancellations = Array.from(messages)
          .filter((message) => "method" in message && message.method === "notifications/cancelled")
          .map((message) => ("params" in message ? message.params?.requestId : undefined))
        expect(cancellations.filter((id) => id === sentB.id)).toHaveLength(1)
        expect(cancellations.filter((id) => id === sentA.id).length).toBeLessThanOrEqual(1)
        expect((yield* peer.stats).pending).toBe(0)
      })
    )
  )

  it.scoped("answers ping, -32601 for an unknown method, and an error when a handler fails or dies", () =>
    Effect.gen(function* () {
      const { peer, server, next } = yield* scriptedPeer()
      yield* peer.handle("fails", () => Effect.fail(Peer.failWith(-32000, "nope", { x: 1 })))
      yield* peer.handle("dies", () => Effect.die("boom"))
      yield* peer.handle("works", (request) => Effect.succeed({ echo: request.params ?? null }))
      yield* server.send({ jsonrpc: "2.0", id: "p", method: "ping" })
      expect(yield* next).toStrictEqual({ jsonrpc: "2.0", id: "p", result: {} })
      yield* server.send({ jsonrpc: "2.0", id: 1, method: "nope/never" })
      expect(yield* next).toMatchObject({ id: 1, error: { code: -32601 } })
      yield* server.send({ jsonrpc: "2.0", id: 2, method: "fails" })
      expect(yield* next).toStrictEqual({
        jsonrpc: "2.0",
        id: 2,
        error: { code: -32000, message: "nope", data: { x: 1 } }
      })
      yield* server.send({ jsonrpc: "2.0", id: 3, method: "dies" })
      expect(yield* next).toMatchObject({ id: 3, error: { code: -32603, message: "Internal error" } })
      yield* server.send({ jsonrpc: "2.0", id: 4, method: "works", params: { a: 1 } })
      expect(yield* next).toStrictEqual({ jsonrpc: "2.0", id: 4, result: { echo: { a: 1 } } })
    })
  )

  it.scoped("an inbound notifications/cancelled interrupts the handler it names, which sends no response", () =>
    Effect.gen(function* () {
      const { peer, server, next } = yield* scriptedPeer()
      let interrupted = false
      yield* peer.handle("wait", () =>
        Effect.never.pipe(Effect.onInterrupt(() => Effect.sync(() => (interrupted = true))))
      )
      yield* server.send({ jsonrpc: "2.0", id: 9, method: "wait" })
      yield* Effect.yieldNow().pipe(Effect.repeat({ until: () => false, times: 5 }))
      expect((yield* peer.stats).inbound).toBe(1)
      yield* server.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 9 } })
      yield* server.send({ jsonrpc: "2.0", id: 10, method: "ping" })
      expect(yield* next).toMatchObject({ id: 10 })
      expect(interrupted).toBe(true)
      expect((yield* peer.stats).inbound).toBe(0)
    })
  )

  it.scoped("unknown ids, duplicates and malformed messages are logged and counted, never fatal", () => {
    const warnings: Array<string> = []
    const logger = Logger.make(({ logLevel, message }) => {
      if (logLevel._tag === "Warning") warnings.push(String(Array.isArray(message) ? message[0] : message))
    })
    return Effect.gen(function* () {
      const { peer, server, next } = yield* scriptedPeer()
      const call = yield* Effect.fork(peer.request("x", undefined))
      const sent = requestOf(yield* next)
      yield* server.inject({ jsonrpc: "2.0", id: 999, result: {} })
      yield* server.inject("not a message")
      yield* server.inject({ jsonrpc: "2.0", id: sent.id, result: { ok: 1 } })
      yield* server.inject({ jsonrpc: "2.0", id: sent.id, result: { ok: 2 } })
      expect(yield* Fiber.join(call)).toStrictEqual({ ok: 1 })
      yield* server.inject({ jsonrpc: "2.0", id: 5, result: {}, error: { code: 1, message: "both" } })
      // A ping answered proves the reader has dispatched everything injected before it.
      yield* server.send({ jsonrpc: "2.0", id: "barrier", method: "ping" })
      expect(yield* next).toMatchObject({ id: "barrier" })
      const stats = yield* peer.stats
      expect(stats.violations).toStrictEqual({ "unknown-id": 2, malformed: 2, "malformed-response": 0 })
      // Each one is a warning naming what it was.
      expect(warnings).toStrictEqual([
        "mcp protocol violation (unknown-id) from scripted",
        "mcp protocol violation (malformed) from scripted",
        "mcp protocol violation (unknown-id) from scripted",
        "mcp protocol violation (malformed) from scripted"
      ])
      const still = yield* Effect.fork(peer.request("still-works", undefined))
      const after = requestOf(yield* next)
      yield* server.send({ jsonrpc: "2.0", id: after.id, result: { ok: true } })
      expect(yield* Fiber.join(still)).toStrictEqual({ ok: true })
    }).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, logger)))
  })

  it.scoped(
    "observers see notifications in order until unregistered; one that dies stops neither the others nor the reader",
    () =>
      Effect.gen(function* () {
        const { peer, server, next } = yield* scriptedPeer()
        const seen: Array<string> = []
        yield* peer.observe(() => Effect.dieMessage("a broken observer"))
        const scope = yield* Scope.make()
        yield* Scope.extend(
          peer.observe((notification) => Effect.sync(() => void seen.push(notification.method))),
          scope
        )
        const barrier = (id: string) => Effect.zipRight(server.send({ jsonrpc: "2.0", id, method: "ping" }), next)
        yield* server.send({ jsonrpc: "2.0", method: "notifications/a" })
        yield* barrier("first")
        yield* Scope.close(scope, Exit.void)
        yield* server.send({ jsonrpc: "2.0", method: "notifications/b" })
        yield* barrier("second")
        expect(seen).toStrictEqual(["notifications/a"])
        const still = yield* Effect.fork(peer.request("still-works", undefined))
        const after = requestOf(yield* next)
        yield* server.send({ jsonrpc: "2.0", id: after.id, result: { ok: true } })
        expect(yield* Fiber.join(still)).toStrictEqual({ ok: true })
      }).pipe(Logger.withMinimumLogLevel(LogLevel.None))
  )

  it.scoped("whenClosed runs when the connection ends, at once when it has, and not once its scope closed", () =>
    Effect.gen(function* () {
      const { peer, client } = yield* scriptedPeer()
      const ended: Array<string> = []
      const scope = yield* Scope.make()
      yield* Scope.extend(
        peer.whenClosed(() => Effect.sync(() => void ended.push("unregistered"))),
        scope
      )
      yield* Scope.close(scope, Exit.void)
      yield* peer.whenClosed(() => Effect.dieMessage("a broken closer"))
      yield* peer.whenClosed((error) => Effect.sync(() => void ended.push(`before: ${Option.isSome(error)}`)))
      yield* client.fail("gone")
      yield* peer.closed
      yield* peer.whenClosed((error) => Effect.sync(() => void ended.push(`after: ${Option.isSome(error)}`)))
      expect(ended).toStrictEqual(["before: true", "after: true"])
    }).pipe(Logger.withMinimumLogLevel(LogLevel.None))
  )

  it.effect("an answer that crosses our cancellation is noted at debug level, not a warning or a violation", () => {
    const lines: Array<{ readonly level: string; readonly message: string }> = []
    const logger = Logger.make(({ logLevel, message }) => {
      lines.push({ level: logLevel.label, message: Array.isArray(message) ? message.join(" ") : String(message) })
    })
    return Effect.gen(function* () {
      const { peer, server, next } = yield* scriptedPeer()
      const interrupted = yield* Effect.fork(peer.request("tools/call", { name: "x" }))
      const first = requestOf(yield* next)
      yield* Fiber.interrupt(interrupted)
      yield* next // notifications/cancelled
      const timedOut = yield* Effect.fork(Effect.flip(peer.request("slow", undefined, { timeout: "1 second" })))
      const second = requestOf(yield* next)
      yield* TestClock.adjust("1 second")
      yield* Fiber.join(timedOut)
      yield* next // notifications/cancelled
      const answer = (id: JsonRpc.RequestId) => server.send({ jsonrpc: "2.0", id, result: {} })
      const barrier = (id: string) => Effect.zipRight(server.send({ jsonrpc: "2.0", id, method: "ping" }), next)
      yield* answer(first.id)
      yield* answer(second.id)
      yield* barrier("b1")
      // Only the first answer to a cancelled id is expected; a second one is a violation again.
      yield* answer(first.id)
      yield* barrier("b2")
      expect(lines.filter((line) => line.level === "DEBUG").map((line) => line.message)).toStrictEqual([
        `scripted: an answer to request ${first.id} arrived after it was cancelled`,
        `scripted: an answer to request ${second.id} arrived after it was cancelled`
      ])
      expect(lines.filter((line) => line.level === "WARN")).toHaveLength(1)
      expect((yield* peer.stats).violations["unknown-id"]).toBe(1)
    }).pipe(
      Effect.scoped,
      Effect.provide(Logger.replace(Logger.defaultLogger, logger)),
      Logger.withMinimumLogLevel(LogLevel.All)
    )
  })

  it.scoped("a malformed response that carries a pending id fails that request with a decode error", () =>
    Effect.gen(function* () {
      const { peer, server, next } = yield* scriptedPeer()
      const call = yield* Effect.fork(Effect.flip(peer.request("x", undefined)))
      const sent = requestOf(yield* next)
      yield* server.inject({ jsonrpc: "2.0", id: sent.id, result: "not an object" })
      const error = yield* Fiber.join(call)
      expect(error).toMatchObject({ _tag: "DecodeError", method: "x" })
      expect(error.message).toContain("malformed response")
      expect(error.message).toContain("result")
      expect((yield* peer.stats).violations["malformed-response"]).toBe(1)
    })
  )

  it.scoped("when the transport dies every pending request fails at once with its error, and later ones too", () =>
    Effect.gen(function* () {
      const { peer, client, next } = yield* scriptedPeer()
      const calls = yield* Effect.forEach([1, 2, 3], (n) => Effect.fork(Effect.flip(peer.request(`m${n}`, undefined))))
      yield* next
      yield* next
      yield* next
      yield* client.fail("the server crashed")
      for (const call of calls)
        expect(yield* Fiber.join(call)).toMatchObject({ _tag: "TransportError", reason: "the server crashed" })
      expect((yield* peer.stats).pending).toBe(0)
      expect(yield* peer.closed).toMatchObject(Option.some({ reason: "the server crashed" }))
      expect(yield* Effect.flip(peer.request("late", undefined))).toMatchObject({ reason: "the server crashed" })
    })
  )

  it.effect("closing the scope fails what is pending and leaves nothing behind", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.scoped(
        Effect.gen(function* () {
          const { peer, next } = yield* scriptedPeer()
          const call = yield* Effect.fork(peer.request("forever", undefined))
          yield* next
          return call
        })
      ).pipe(Effect.flatMap(Fiber.await))
      expect(Exit.isFailure(exit)).toBe(true)
      if (Exit.isFailure(exit)) expect(Cause.pretty(exit.cause)).toMatch(/closed/)
    })
  )

  it.scoped("the W3C trace context of the current span travels in _meta", () =>
    Effect.gen(function* () {
      const { peer, server, next } = yield* scriptedPeer()
      const call = yield* Effect.fork(
        peer
          .request("traced", { a: 1 })
          .pipe(Effect.withSpan("caller"), Effect.provideService(Peer.TraceState, "vendor=1"))
      )
      const sent = requestOf(yield* next)
      expect(sent.params?._meta).toMatchObject({
        traceparent: expect.stringMatching(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/),
        tracestate: "vendor=1"
      })
      yield* server.send({ jsonrpc: "2.0", id: sent.id, result: {} })
      yield* Fiber.join(call)
    })
  )

  it.scoped("middleware sees, in onion order, every message both ways and may rewrite them", () => {
    const seen: Array<string> = []
    const tagging = (label: string): Middleware.Interceptor => ({
      outbound: (message, next) =>
        Effect.sync(() => seen.push(`${label} out ${"method" in message ? message.method : "response"}`)).pipe(
          Effect.zipRight(next(message))
        ),
      inbound: (message, next) =>
        Effect.sync(() => seen.push(`${label} in ${"method" in message ? message.method : "response"}`)).pipe(
          Effect.zipRight(next(message))
        )
    })
    const redact: Middleware.Interceptor = {
      outbound: (message, next) =>
        next(JsonRpc.isRequest(message) ? { ...message, params: { ...message.params, secret: "[redacted]" } } : message)
    }
    return Effect.gen(function* () {
      const { peer, server, next } = yield* scriptedPeer()
      const call = yield* Effect.fork(peer.request("m", { secret: "hunter2" }))
      const sent = requestOf(yield* next)
      expect(sent.params).toMatchObject({ secret: "[redacted]" })
      yield* server.send({ jsonrpc: "2.0", id: sent.id, result: {} })
      yield* Fiber.join(call)
      expect(seen).toStrictEqual(["outer out m", "inner out m", "inner in response", "outer in response"])
    }).pipe(Effect.provide(Middleware.layer(tagging("outer"), tagging("inner"), redact)))
  })
})

describe("the plain form of Peer.request (a request from plain code, no fiber)", () => {
  /** Begins a request; its outcome lands in a Deferred. */
  const begin = (peer: Peer.Peer, method: string, options: Peer.RequestOptions = {}) =>
    Effect.gen(function* () {
      const done = yield* Deferred.make<Exit.Exit<Peer.WireObject, Peer.RequestFailure>>()
      const abandon = startRequest(peer)(method, { n: 1 }, options, (exit) =>
        Deferred.unsafeDone(done, Exit.succeed(exit))
      )
      if (abandon === undefined) return yield* Effect.die("expected the peer to start the request")
      return { outcome: Deferred.await(done), settled: Deferred.isDone(done), abandon }
    })

  it.scoped("is answered by the response with its id, in the transport's callback", () =>
    Effect.gen(function* () {
      const { peer, server, next } = yield* scriptedPeer()
      const call = yield* begin(peer, "m")
      const sent = requestOf(yield* next)
      expect(sent).toMatchObject({ method: "m", params: { n: 1 } })
      yield* server.send({ jsonrpc: "2.0", id: sent.id, result: { ok: true } })
      expect(yield* call.outcome).toStrictEqual(Exit.succeed({ ok: true }))
      expect((yield* peer.stats).pending).toBe(0)
    })
  )

  it.effect("wakes the timer when its deadline comes first: times out and is cancelled on the server", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { peer, next } = yield* scriptedPeer()
        const long = yield* Effect.fork(Effect.flip(peer.request("long", undefined, { timeout: "60 seconds" })))
        yield* next
        yield* TestClock.adjust("1 second")
        const short = yield* begin(peer, "short", { timeout: "2 seconds" })
        const sent = requestOf(yield* next)
        yield* TestClock.adjust("2 seconds")
        const outcome = yield* short.outcome
        expect(Exit.isFailure(outcome) && Cause.failureOption(outcome.cause)).toMatchObject(
          Option.some({ _tag: "RequestTimeout", method: "short", kind: "idle" })
        )
        expect(yield* next).toMatchObject({ method: "notifications/cancelled", params: { requestId: sent.id } })
        yield* Fiber.interrupt(long)
      })
    )
  )

  it.scoped("given up: it leaves the map, the server is told, and its late answer is no violation", () =>
    Effect.gen(function* () {
      const { peer, server, next } = yield* scriptedPeer()
      const notifications = yield* peer.subscribe
      const call = yield* begin(peer, "m")
      const sent = requestOf(yield* next)
      call.abandon()
      call.abandon()
      yield* peer.notify("marker")
      expect(yield* next).toMatchObject({
        method: "notifications/cancelled",
        params: { requestId: sent.id, reason: "The request was cancelled" }
      })
      // Given up twice, cancelled once.
      expect(yield* next).toMatchObject({ method: "marker" })
      expect((yield* peer.stats).pending).toBe(0)
      yield* server.send({ jsonrpc: "2.0", id: sent.id, result: {} })
      yield* server.send({ jsonrpc: "2.0", method: "after" })
      // The late answer has been dispatched once the notification after it has.
      expect(yield* Queue.take(notifications)).toMatchObject({ method: "after" })
      expect(yield* call.settled).toBe(false)
      expect((yield* peer.stats).violations["unknown-id"]).toBe(0)
    })
  )

  it.scoped("progress reaches its callback; the connection's end fails it with the transport's error", () =>
    Effect.gen(function* () {
      const { peer, client, server, next } = yield* scriptedPeer()
      const seen: Array<unknown> = []
      const call = yield* begin(peer, "m", {
        onProgress: (progress) => Effect.sync(() => seen.push(progress.progress))
      })
      const sent = requestOf(yield* next)
      const token = (sent.params?._meta as { readonly progressToken?: unknown } | undefined)?.progressToken
      expect(token).toBe(sent.id)
      yield* server.send({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: token, progress: 1 }
      })
      yield* client.fail("died")
      const outcome = yield* call.outcome
      expect(seen).toStrictEqual([1])
      expect(Exit.isFailure(outcome) && Cause.failureOption(outcome.cause)).toMatchObject(
        Option.some({ _tag: "TransportError", reason: "died" })
      )
      expect(startRequest(peer)("m", undefined, {}, () => {})).toBeUndefined()
    })
  )

  it.scoped(
    "a log message related to a request that takes its logs goes to its onLog alone, even once it ended; others to the observers",
    () =>
      Effect.gen(function* () {
        const [clientEnd, server] = yield* InMemoryTransport.makePair("scripted")
        // As Streamable HTTP does for a POST's event stream: a log naming `request` came on its stream.
        const relating: Transport.TransportService = {
          ...clientEnd,
          run: (deliver) =>
            clientEnd.run((item) => {
              if (item._tag !== "Message" || !("params" in item.message)) return deliver(item)
              const request = item.message.params?.request
              deliver(typeof request === "number" ? { ...item, relatedRequest: request } : item)
            })
        }
        const peer = yield* Peer.make(relating, { server: "scripted", requestTimeout: "10 seconds" })
        const requests = yield* Queue.unbounded<JsonRpc.JSONRPCMessage>()
        yield* Transport.incoming(server).pipe(
          Stream.runForEach((item) => (item._tag === "Message" ? Queue.offer(requests, item.message) : Effect.void)),
          Effect.forkScoped
        )
        const own: Array<unknown> = []
        const observed: Array<unknown> = []
        yield* peer.observe((notification) => Effect.sync(() => void observed.push(notification.params?.data)))
        const taking = yield* Effect.fork(
          peer.request("taking", undefined, { onLog: (params) => Effect.sync(() => void own.push(params.data)) })
        )
        const taken = requestOf(yield* Queue.take(requests))
        const plain = yield* Effect.fork(peer.request("plain", undefined))
        const other = requestOf(yield* Queue.take(requests))
        const log = (data: string, request?: JsonRpc.RequestId) =>
          server.send({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data, request } })
        yield* log("taking's", taken.id)
        yield* log("plain's", other.id)
        yield* log("no one's")
        yield* server.send({ jsonrpc: "2.0", id: taken.id, result: {} })
        yield* Fiber.join(taking)
        // Still the request's once it ended: no one else's.
        yield* log("after taking's end", taken.id)
        yield* server.send({ jsonrpc: "2.0", id: other.id, result: {} })
        yield* Fiber.join(plain)
        yield* log("after plain's end", other.id)
        // Answered after it on the wire: once its answer is in, the log before it was dispatched.
        const last = yield* Effect.fork(peer.request("last", undefined))
        const lastSent = requestOf(yield* Queue.take(requests))
        yield* server.send({ jsonrpc: "2.0", id: lastSent.id, result: {} })
        yield* Fiber.join(last)
        expect(own).toStrictEqual(["taking's"])
        expect(observed).toStrictEqual(["plain's", "no one's", "after plain's end"])
      })
  )

  it.scoped("a write that throws (a value JSON cannot encode) is the request's defect; nothing stays pending", () =>
    Effect.gen(function* () {
      const { peer } = yield* scriptedPeer()
      let outcome: Exit.Exit<Peer.WireObject, Peer.RequestFailure> | undefined
      const abandon = startRequest(peer)("m", { n: 1n }, {}, (exit) => {
        outcome = exit
      })
      expect(abandon).toBeDefined()
      expect(outcome !== undefined && Exit.isFailure(outcome) && Cause.isDie(outcome.cause)).toBe(true)
      expect((yield* peer.stats).pending).toBe(0)
    })
  )

  /** The errors logged while `effect` runs: message and the cause's pretty form. */
  const errorsLogged = <A, E, R>(effect: Effect.Effect<A, E, R>) => {
    const errors: Array<string> = []
    const logger = Logger.make(({ logLevel, message, cause }) => {
      if (logLevel._tag === "Error")
        errors.push(`${String(Array.isArray(message) ? message[0] : message)}: ${Cause.pretty(cause)}`)
    })
    return Effect.map(Effect.provide(effect, Logger.replace(Logger.defaultLogger, logger)), () => errors)
  }

  it.scoped("a progress callback that dies is logged; the reader, the request and the connection live on", () =>
    Effect.gen(function* () {
      const { peer, server, next } = yield* scriptedPeer()
      const call = yield* begin(peer, "m", { onProgress: () => Effect.dieMessage("a broken progress callback") })
      const sent = requestOf(yield* next)
      const progress = { progressToken: sent.id, progress: 1 }
      yield* server.send({ jsonrpc: "2.0", method: "notifications/progress", params: progress })
      yield* server.send({ jsonrpc: "2.0", id: sent.id, result: { ok: true } })
      expect(yield* call.outcome).toStrictEqual(Exit.succeed({ ok: true }))
      const later = yield* Effect.fork(peer.request("later", undefined))
      yield* server.send({ jsonrpc: "2.0", id: requestOf(yield* next).id, result: {} })
      expect(yield* Fiber.join(later)).toStrictEqual({})
    }).pipe(
      errorsLogged,
      Effect.tap((errors) => {
        expect(errors).toHaveLength(1)
        expect(errors[0]).toMatch(/^a progress callback failed: .*a broken progress callback/s)
      })
    )
  )

  it.scoped("a progress callback that throws instead of returning an effect is logged too", () =>
    Effect.gen(function* () {
      const { peer, server, next } = yield* scriptedPeer()
      const call = yield* begin(peer, "m", {
        onProgress: () => {
          throw new Error("a progress callback that throws")
        }
      })
      const sent = requestOf(yield* next)
      yield* server.send({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: sent.id, progress: 1 }
      })
      yield* server.send({ jsonrpc: "2.0", id: sent.id, result: { ok: true } })
      expect(yield* call.outcome).toStrictEqual(Exit.succeed({ ok: true }))
    }).pipe(
      errorsLogged,
      Effect.tap((errors) => {
        expect(errors).toHaveLength(1)
        expect(errors[0]).toMatch(/^a progress callback failed: .*a progress callback that throws/s)
      })
    )
  )

  it.scoped("is not offered when middleware stands between the peer and the transport", () =>
    Effect.gen(function* () {
      const { peer } = yield* scriptedPeer()
      expect(PlainForm.of(peer.request)).toBeUndefined()
    }).pipe(Effect.provide(Middleware.layer({})))
  )
})
