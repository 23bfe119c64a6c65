/** Starting HTTP servers for tests: the reference server on a free loopback port, and socket counting. */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { closeSync, openSync } from "node:fs"
import { connect, createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { everythingServer } from "./processes.js"

const guard = fileURLToPath(new URL("../fixtures/guarded.mjs", import.meta.url))

/** A free TCP port on 127.0.0.1. */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      probe.close(() => resolve(port))
    })
  })

/** Does something accept a TCP connection on 127.0.0.1 at `port` now? */
export const canConnect = (port: number): Promise<boolean> =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, "127.0.0.1")
    socket.once("connect", () => {
      socket.destroy()
      resolve(true)
    })
    socket.once("error", () => resolve(false))
  })

/** A running reference server in an HTTP mode. */
export interface RunningServer {
  readonly port: number
  readonly origin: string
  readonly stop: () => Promise<void>
}

/**
 * Starts the reference server in `streamableHttp` or `sse` mode, on `port` (a free one by
 * default; a server's own port again, to restart it); waits (bounded) until it listens.
 */
export const startEverything = async (mode: "streamableHttp" | "sse", onPort?: number): Promise<RunningServer> => {
  const port = onPort ?? (await freePort())
  // Its output goes to a log file, kept for post-mortems when a test run goes wrong.
  const log = openSync(join(tmpdir(), `effect-mcp-everything-${mode}-${port}.log`), "w")
  // Through a guard that kills the server when this worker's end of its stdin pipe closes, so the
  // server never outlives the worker, however the worker ends (afterAll may never run).
  const child: ChildProcess = spawn(process.execPath, [guard, process.execPath, everythingServer, mode], {
    env: { PATH: process.env.PATH ?? "", PORT: String(port) },
    stdio: ["pipe", log, log]
  })
  closeSync(log)
  let stopping = false
  child.once("exit", (code, signal) => {
    if (!stopping) console.error(`the reference server (${mode}, port ${port}) exited on its own: ${code ?? signal}`)
  })
  for (let attempt = 0; attempt < 200 && !(await canConnect(port)); attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  if (!(await canConnect(port))) {
    stopping = true
    child.kill("SIGKILL")
    throw new Error(`the reference server (${mode}) did not listen on ${port}`)
  }
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        stopping = true
        if (child.exitCode !== null || child.signalCode !== null) return resolve()
        const timer = setTimeout(() => child.kill("SIGKILL"), 2000)
        child.once("exit", () => {
          clearTimeout(timer)
          resolve()
        })
        child.kill("SIGTERM")
      })
  }
}

/** This process's established TCP connections to a local port. */
export const connectionsTo = (port: number): number => {
  const out = execFileSync("ss", ["-tnp", "state", "established", `dport = :${port}`], { encoding: "utf8" })
  return out.split("\n").filter((line) => line.includes(`pid=${process.pid},`)).length
}
