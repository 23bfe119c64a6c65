/**
 * The terminal's echo while a command runs. A key typed on a terminal in its normal (cooked)
 * mode is drawn where the cursor is: over the live line, and an Enter leaves a frozen copy of
 * it above. Held, the echo is off (the termios ECHO flag, by `stty -echo`) and nothing else
 * changes: the keys are not read, so they wait on the terminal for whatever reads it next
 * (the user's shell, or the shell's own next prompt), Ctrl-C and Ctrl-Z act as the terminal
 * makes them, and a line is edited as the terminal edits it. A prompt that reads input steps
 * the hold aside (it echoes itself, or puts the terminal in raw mode). The echo is touched only
 * where this run owns the terminal (stdin, stdout and stderr on it, in the foreground) and it
 * was on; it is given back when the last hold is released, and taken again after a suspension.
 * Plain module state, so that `bin.ts` holds it from its first moment without loading `effect`.
 */
import { spawnSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { isatty } from "node:tty"

/** Holds the echo off; each call returns its release (called twice, it releases once). */
export interface TerminalEcho {
  /** The echo is off until released (several may be held). */
  readonly hold: () => () => void
  /** The echo is as it was (a prompt reads the keys) until released. */
  readonly stepAside: () => () => void
}

/** A terminal's echo switch. */
export interface Terminal {
  /** Whether the terminal echoes now (`undefined`: it cannot be told). */
  readonly echoing: () => boolean | undefined
  readonly setEcho: (on: boolean) => void
}

/** What the hold asks of the process. */
export interface Hooks {
  /** Whether the terminal may be touched now (a background job must not set its mode). */
  readonly allowed: () => boolean
  /** Runs `f` each time the process is continued after a suspension. */
  readonly onContinue: (f: () => void) => void
}

/** A hold over `terminal`, or one that does nothing when there is no terminal of this run's. */
export const make = (terminal: Terminal | undefined, hooks: Hooks): TerminalEcho => {
  let holds = 0
  let asides = 0
  let off = false
  // Whether the echo is this run's to turn off: it was on when first asked.
  let ours: boolean | undefined
  const settle = (again: boolean): void => {
    if (terminal === undefined) return
    const wanted = holds > 0 && asides === 0
    if (wanted && (!off || again)) {
      if (!hooks.allowed()) return
      ours ??= terminal.echoing() === true
      if (!ours) return
      terminal.setEcho(false)
      off = true
    } else if (!wanted && off) {
      off = false
      if (hooks.allowed()) terminal.setEcho(true)
    }
  }
  // Suspended (Ctrl-Z), the shell had the terminal as it likes it; continued, it is taken again.
  if (terminal !== undefined) hooks.onContinue(() => settle(true))
  const counted = (change: (delta: number) => void) => () => {
    change(1)
    settle(false)
    let released = false
    return () => {
      if (released) return
      released = true
      change(-1)
      settle(false)
    }
  }
  return {
    hold: counted((delta) => {
      holds += delta
    }),
    stepAside: counted((delta) => {
      asides += delta
    })
  }
}

/** `stty` on stdin; bounded, as a stty stopped by SIGTTOU (moved to the background) would hang. */
const stty = (args: ReadonlyArray<string>) =>
  spawnSync("stty", args, {
    stdio: [0, "pipe", "ignore"],
    encoding: "utf8",
    timeout: 2_000,
    killSignal: "SIGKILL"
  })

/** The process's terminal, through `stty` on stdin. */
export const stdinTerminal: Terminal = {
  echoing: () => {
    const settings = stty(["-a"])
    // `echo` or `-echo` among the local modes (GNU and BSD print both as words).
    return settings.status === 0 ? /(?:^|[\s;])echo(?=[\s;]|$)/m.test(settings.stdout) : undefined
  },
  setEcho: (on) => void stty([on ? "echo" : "-echo"])
}

/**
 * Whether this process is in its terminal's foreground process group (Linux's `/proc/self/stat`:
 * its group and the terminal's foreground group; elsewhere, assumed).
 */
export const inForeground = (): boolean => {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8")
    // After the command's name in parentheses: state, ppid, pgrp, session, tty, tpgid.
    const [, , pgrp, , , tpgid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return pgrp === tpgid
  } catch {
    return true
  }
}

let processEcho: TerminalEcho | undefined

/**
 * The hold on this process's terminal: one for the run. Only where the run owns the terminal
 * (stdin, stdout and stderr on it; a pager reading keys takes stdout), and not on Windows.
 */
export const ofProcess = (): TerminalEcho => {
  processEcho ??= make(
    process.platform !== "win32" && isatty(0) && isatty(1) && isatty(2) ? stdinTerminal : undefined,
    {
      allowed: inForeground,
      onContinue: (f) => void process.on("SIGCONT", f)
    }
  )
  return processEcho
}
