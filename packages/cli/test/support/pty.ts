/**
 * Runs the built `effect-mcp` binary on a real pseudo-terminal (`script` from util-linux), as
 * a person at a terminal would, with a bounded wait: what the terminal received (stdout and
 * stderr together, control sequences included) and the exit code.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { bin } from "./cli.js"

const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`

/** A run on a terminal. */
export interface OnTerminal {
  readonly child: ChildProcess
  /** Everything the terminal received so far. */
  readonly screen: () => string
  readonly finished: Promise<{ readonly code: number | null; readonly screen: string }>
}

/** Starts `effect-mcp <args>` on a pseudo-terminal (colours allowed unless `env` says otherwise). */
export const startOnTerminal = (
  args: ReadonlyArray<string>,
  options: { readonly env?: { readonly [name: string]: string | undefined }; readonly timeoutMs?: number } = {}
): OnTerminal => {
  const command = [process.execPath, bin, ...args].map(quote).join(" ")
  const env: { [name: string]: string | undefined } = { ...process.env, TERM: "xterm-256color", ...options.env }
  if (options.env?.NO_COLOR === undefined) delete env.NO_COLOR
  // -e: the exit code is the command's; -f: flush at once.
  const child = spawn("script", ["-qfec", command, "/dev/null"], { stdio: ["pipe", "pipe", "pipe"], env })
  let screen = ""
  child.stdout.on("data", (chunk: Buffer) => {
    screen += chunk.toString()
  })
  const finished = new Promise<{ readonly code: number | null; readonly screen: string }>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`effect-mcp ${args.join(" ")} did not end in time; screen so far:\n${screen}`))
    }, options.timeoutMs ?? 30_000)
    child.once("exit", (code) => {
      clearTimeout(timer)
      setImmediate(() => resolve({ code, screen }))
    })
  })
  return { child, screen: () => screen, finished }
}

/** Runs `effect-mcp <args>` on a pseudo-terminal to its end. */
export const runOnTerminal = (
  args: ReadonlyArray<string>,
  options: { readonly env?: { readonly [name: string]: string | undefined }; readonly timeoutMs?: number } = {}
) => startOnTerminal(args, options).finished

/** The process ids of every descendant of a process. */
export const descendantsOf = (pid: number): ReadonlyArray<number> => {
  let children: ReadonlyArray<number> = []
  try {
    children = execFileSync("ps", ["-o", "pid=", "--ppid", String(pid)], { encoding: "utf8" })
      .split("\n")
      .map((line) => Number(line.trim()))
      .filter((child) => child > 0)
  } catch {
    return []
  }
  return children.flatMap((child) => [child, ...descendantsOf(child)])
}
