/**
 * The keyboard guard's bookkeeping on a stand-in terminal: raw exactly while held and not
 * stepped aside, the terminal's own mode given back, Ctrl-C interrupting, keys kept once.
 */
import { EventEmitter } from "node:events"
import { describe, expect, it } from "@effect/vitest"
import * as fc from "effect/FastCheck"
import * as KeyGuard from "../src/internal/keyGuard.js"

const keyboard = (initiallyRaw: boolean, initiallyFlowing = false) => {
  const emitter = new EventEmitter()
  const state = { isRaw: initiallyRaw, flowing: initiallyFlowing }
  const board: KeyGuard.Keyboard = {
    get isRaw() {
      return state.isRaw
    },
    get readableFlowing() {
      return state.flowing
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

/** Hooks that record the signals sent and keep the continuation to run. */
const recording = (allowed = () => true) => {
  const seen = { signals: [] as Array<string>, continued: [] as Array<() => void> }
  const hooks: KeyGuard.Hooks = {
    signal: (name) => void seen.signals.push(name),
    onContinue: (f) => void seen.continued.push(f),
    allowed
  }
  return { seen, hooks }
}

describe("KeyGuard", () => {
  it.prop(
    "raw and read exactly while held and not stepped aside; the terminal's mode is given back",
    [fc.array(fc.tuple(fc.constantFrom("hold", "aside"), fc.boolean()), { maxLength: 12 }), fc.boolean()],
    ([steps, initiallyRaw]) => {
      const { board, state, emitter } = keyboard(initiallyRaw)
      const guard = KeyGuard.make(board, recording().hooks)
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

  it("keeps the keys typed while held, once; Ctrl-C and Ctrl-\\ are their signals and drop them", () => {
    const { board, type } = keyboard(false)
    const { seen, hooks } = recording()
    const guard = KeyGuard.make(board, hooks)
    const release = guard.hold()
    type("pi")
    type("ng\r")
    expect(guard.takeTyped()).toBe("ping\r")
    expect(guard.takeTyped()).toBe("")
    type("half")
    type("x\x03")
    type("more\x1c")
    expect([seen.signals, guard.takeTyped()]).toStrictEqual([["SIGINT", "SIGQUIT"], ""])
    release()
    release()
    type("after")
    expect(guard.takeTyped()).toBe("")
  })

  it("Ctrl-Z gives the terminal back, suspends, and takes it again when continued", () => {
    const { board, state, type } = keyboard(false)
    const { seen, hooks } = recording()
    const guard = KeyGuard.make(board, hooks)
    const release = guard.hold()
    type("\x1a")
    expect([seen.signals, state.isRaw, state.flowing]).toStrictEqual([["SIGTSTP"], false, false])
    for (const continued of seen.continued) continued()
    expect([state.isRaw, state.flowing]).toStrictEqual([true, true])
    release()
    expect(state.isRaw).toBe(false)
  })

  it("leaves the terminal alone when not allowed (a background job), and a reader's stdin flowing", () => {
    const background = keyboard(false)
    KeyGuard.make(background.board, recording(() => false).hooks).hold()
    expect([background.state.isRaw, background.state.flowing]).toStrictEqual([false, false])
    const read = keyboard(false, true)
    const release = KeyGuard.make(read.board, recording().hooks).hold()
    expect(read.state.isRaw).toBe(true)
    release()
    expect([read.state.isRaw, read.state.flowing]).toStrictEqual([false, true])
  })

  it("does nothing without a terminal", () => {
    const guard = KeyGuard.make(undefined, recording().hooks)
    guard.hold()()
    expect(guard.takeTyped()).toBe("")
  })
})
