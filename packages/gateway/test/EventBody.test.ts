/**
 * A POST's event-stream body: whole when every answer is there within a moment, else a stream that
 * starts with what was there; the bytes are the same either way (TestClock: no real waiting).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Mailbox from "effect/Mailbox"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as EventBody from "../src/internal/eventBody.js"

const bytes = (text: string) => new TextEncoder().encode(text)
const text = (parts: ReadonlyArray<Uint8Array>) => parts.map((part) => new TextDecoder().decode(part)).join("")

describe("a POST's event-stream body", () => {
  it.effect("is whole when the answers are all there at once", () =>
    Effect.gen(function* () {
      const body = yield* EventBody.settle(Stream.make(bytes("priming\n\n"), bytes("response\n\n")))
      expect(body._tag).toBe("Whole")
      if (body._tag === "Whole") expect(text([body.bytes])).toBe("priming\n\nresponse\n\n")
    })
  )

  it.effect("is a stream when an answer is still coming after a moment, starting with what was there", () =>
    Effect.gen(function* () {
      const mailbox = yield* Mailbox.make<Uint8Array>()
      yield* mailbox.offer(bytes("priming\n\n"))
      const settling = yield* Effect.fork(EventBody.settle(Mailbox.toStream(mailbox)))
      yield* TestClock.adjust("10 millis")
      const body = yield* Fiber.join(settling)
      expect(body._tag).toBe("Stream")
      if (body._tag !== "Stream") return
      yield* mailbox.offer(bytes("progress\n\n"))
      yield* mailbox.offer(bytes("response\n\n"))
      yield* mailbox.done(Exit.void)
      const all = yield* Stream.runCollect(body.stream)
      expect(text(Chunk.toReadonlyArray(all))).toBe("priming\n\nprogress\n\nresponse\n\n")
    })
  )
})
