/**
 * The keyboard while a command runs on a terminal. In the terminal's normal (cooked) mode every
 * key is echoed where the cursor is: Enter moves it down a line and the live line, redrawn with
 * a carriage return, is left frozen above; letters are drawn into it. While guarded, the
 * terminal is in raw mode and its keys are read here: Ctrl-C, Ctrl-Z and Ctrl-\ still act (sent
 * as the signals the terminal would send; after a suspension the guard takes the terminal back),
 * and the other keys are kept, unseen, for the shell's next prompt (type-ahead). A prompt that
 * reads input (an elicitation form) steps the guard aside. It takes the terminal only when
 * `allowed` says so (the caller checks that the process is in the foreground).
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

/** The keys that raw mode no longer turns into signals, and their signals. */
const SIGNALS = new Map<number, "SIGINT" | "SIGTSTP" | "SIGQUIT">([
  [0x03, "SIGINT"],
  [0x1a, "SIGTSTP"],
  [0x1c, "SIGQUIT"]
])

/** What the guard does with the process. */
export interface Hooks {
  /** Sends the process a signal, as the terminal would have. */
  readonly signal: (name: "SIGINT" | "SIGTSTP" | "SIGQUIT") => void
  /** Runs `f` once when the process is continued after a suspension. */
  readonly onContinue: (f: () => void) => void
  /** Whether the terminal may be taken now (a background job must not touch its mode). */
  readonly allowed: () => boolean
}

/** The raw-mode switch and key stream of a terminal (`process.stdin` when it is one). */
export interface Keyboard {
  readonly isRaw: boolean
  readonly setRawMode: (mode: boolean) => unknown
  readonly on: (event: "data", listener: (chunk: Buffer) => void) => unknown
  readonly removeListener: (event: "data", listener: (chunk: Buffer) => void) => unknown
  readonly resume: () => unknown
  readonly pause: () => unknown
  /** Whether it was being read before (`null`: never). */
  readonly readableFlowing: boolean | null
}

/** A guard over `keyboard`, or one that does nothing when there is no terminal to guard. */
export const make = (keyboard: Keyboard | undefined, hooks: Hooks): KeyGuard => {
  let holds = 0
  let asides = 0
  let engaged: { readonly wasRaw: boolean; readonly wasFlowing: boolean } | undefined
  let suspended = false
  let typed: Array<Buffer> = []
  const onData = (chunk: Buffer) => {
    for (const byte of chunk) {
      const signal = SIGNALS.get(byte)
      if (signal === undefined) continue
      typed = []
      if (signal === "SIGTSTP") {
        // The terminal as it was while stopped; taken back when continued.
        suspended = true
        settle()
        hooks.onContinue(() => {
          suspended = false
          settle()
        })
      }
      return hooks.signal(signal)
    }
    typed.push(chunk)
  }
  const disengage = (keys: Keyboard, was: NonNullable<typeof engaged>) => {
    keys.removeListener("data", onData)
    if (!was.wasFlowing) keys.pause()
    keys.setRawMode(was.wasRaw)
    engaged = undefined
  }
  const settle = (): void => {
    if (keyboard === undefined) return
    const wanted = holds > 0 && asides === 0 && !suspended
    if (wanted && engaged === undefined) {
      if (!hooks.allowed()) return
      engaged = { wasRaw: keyboard.isRaw, wasFlowing: keyboard.readableFlowing === true }
      keyboard.setRawMode(true)
      keyboard.on("data", onData)
      keyboard.resume()
    } else if (!wanted && engaged !== undefined) disengage(keyboard, engaged)
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
