/**
 * Runs the built `effect-mcp` binary as a user would, with a bounded wait: the process is
 * killed if it has not ended in time, and the test fails with what it printed. What a test
 * started is killed, with its servers, when the test ends (see `processes.ts`).
 */
import type { ChildProcessWithoutNullStreams } from "node:child_process"
import { createRequire } from "node:module"
import { fileURLToPath } from "node:url"
import { spawnOwned, stop, stopTestProcesses } from "./processes.js"

/** The built binary; `EFFECT_MCP_BIN` runs the tests against another build (an older one, say). */
export const bin = process.env.EFFECT_MCP_BIN ?? fileURLToPath(new URL("../../bin/effect-mcp.js", import.meta.url))

/** The reference server's entry point. */
export const everything = createRequire(import.meta.url).resolve(
  "@modelcontextprotocol/server-everything/dist/index.js"
)

/** The reference server over stdio, as words after `--`. */
export const everythingStdio: ReadonlyArray<string> = ["--", process.execPath, everything, "stdio"]

/** What a finished run printed and how it ended. */
export interface Finished {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

/** Options of a run. */
export interface RunOptions {
  readonly cwd?: string
  readonly env?: { readonly [name: string]: string | undefined }
  readonly input?: string
  /** Keep stdin open for the test to write to (`child.stdin`); without `input` it is closed at once otherwise. */
  readonly keepStdinOpen?: boolean
  /** The longest the run may take. Default: 30 s. */
  readonly timeoutMs?: number
}

/** A started run: the child, and its end. */
export interface Started {
  readonly child: ChildProcessWithoutNullStreams
  readonly stdout: () => string
  readonly stderr: () => string
  readonly finished: Promise<Finished>
}

/** Starts `command <args>`, a program other than the binary (one `generate` wrote, say), as `start` does. */
export const startCommand = (command: string, args: ReadonlyArray<string>, options: RunOptions = {}): Started =>
  launch(command, args, `${command} ${args.join(" ")}`, options)

/** Starts `effect-mcp <args>`. */
export const start = (args: ReadonlyArray<string>, options: RunOptions = {}): Started =>
  launch(process.execPath, [bin, ...args], `effect-mcp ${args.join(" ")}`, options)

const launch = (command: string, args: ReadonlyArray<string>, name: string, options: RunOptions): Started => {
  const child = spawnOwned(command, args, {
    cwd: options.cwd ?? process.cwd(),
    env: { ...process.env, NO_COLOR: "1", ...options.env }
  })
  let stdout = ""
  let stderr = ""
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk
  })
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk
  })
  if (options.input !== undefined) child.stdin.end(options.input)
  else if (options.keepStdinOpen !== true) child.stdin.end()
  const finished = new Promise<Finished>((resolve, reject) => {
    const timer = setTimeout(() => {
      stop(child)
      reject(new Error(`${name} did not end in time\nstdout: ${stdout}\nstderr: ${stderr}`))
    }, options.timeoutMs ?? 30_000)
    child.once("exit", (code, signal) => {
      clearTimeout(timer)
      const done = () => resolve({ code, signal, stdout, stderr })
      // What the process wrote may still be in the pipes when it exits (a loaded machine): wait for
      // them to close, bounded (a grandchild that kept them open must not hold the test). The bound
      // is generous: a loaded worker may read the pipes seconds after the exit.
      const grace = setTimeout(done, 10_000)
      child.once("close", () => {
        clearTimeout(grace)
        done()
      })
    })
  })
  return { child, stdout: () => stdout, stderr: () => stderr, finished }
}

/** Runs `effect-mcp <args>` to its end. */
export const run = (args: ReadonlyArray<string>, options: RunOptions = {}): Promise<Finished> =>
  start(args, options).finished

/** Waits (bounded) until `condition` holds, polling every 50 ms; in vain, it kills what the test started. */
export const eventually = async (condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> => {
  for (let waited = 0; waited < timeoutMs; waited += 50) {
    if (condition()) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  stopTestProcesses()
  throw new Error(`timed out waiting for ${what}`)
}
