/**
 * The keyboard while a command runs on a terminal. In the terminal's normal (cooked) mode every
 * key is echoed where the cursor is: Enter moves it down a line and the live line, redrawn with
 * a carriage return, is left frozen above; letters are drawn into it. While guarded, the
 * terminal is in raw mode and its keys are read here: Ctrl-C still interrupts (it is sent as the
 * SIGINT the terminal would send), and the other keys are kept, unseen, for the shell's next
 * prompt (type-ahead). A prompt that reads input (an elicitation form) steps the guard aside.
 */
/** Guards the keyboard; each call returns its release. */
export interface KeyGuard {
  /** Keys are not echoed until released (several may be held). */
  readonly hold: () => () => void
  /** Steps aside (a prompt reads the keys) until released. */
  readonly stepAside: () => () => void
  /** The keys typed while guarded, and forgets them. */
  readonly takeTyped: () => string
}

const CTRL_C = 0x03

/** The raw-mode switch and key stream of a terminal (`process.stdin` when it is one). */
export interface Keyboard {
  readonly isRaw: boolean
  readonly setRawMode: (mode: boolean) => unknown
  readonly on: (event: "data", listener: (chunk: Buffer) => void) => unknown
  readonly removeListener: (event: "data", listener: (chunk: Buffer) => void) => unknown
  readonly resume: () => unknown
  readonly pause: () => unknown
}

/** A guard over `keyboard`, or one that does nothing when there is no terminal to guard. */
export const make = (keyboard: Keyboard | undefined, interrupt: () => void): KeyGuard => {
  let holds = 0
  let asides = 0
  let engaged: { readonly wasRaw: boolean } | undefined
  let typed: Array<Buffer> = []
  const onData = (chunk: Buffer) => {
    if (chunk.includes(CTRL_C)) {
      typed = []
      return interrupt()
    }
    typed.push(chunk)
  }
  const settle = () => {
    if (keyboard === undefined) return
    const wanted = holds > 0 && asides === 0
    if (wanted && engaged === undefined) {
      engaged = { wasRaw: keyboard.isRaw }
      keyboard.setRawMode(true)
      keyboard.on("data", onData)
      keyboard.resume()
    } else if (!wanted && engaged !== undefined) {
      keyboard.removeListener("data", onData)
      keyboard.pause()
      keyboard.setRawMode(engaged.wasRaw)
      engaged = undefined
    }
  }
  const counted = (change: (delta: number) => void) => () => {
    change(1)
    settle()
    let released = false
    return () => {
      if (released) return
      released = true
      change(-1)
      settle()
    }
  }
  return {
    hold: counted((delta) => {
      holds += delta
    }),
    stepAside: counted((delta) => {
      asides += delta
    }),
    takeTyped: () => {
      const text = Buffer.concat(typed).toString("utf8")
      typed = []
      return text
    }
  }
}
