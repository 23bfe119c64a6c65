/**
 * A Streamable HTTP session's event streams, resumed (2025-11-25, "Resumability and Redelivery"):
 * every event's id names its stream; a client that drops a stream mid-call and resumes it with
 * `Last-Event-ID` gets what it missed and the response once; ids that are unknown or whose events
 * were dropped are refused; the bound on kept events holds.
 */
import { describe, expect, it } from "@effect/vitest"
import type { JsonRpc } from "@effect-mcp/protocol"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Mailbox from "effect/Mailbox"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as EventStore from "../src/internal/eventStore.js"
import type { Events } from "../src/internal/events.js"
import * as HttpSession from "../src/internal/httpSession.js"
import { relatedTo } from "../src/internal/inflight.js"

interface Event {
  readonly id: string | undefined
  readonly retry: string | undefined
  readonly data: string
}

const decoder = new TextDecoder()

/** The fields of one SSE event as sent. */
const parse = (bytes: Uint8Array): Event => {
  const fields = new Map<string, string>()
  for (const line of decoder.decode(bytes).split("\n")) {
    const colon = line.indexOf(":")
    if (colon > 0) fields.set(line.slice(0, colon), line.slice(colon + 1).trimStart())
  }
  return { id: fields.get("id"), retry: fields.get("retry"), data: fields.get("data") ?? "" }
}

/** The first `n` events of a stream; taking them ends the connection, as a client that drops it. */
const take = (stream: Stream.Stream<Uint8Array>, n: number) =>
  Effect.map(Stream.runCollect(Stream.take(stream, n)), (chunk) => Chunk.toReadonlyArray(chunk).map(parse))

/** Every event of a stream that ends. */
const all = (stream: Stream.Stream<Uint8Array>) =>
  Effect.map(Stream.runCollect(stream), (chunk) => Chunk.toReadonlyArray(chunk).map(parse))

const call = (id: number): JsonRpc.JSONRPCMessage => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "slow", _meta: { progressToken: id } }
})
const progress = (token: number, step: number): JsonRpc.JSONRPCMessage => ({
  jsonrpc: "2.0",
  method: "notifications/progress",
  params: { progressToken: token, progress: step }
})
const answer = (id: number): JsonRpc.JSONRPCMessage => ({ jsonrpc: "2.0", id, result: { content: [] } })
const changed: JsonRpc.JSONRPCMessage = { jsonrpc: "2.0", method: "notifications/tools/list_changed" }

const messages = (events: ReadonlyArray<Event>) => events.flatMap((event) => (event.data === "" ? [] : [event.data]))

/** Events connected at once, as a client reading them: the stream ends the connection when it ends. */
const connected = (events: Events) =>
  Effect.gen(function* () {
    const scope = yield* Scope.make()
    const mailbox = yield* Mailbox.make<Uint8Array>()
    yield* Scope.extend(
      events.connect({ write: (bytes) => mailbox.unsafeOffer(bytes), end: () => mailbox.unsafeDone(Exit.void) }),
      scope
    )
    return Mailbox.toStream(mailbox).pipe(Stream.ensuring(Scope.close(scope, Exit.void)))
  })

/** A POST carrying one request, waiting for its first message (forked: the test sends it). */
const post = (session: HttpSession.HttpSession, id: number, version = "2025-11-25") =>
  Effect.tap(Effect.fork(session.post([{ _tag: "Message", message: call(id) }], version, true)), () =>
    // The POST has handed its request over before the test answers it.
    Effect.yieldNow()
  )

/** The stream a POST got. */
const streamOf = (posted: HttpSession.Posted) =>
  posted._tag === "Stream" ? connected(posted.events) : Effect.dieMessage(`the POST got ${posted._tag}`)

/** A POST carrying one request that nothing answers within the window, and its stream. */
const posted = (session: HttpSession.HttpSession, id: number, version = "2025-11-25") =>
  Effect.gen(function* () {
    const waiting = yield* post(session, id, version)
    yield* TestClock.adjust(HttpSession.ANSWER_WINDOW)
    return yield* streamOf(yield* Fiber.join(waiting))
  })

/** What a GET with `lastEventId` got, when it is a stream. */
const resumed = (session: HttpSession.HttpSession, lastEventId: string | undefined) => {
  const listened = session.listen({ version: "2025-11-25", lastEventId })
  return listened._tag === "Stream" ? connected(listened.events) : Effect.dieMessage(`the GET got ${listened._tag}`)
}

describe("HttpSession, a POST with one request", () => {
  it.effect("its response, when it is the first message within the window, is its JSON answer", () =>
    Effect.gen(function* () {
      const session = HttpSession.make("s")
      const waiting = yield* post(session, 1)
      yield* session.transport.send(answer(1))
      expect(yield* Fiber.join(waiting)).toStrictEqual({ _tag: "Answered", message: answer(1) })
      // Nothing of it was kept as an event: no stream to resume.
      expect(session.listen({ version: "2025-11-25", lastEventId: "1.1" })).toEqual({
        _tag: "Unknown",
        lastEventId: "1.1"
      })
    })
  )

  it.effect(
    "a related message first opens its stream: priming, that message, then the response; resumable from the priming",
    () =>
      Effect.gen(function* () {
        const session = HttpSession.make("s")
        const waiting = yield* post(session, 1)
        yield* session.transport.send(progress(1, 1)).pipe(relatedTo(1))
        const [priming] = yield* take(yield* streamOf(yield* Fiber.join(waiting)), 1)
        expect(priming).toEqual({ id: expect.stringMatching(/^1\.\d+$/), retry: "1000", data: "" })
        yield* session.transport.send(answer(1))
        // Dropped after the priming event: resuming from it gives everything after it, the first message too.
        const events = yield* all(yield* resumed(session, priming?.id))
        expect(messages(events)).toEqual([JSON.stringify(progress(1, 1)), JSON.stringify(answer(1))])
      })
  )

  it.effect("a message and the response both before the client connects: the stream carries both and ends", () =>
    Effect.gen(function* () {
      const session = HttpSession.make("s")
      const waiting = yield* post(session, 1)
      yield* session.transport.send(progress(1, 1)).pipe(relatedTo(1))
      yield* session.transport.send(answer(1))
      const events = yield* all(yield* streamOf(yield* Fiber.join(waiting)))
      expect(messages(events)).toEqual([JSON.stringify(progress(1, 1)), JSON.stringify(answer(1))])
    })
  )

  it.effect(
    "nothing within the window: the stream opens with a priming event; a session closed meanwhile: Closed",
    () =>
      Effect.gen(function* () {
        const session = HttpSession.make("s")
        const stream = yield* posted(session, 1)
        yield* session.transport.send(answer(1))
        const events = yield* all(stream)
        expect(events[0]).toEqual({ id: expect.stringMatching(/^1\.\d+$/), retry: "1000", data: "" })
        expect(messages(events)).toEqual([JSON.stringify(answer(1))])
        const waiting = yield* post(session, 2)
        yield* session.close
        expect(yield* Fiber.join(waiting)).toStrictEqual({ _tag: "Closed" })
      })
  )
})

describe("HttpSession, a POST that gets no JSON answer, or leaves", () => {
  it.effect("a client that accepts no JSON (or sent a batch) gets its stream at once", () =>
    Effect.gen(function* () {
      const session = HttpSession.make("s")
      const posted = yield* session.post([{ _tag: "Message", message: call(1) }], "2025-11-25", false)
      const stream = yield* streamOf(posted)
      yield* session.transport.send(answer(1))
      expect(messages(yield* all(stream))).toEqual([JSON.stringify(answer(1))])
    })
  )

  it.effect("a POST that leaves while waiting does not take a retry of the same request id with it", () =>
    Effect.gen(function* () {
      const session = HttpSession.make("s")
      const left = yield* post(session, 1)
      const retried = yield* post(session, 1)
      yield* Fiber.interrupt(left)
      yield* session.transport.send(answer(1))
      expect(yield* Fiber.join(retried)).toStrictEqual({ _tag: "Answered", message: answer(1) })
    })
  )
})

describe("HttpSession, resumed with Last-Event-ID", () => {
  it.effect("a POST's stream dropped mid-call: the missed events and the response, once, then it ends", () =>
    Effect.gen(function* () {
      const session = HttpSession.make("s")
      const stream = yield* posted(session, 1)
      yield* session.transport.send(progress(1, 1)).pipe(relatedTo(1))
      const before = yield* take(stream, 2)
      expect(before[0]).toEqual({ id: expect.stringMatching(/^1\.\d+$/), retry: "1000", data: "" })
      expect(before[1]?.id).toMatch(/^1\.\d+$/)
      expect(messages(before)).toEqual([JSON.stringify(progress(1, 1))])

      yield* session.transport.send(progress(1, 2)).pipe(relatedTo(1))
      yield* session.transport.send(answer(1))
      const after = yield* all(yield* resumed(session, before[1]?.id))
      expect(messages(after)).toEqual([JSON.stringify(progress(1, 2)), JSON.stringify(answer(1))])
      expect(new Set([...before, ...after].map((event) => event.id)).size).toBe(4)

      expect(session.listen({ version: "2025-11-25", lastEventId: after[1]?.id })).toEqual({ _tag: "Finished" })
    })
  )

  it.effect(
    "a stream resumed while its request is unanswered carries the rest as it comes; no priming before 2025-11-25",
    () =>
      Effect.gen(function* () {
        const session = HttpSession.make("s")
        const [priming] = yield* take(yield* posted(session, 1), 1)
        const rest = yield* Effect.fork(all(yield* resumed(session, priming?.id)))
        yield* session.transport.send(progress(1, 1)).pipe(relatedTo(1))
        yield* session.transport.send(answer(1))
        expect(messages(yield* Fiber.join(rest))).toEqual([JSON.stringify(progress(1, 1)), JSON.stringify(answer(1))])

        const older = yield* posted(session, 2, "2025-06-18")
        yield* session.transport.send(answer(2))
        const events = yield* all(older)
        expect(events.map((event) => event.data)).toEqual([JSON.stringify(answer(2))])
        expect(events[0]?.id).toMatch(/^2\.\d+$/)
      })
  )

  it.effect("the GET stream resumes with its own events, never another stream's", () =>
    Effect.gen(function* () {
      const session = HttpSession.make("s")
      const [priming] = yield* take(yield* resumed(session, undefined), 1)
      const post = yield* posted(session, 1)
      yield* session.transport.send(changed)
      yield* session.transport.send(progress(1, 1)).pipe(relatedTo(1))
      yield* session.transport.send(answer(1))
      expect(messages(yield* all(post))).toEqual([JSON.stringify(progress(1, 1)), JSON.stringify(answer(1))])
      const listener = yield* resumed(session, priming?.id)
      expect(session.listen({ version: "2025-11-25", lastEventId: undefined })).toEqual({ _tag: "Busy" })
      expect(messages(yield* take(listener, 1))).toEqual([JSON.stringify(changed)])
    })
  )

  it.effect("a Last-Event-ID that is malformed or was never given is refused", () =>
    Effect.gen(function* () {
      const session = HttpSession.make("s")
      const [priming] = yield* take(yield* posted(session, 1), 1)
      expect(priming?.id).toBe("1.1")
      for (const lastEventId of ["nope", "1.2", "2.1", "0.1", "1.1.1"]) {
        expect(session.listen({ version: "2025-11-25", lastEventId })).toEqual({ _tag: "Unknown", lastEventId })
      }
    })
  )

  it.effect("the kept events are bounded: the oldest are dropped, and ids before a dropped event expire", () =>
    Effect.gen(function* () {
      const session = HttpSession.make("s", { events: 3, bytes: 1_000_000 })
      const stream = yield* posted(session, 1)
      for (let step = 1; step <= 10; step++) yield* session.transport.send(progress(1, step)).pipe(relatedTo(1))
      const seen = yield* take(stream, 11)
      yield* session.transport.send(answer(1))
      const lastEventId = (step: number) => seen[step]?.id ?? ""
      const rest = yield* all(yield* resumed(session, lastEventId(8)))
      expect(messages(rest)).toEqual([progress(1, 9), progress(1, 10), answer(1)].map((m) => JSON.stringify(m)))
      for (const expired of [lastEventId(7), lastEventId(0)]) {
        expect(session.listen({ version: "2025-11-25", lastEventId: expired })).toEqual({
          _tag: "Unknown",
          lastEventId: expired
        })
      }
    })
  )
})

describe("EventStore", () => {
  const frame = (size: number) => (id: string) => `id: ${id}\ndata: ${"x".repeat(size)}\n\n`

  it("never keeps more than its limits, in events and in bytes, however many are appended", () => {
    const byCount = EventStore.make({ events: 5, bytes: 1_000_000 })
    const stream = byCount.open()
    for (let n = 0; n < 10_000; n++) byCount.append(stream, frame(10))
    expect(byCount.size().events).toBe(5)

    const bySize = EventStore.make({ events: 1000, bytes: 1000 })
    const other = bySize.open()
    const sizes: Array<number> = []
    for (let n = 0; n < 10_000; n++) {
      bySize.append(other, frame(90))
      sizes.push(bySize.size().bytes)
    }
    expect(Math.max(...sizes)).toBeLessThanOrEqual(1000)
    expect(bySize.size().events).toBeGreaterThan(5)
  })

  it("forgets a stream that has ended once none of its events is kept", () => {
    const store = EventStore.make({ events: 2, bytes: 1_000_000 })
    const first = store.open()
    const mark = decoder.decode(store.mark(first, (id) => id))
    store.append(first, frame(1))
    store.complete(first)
    expect(store.replay(mark)?.events).toHaveLength(1)
    const second = store.open()
    store.append(second, frame(1))
    store.append(second, frame(1))
    expect(store.replay(mark)).toBeUndefined()
    expect(store.replay(`${first}.999`)).toBeUndefined()
  })
})
