/**
 * Idle 2025-11-25 HTTP sessions cost little (`internal/ownedSessions.ts`): a session unused for
 * `sessionDormantAfter` that holds nothing open is put to rest, its serving's fibers gone (counted
 * by a supervisor that tracks every fiber the gateway starts), and its next request serves it again
 * as it was: the same answers (still initialized), its handshake kept (its client's sampling
 * capability still reaches it), one serving for requests that come at once.
 * A session with a log level or a subscription stays served; one whose client listens on its GET
 * stream rests too, and hears the list changes meanwhile. A dormant session still ends when idle
 * past the timeout, or at a DELETE. On the `TestClock`.
 */
import { expect, layer } from "@effect/vitest"
import { McpHost } from "@effect-mcp/host"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Mailbox from "effect/Mailbox"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as Supervisor from "effect/Supervisor"
import * as TestClock from "effect/TestClock"
import * as TestServices from "effect/TestServices"
import * as HttpCore from "../src/internal/httpCore.js"
import * as Observe from "../src/internal/observe.js"
import type * as Reply from "../src/internal/reply.js"
import { postTo, statusOf } from "./support/core.js"
import { everything, faultServer, gatewayHost } from "./support/gateway.js"

let nextId = 1

/** A POST of `body` in `session` at 2025-11-25. */
const post = (handle: HttpCore.Handler, body: unknown, session?: string) =>
  postTo(handle, body, {
    "mcp-protocol-version": "2025-11-25",
    ...(session === undefined ? {} : { "mcp-session-id": session })
  })

/** A request's JSON answer (a test's requests here are answered with JSON). */
const answerOf = (reply: Reply.Reply): { readonly result?: unknown; readonly error?: { readonly code: number } } => {
  if (reply._tag !== "Json") return expect.unreachable(`not answered with JSON: ${reply._tag}`)
  return reply.body as { readonly result?: unknown; readonly error?: { readonly code: number } }
}

const request = (handle: HttpCore.Handler, session: string, method: string, params: object = {}) =>
  Effect.map(post(handle, { jsonrpc: "2.0", id: nextId++, method, params }, session), answerOf)

const hello = (capabilities: object = {}) => ({
  jsonrpc: "2.0",
  id: nextId++,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities, clientInfo: { name: "test", version: "1" } }
})

/** A new initialized session (its client declaring `capabilities`): its id. */
const initialize = (handle: HttpCore.Handler, capabilities: object = {}) =>
  Effect.gen(function* () {
    const id = (yield* post(handle, hello(capabilities))).headers["mcp-session-id"] ?? ""
    expect(id).not.toBe("")
    yield* post(handle, { jsonrpc: "2.0", method: "notifications/initialized" }, id)
    return id
  })

/** How long sessions wait unused before they rest, and how long the clock is moved to see them do. */
const DORMANT = "10 seconds"
const PAST_DORMANT = "16 seconds"

/**
 * The gateway's HTTP core with a count of the fibers it runs now (every fiber started within
 * `use`, the gateway's own and each session's).
 */
const tracked = <A, E, R>(use: (handle: HttpCore.Handler, fibers: Effect.Effect<number>) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(Supervisor.track, (supervisor) =>
    Effect.supervised(
      Effect.flatMap(HttpCore.make({ sessionDormantAfter: DORMANT }), (handle) =>
        use(
          handle,
          Effect.map(supervisor.value, (fibers) => fibers.length)
        )
      ),
      supervisor
    )
  )

/** Lets the sessions unused for long enough go to rest. */
const rest = Effect.zipRight(TestClock.adjust(PAST_DORMANT), Effect.repeatN(Effect.yieldNow(), 20))

layer(gatewayHost({ servers: [{ name: "fault", target: faultServer }] }))("dormant 2025-11-25 sessions", (it) => {
  it.scoped("an idle session rests with no fiber of its own, and its next request is served as before", () =>
    tracked((handle, fibers) =>
      Effect.gen(function* () {
        // What the gateway runs once it has had a session (the servers' fanout, the pool's sweep).
        const first = yield* initialize(handle)
        const listed = yield* request(handle, first, "tools/list")
        yield* rest
        const resting = yield* fibers
        const sessions = [yield* initialize(handle), yield* initialize(handle), yield* initialize(handle)]
        const served = yield* fibers
        expect(served).toBeGreaterThanOrEqual(resting + 3)
        yield* rest
        expect(yield* fibers).toBe(resting)
        // Woken by its next request, answered as before: still initialized (before, -32601).
        expect((yield* request(handle, first, "tools/list")).result).toStrictEqual(listed.result)
        expect(yield* fibers).toBe(resting + (served - resting) / 3)
        for (const session of sessions)
          expect(statusOf(yield* post(handle, { jsonrpc: "2.0", id: 1, method: "ping" }, session))).toBe(200)
        expect(yield* fibers).toBe(served + (served - resting) / 3)
      })
    )
  )

  it.scoped("requests that come at once wake it once", () =>
    tracked((handle, fibers) =>
      Effect.gen(function* () {
        const session = yield* initialize(handle)
        const served = yield* fibers
        yield* rest
        const resting = yield* fibers
        expect(resting).toBeLessThan(served)
        const answers = yield* Effect.all(
          Array.from({ length: 5 }, () => request(handle, session, "ping")),
          { concurrency: "unbounded" }
        )
        expect(answers.map((answer) => answer.result)).toStrictEqual(Array.from({ length: 5 }, () => ({})))
        expect(yield* fibers).toBe(served)
      })
    )
  )

  it.scoped("a session with a log level or a subscription stays served", () =>
    tracked((handle, fibers) =>
      Effect.gen(function* () {
        const first = yield* initialize(handle)
        yield* rest
        const resting = yield* fibers
        const leveled = yield* initialize(handle)
        expect((yield* request(handle, leveled, "logging/setLevel", { level: "debug" })).result).toStrictEqual({})
        const subscribed = yield* initialize(handle)
        expect(
          (yield* request(handle, subscribed, "resources/subscribe", { uri: "fault://doc" })).result
        ).toStrictEqual({})
        const served = yield* fibers
        yield* rest
        expect(yield* fibers).toBe(served)
        // Unsubscribed, it holds nothing more and rests.
        expect(
          (yield* request(handle, subscribed, "resources/unsubscribe", { uri: "fault://doc" })).result
        ).toStrictEqual({})
        yield* rest
        expect(yield* fibers).toBe(resting + (served - resting) / 2)
        expect(first).not.toBe("")
      })
    )
  )

  it.scoped("a session whose client listens on its GET stream rests too, and hears the list changes meanwhile", () =>
    tracked((handle, fibers) =>
      Effect.gen(function* () {
        const host = yield* McpHost.McpHost
        const listening = yield* initialize(handle)
        const listed = yield* request(handle, listening, "tools/list")
        const stream = yield* handle({
          method: "GET",
          url: "/mcp",
          headers: { accept: "text/event-stream", "mcp-protocol-version": "2025-11-25", "mcp-session-id": listening },
          json: Effect.succeed(undefined)
        })
        const { next, waiting } = yield* messagesOf(stream)
        // A session that stays served (its log level) and listens too: what a served session hears.
        const control = yield* initialize(handle)
        expect((yield* request(handle, control, "logging/setLevel", { level: "debug" })).result).toStrictEqual({})
        const controlled = yield* messagesOf(
          yield* handle({
            method: "GET",
            url: "/mcp",
            headers: { accept: "text/event-stream", "mcp-protocol-version": "2025-11-25", "mcp-session-id": control },
            json: Effect.succeed(undefined)
          })
        )
        const served = yield* fibers
        yield* rest
        const resting = yield* fibers
        expect(resting).toBeLessThan(served)
        // A server added while it rests: its client hears that the lists changed, and it stays at rest.
        yield* host.add({ name: "extra", target: faultServer })
        const heard: Array<string | undefined> = []
        while (!heard.includes("notifications/tools/list_changed") && heard.length < 6)
          heard.push(
            (yield* TestServices.provideLive(
              Effect.timeoutFail(next, {
                duration: "10 seconds",
                onTimeout: () => new Error(`no list change came: ${heard.join(", ")}`)
              })
            )).method
          )
        expect(heard).toContain("notifications/tools/list_changed")
        // Once the server is gone again (its fibers end as its process does), the session is still at rest.
        yield* host.remove("extra")
        for (let poll = 0; poll < 250 && (yield* fibers) !== resting; poll++)
          yield* TestServices.provideLive(Effect.sleep("20 millis"))
        expect(yield* fibers).toBe(resting)
        // Woken by its next request, answered as before (the lists as they are again).
        expect((yield* request(handle, listening, "tools/list")).result).toStrictEqual(listed.result)
        expect(yield* fibers).toBeGreaterThan(resting)
        // Served again, it hears the changes as a served session does: its resting listener went as it woke.
        const changes = (messages: { readonly next: typeof next; readonly waiting: () => number }) =>
          Effect.gen(function* () {
            let tools = 0
            for (let left = messages.waiting(); left > 0; left--)
              if ((yield* messages.next).method === "notifications/tools/list_changed") tools++
            return tools
          })
        yield* changes({ next, waiting })
        yield* changes(controlled)
        yield* host.add({ name: "again", target: faultServer })
        yield* Effect.repeatN(Effect.yieldNow(), 20)
        const heardServed = yield* changes(controlled)
        expect(heardServed).toBeGreaterThan(0)
        expect(yield* changes({ next, waiting })).toBe(heardServed)
        yield* host.remove("again")
      })
    )
  )

  it.scoped("the gateway's sessions end with its scope, dormant ones too (their GET streams close)", () =>
    Effect.gen(function* () {
      const open = Effect.map(Metric.value(Observe.sessions), (state) => state.value)
      const before = yield* open
      const scope = yield* Scope.make()
      const handle = yield* HttpCore.make({ sessionDormantAfter: DORMANT }).pipe(Scope.extend(scope))
      const listening = yield* initialize(handle)
      const stream = yield* handle({
        method: "GET",
        url: "/mcp",
        headers: { accept: "text/event-stream", "mcp-protocol-version": "2025-11-25", "mcp-session-id": listening },
        json: Effect.succeed(undefined)
      })
      if (stream._tag !== "Events") return expect.unreachable("no GET stream")
      let ended = false
      const end = () => {
        ended = true
      }
      yield* Effect.forkDaemon(stream.events.connect({ write: () => {}, end }))
      yield* rest
      expect(yield* open).toBe(before + 1)
      yield* Scope.close(scope, Exit.void)
      yield* Effect.repeatN(Effect.yieldNow(), 20)
      expect(ended).toBe(true)
      expect(yield* open).toBe(before)
    })
  )

  it.scoped("a dormant session ends when idle past the timeout, and at a DELETE", () =>
    Effect.gen(function* () {
      const handle = yield* HttpCore.make({ sessionDormantAfter: DORMANT, sessionIdleTimeout: "10 minutes" })
      const open = Effect.map(Metric.value(Observe.sessions), (state) => state.value)
      const before = yield* open
      const idle = yield* initialize(handle)
      const deleted = yield* initialize(handle)
      expect(yield* open).toBe(before + 2)
      yield* rest
      const reply = yield* handle({
        method: "DELETE",
        url: "/mcp",
        headers: { "mcp-protocol-version": "2025-11-25", "mcp-session-id": deleted },
        json: Effect.succeed(undefined)
      })
      expect(statusOf(reply)).toBe(200)
      expect(statusOf(yield* post(handle, { jsonrpc: "2.0", id: 1, method: "ping" }, deleted))).toBe(404)
      expect(yield* open).toBe(before + 1)
      yield* TestClock.adjust("11 minutes")
      expect(statusOf(yield* post(handle, { jsonrpc: "2.0", id: 1, method: "ping" }, idle))).toBe(404)
      expect(yield* open).toBe(before)
    })
  )
})

/** The JSON-RPC messages of an event stream's frames, as they come. */
const messagesOf = (events: Reply.Reply) =>
  Effect.gen(function* () {
    if (events._tag !== "Events") return expect.unreachable(`no event stream: ${events._tag}`)
    const mailbox = yield* Mailbox.make<{ readonly id?: number; readonly method?: string; readonly result?: unknown }>()
    const decoder = new TextDecoder()
    yield* events.events.connect({
      write: (bytes) => {
        for (const line of decoder.decode(bytes).split("\n")) {
          if (line.startsWith("data: ") && line.length > 6) mailbox.unsafeOffer(JSON.parse(line.slice(6)))
        }
      },
      end: () => mailbox.unsafeDone(Exit.void)
    })
    return {
      next: Effect.map(mailbox.take, (message) => message),
      /** How many messages have come and not been taken. */
      waiting: () => Option.getOrElse(mailbox.unsafeSize(), () => 0)
    }
  })

// On the live clock: the reference server is stopped with a deadline when the suite ends.
layer(gatewayHost({ servers: [{ name: "ev", target: everything }] }), {
  excludeTestServices: true,
  timeout: "60 seconds"
})("a dormant session's handshake", (it) => {
  it.scoped(
    "is kept: after each wake, a server's sampling in its call reaches its client, which declared it, under an id not used before",
    () =>
      Effect.flatMap(Supervisor.track, (supervisor) =>
        Effect.gen(function* () {
          const fibers = Effect.map(supervisor.value, (all) => all.length)
          const handle = yield* HttpCore.make({ sessionDormantAfter: "100 millis" })
          const session = yield* initialize(handle, { sampling: {} })
          const served = yield* fibers
          const asked: Array<unknown> = []
          for (let round = 0; round < 2; round++) {
            // Bounded: it rests within a sweep or two.
            for (let i = 0; i < 100 && (yield* fibers) >= served; i++) yield* Effect.sleep("50 millis")
            expect(yield* fibers).toBeLessThan(served)
            yield* Effect.scoped(
              Effect.gen(function* () {
                const call = yield* postTo(
                  handle,
                  {
                    jsonrpc: "2.0",
                    id: 7 + round,
                    method: "tools/call",
                    params: { name: "ev__trigger-sampling-request", arguments: { prompt: "hello", maxTokens: 5 } }
                  },
                  { "mcp-protocol-version": "2025-11-25", "mcp-session-id": session, accept: "text/event-stream" }
                )
                const { next } = yield* messagesOf(call)
                const request = yield* next
                expect(request.method).toBe("sampling/createMessage")
                asked.push(request.id)
                const answered = yield* post(
                  handle,
                  {
                    jsonrpc: "2.0",
                    id: request.id,
                    result: { role: "assistant", content: { type: "text", text: "sampled after rest" }, model: "m" }
                  },
                  session
                )
                expect(statusOf(answered)).toBe(202)
                const result = yield* next
                expect(result.id).toBe(7 + round)
                expect(JSON.stringify(result.result)).toContain("sampled after rest")
              })
            )
          }
          // A new serving sends with the session's ids: none is used twice in it.
          expect(new Set(asked).size).toBe(2)
        }).pipe(Effect.supervised(supervisor))
      )
  )
})
