/**
 * The echo hold's bookkeeping on a stand-in terminal: off exactly while held and not stepped
 * aside, given back when released, never touched where it was off already or from the
 * background, and taken again after a suspension.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "effect/FastCheck"
import * as TerminalEcho from "../src/internal/terminalEcho.js"

const terminal = (initiallyOn: boolean) => {
  const state = { on: initiallyOn, asked: 0, set: [] as Array<boolean> }
  const tty: TerminalEcho.Terminal = {
    echoing: () => {
      state.asked += 1
      return state.on
    },
    setEcho: (on) => {
      state.on = on
      state.set.push(on)
    }
  }
  return { tty, state }
}

const hooks = (allowed = () => true) => {
  const continued: Array<() => void> = []
  const given: TerminalEcho.Hooks = { allowed, onContinue: (f) => void continued.push(f) }
  return {
    given,
    continue: () => {
      for (const f of continued) f()
    }
  }
}

describe("TerminalEcho", () => {
  it.prop(
    "off exactly while held and not stepped aside; on again when released",
    [fc.array(fc.tuple(fc.constantFrom("hold", "aside"), fc.boolean()), { maxLength: 12 })],
    ([steps]) => {
      const { tty, state } = terminal(true)
      const echo = TerminalEcho.make(tty, hooks().given)
      const open: Array<{ kind: string; release: () => void }> = []
      for (const [kind, releaseOne] of steps) {
        if (releaseOne && open.length > 0) open.shift()?.release()
        else open.push({ kind, release: kind === "hold" ? echo.hold() : echo.stepAside() })
        const wanted = open.some((o) => o.kind === "hold") && !open.some((o) => o.kind === "aside")
        expect(state.on).toBe(!wanted)
      }
      for (const o of open) o.release()
      expect(state.on).toBe(true)
      // Asked once, and set only when it changes.
      expect(state.asked).toBeLessThanOrEqual(1)
      expect(state.set.every((on, i) => on !== (state.set[i - 1] ?? true))).toBe(true)
    }
  )

  it("a release called twice releases once", () => {
    const { tty, state } = terminal(true)
    const echo = TerminalEcho.make(tty, hooks().given)
    const first = echo.hold()
    const second = echo.hold()
    first()
    first()
    expect(state.on).toBe(false)
    second()
    expect(state.on).toBe(true)
  })

  it("an echo that was off is left alone: not turned on for a prompt, nor at the end", () => {
    const { tty, state } = terminal(false)
    const echo = TerminalEcho.make(tty, hooks().given)
    const release = echo.hold()
    echo.stepAside()()
    release()
    expect(state.set).toStrictEqual([])
  })

  it("from the background nothing is touched; once in the foreground and continued, it is held", () => {
    let foreground = false
    const { tty, state } = terminal(true)
    const { given, continue: resume } = hooks(() => foreground)
    const echo = TerminalEcho.make(tty, given)
    const release = echo.hold()
    expect([state.asked, state.set]).toStrictEqual([0, []])
    // `fg`: continued in the foreground.
    foreground = true
    resume()
    expect(state.on).toBe(false)
    release()
    expect(state.on).toBe(true)
  })

  it("after a suspension (the shell set the echo on), continued, it is off again", () => {
    const { tty, state } = terminal(true)
    const { given, continue: resume } = hooks()
    const echo = TerminalEcho.make(tty, given)
    const release = echo.hold()
    state.on = true
    resume()
    expect(state.on).toBe(false)
    release()
    expect(state.on).toBe(true)
    // Continued with nothing held: left as it is.
    resume()
    expect(state.on).toBe(true)
  })

  it("without a terminal of the run's, nothing happens", () => {
    const { given } = hooks()
    const echo = TerminalEcho.make(undefined, given)
    const release = echo.hold()
    echo.stepAside()()
    expect(release()).toBeUndefined()
  })
})
