/**
 * The keyboard guard's bookkeeping on a stand-in terminal: raw exactly while held and not
 * stepped aside, the terminal's own mode given back, Ctrl-C interrupting, keys kept once.
 */
import { EventEmitter } from "node:events"
import { describe, expect, it } from "@effect/vitest"
import * as fc from "effect/FastCheck"
import * as KeyGuard from "../src/internal/keyGuard.js"

const keyboard = (initiallyRaw: boolean) => {
  const emitter = new EventEmitter()
  const state = { isRaw: initiallyRaw, flowing: false }
  const board: KeyGuard.Keyboard = {
    get isRaw() {
      return state.isRaw
    },
    setRawMode: (mode) => {
      state.isRaw = mode
    },
    on: (event, listener) => emitter.on(event, listener),
    removeListener: (event, listener) => emitter.removeListener(event, listener),
    resume: () => {
      state.flowing = true
    },
    pause: () => {
      state.flowing = false
    }
  }
  return { board, state, type: (text: string) => emitter.emit("data", Buffer.from(text)), emitter }
}

describe("KeyGuard", () => {
  it.prop(
    "raw and read exactly while held and not stepped aside; the terminal's mode is given back",
    [fc.array(fc.tuple(fc.constantFrom("hold", "aside"), fc.boolean()), { maxLength: 12 }), fc.boolean()],
    ([steps, initiallyRaw]) => {
      const { board, state, emitter } = keyboard(initiallyRaw)
      const guard = KeyGuard.make(board, () => {})
      const open: Array<{ kind: string; release: () => void }> = []
      for (const [kind, releaseOne] of steps) {
        if (releaseOne && open.length > 0) open.shift()?.release()
        else open.push({ kind, release: kind === "hold" ? guard.hold() : guard.stepAside() })
        const wanted = open.some((o) => o.kind === "hold") && !open.some((o) => o.kind === "aside")
        expect([state.isRaw, state.flowing, emitter.listenerCount("data")]).toStrictEqual(
          wanted ? [true, true, 1] : [initiallyRaw, false, 0]
        )
      }
      for (const o of open) o.release()
      expect([state.isRaw, emitter.listenerCount("data")]).toStrictEqual([initiallyRaw, 0])
    }
  )

  it("keeps the keys typed while held, once; Ctrl-C interrupts and drops them", () => {
    const { board, type } = keyboard(false)
    let interrupts = 0
    const guard = KeyGuard.make(board, () => {
      interrupts += 1
    })
    const release = guard.hold()
    type("pi")
    type("ng\r")
    expect(guard.takeTyped()).toBe("ping\r")
    expect(guard.takeTyped()).toBe("")
    type("half")
    type("x\x03")
    expect([interrupts, guard.takeTyped()]).toStrictEqual([1, ""])
    release()
    release()
    type("after")
    expect(guard.takeTyped()).toBe("")
  })

  it("does nothing without a terminal", () => {
    const guard = KeyGuard.make(undefined, () => {})
    guard.hold()()
    expect(guard.takeTyped()).toBe("")
  })
})
