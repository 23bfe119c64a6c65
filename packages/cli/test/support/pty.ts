/**
 * Runs the built `effect-mcp` binary on a real pseudo-terminal (`script` from util-linux), as
 * a person at a terminal would, with a bounded wait: what the terminal received (stdout and
 * stderr together, control sequences included) and the exit code. `script` and the command
 * under it are killed, with the command's servers, when a wait fails and when the test ends.
 */
import type { ChildProcess } from "node:child_process"
import { bin } from "./cli.js"
import { spawnOwned, stop } from "./processes.js"

export { descendantsOf } from "./processes.js"

const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`

/** A run on a terminal. */
export interface OnTerminal {
  readonly child: ChildProcess
  /** Everything the terminal received so far. */
  readonly screen: () => string
  readonly finished: Promise<{ readonly code: number | null; readonly screen: string }>
  /**
   * Waits (bounded) until the screen shows `text` after position `from`; resolves with the
   * position just after it, so the next wait can start there. In vain, it kills the run.
   */
  readonly waitFor: (text: string | RegExp, from?: number, timeoutMs?: number) => Promise<number>
  /** Types keys, as a person would (a moment after the last output). */
  readonly type: (keys: string) => Promise<void>
}

/** How the terminal is set up. */
export interface TerminalOptions {
  readonly env?: { readonly [name: string]: string | undefined }
  readonly timeoutMs?: number
  readonly cwd?: string
  /** The terminal's width (default: whatever `script` gives). */
  readonly columns?: number
  /**
   * A shell command run on the same terminal after effect-mcp ends, as the user's shell would
   * come next (it reads the keys left unread). effect-mcp is then not `exec`ed, and the shell
   * only notes a Ctrl-C; the exit code is still effect-mcp's.
   */
  readonly afterwards?: string
}

/** Starts `effect-mcp <args>` on a pseudo-terminal (colours allowed unless `env` says otherwise). */
export const startOnTerminal = (args: ReadonlyArray<string>, options: TerminalOptions = {}): OnTerminal => {
  const run = [process.execPath, bin, ...args].map(quote).join(" ")
  // `exec`: effect-mcp replaces the shell `script` starts, so a Ctrl-C reaches effect-mcp alone.
  // Otherwise that shell gets the SIGINT too; dash dies of it and `script` reports 130 for it.
  const size = options.columns === undefined ? "" : `stty cols ${options.columns} rows 40; `
  // `trap :` (not `trap ''`, which effect-mcp would inherit): Ctrl-C does not end the shell.
  const command =
    options.afterwards === undefined
      ? `${size}exec ${run}`
      : `trap : INT; ${size}${run}; status=$?; ${options.afterwards}; exit $status`
  // `script` runs `$SHELL -c`: the same shell on every machine.
  const env: { [name: string]: string | undefined } = {
    ...process.env,
    SHELL: "/bin/sh",
    TERM: "xterm-256color",
    ...options.env
  }
  if (options.env?.NO_COLOR === undefined) delete env.NO_COLOR
  // -e: the exit code is the command's; -f: flush at once.
  const child = spawnOwned("script", ["-qfec", command, "/dev/null"], {
    env,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd })
  })
  let screen = ""
  child.stdout.on("data", (chunk: Buffer) => {
    screen += chunk.toString()
  })
  const finished = new Promise<{ readonly code: number | null; readonly screen: string }>((resolve, reject) => {
    const timer = setTimeout(() => {
      stop(child)
      reject(new Error(`effect-mcp ${args.join(" ")} did not end in time; screen so far:\n${screen}`))
    }, options.timeoutMs ?? 30_000)
    child.once("exit", (code, signal) => {
      clearTimeout(timer)
      // Killed by a signal (`script` itself: the command's own death is reported as 128 + n).
      if (signal !== null) screen += `\n[script was killed by ${signal}]`
      setImmediate(() => resolve({ code, screen }))
    })
  })
  const waitFor = async (text: string | RegExp, from = 0, timeoutMs = 20_000): Promise<number> => {
    for (let waited = 0; waited <= timeoutMs; waited += 25) {
      const rest = screen.slice(from)
      const match = typeof text === "string" ? rest.indexOf(text) : rest.search(text)
      if (match !== -1) {
        const length = typeof text === "string" ? text.length : (rest.slice(match).match(text)?.[0].length ?? 0)
        return from + match + length
      }
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
    stop(child)
    throw new Error(`the screen never showed ${String(text)}; screen so far:\n${screen.slice(from)}`)
  }
  const type = async (keys: string) => {
    await new Promise((resolve) => setTimeout(resolve, 150))
    child.stdin.write(keys)
  }
  return { child, screen: () => screen, finished, waitFor, type }
}

/** Runs `effect-mcp <args>` on a pseudo-terminal to its end. */
export const runOnTerminal = (args: ReadonlyArray<string>, options: TerminalOptions = {}) =>
  startOnTerminal(args, options).finished
