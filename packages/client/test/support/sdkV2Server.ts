/**
 * Starting fixture servers that print `listening <url>` for tests: the official SDK v2 one
 * (`fixtures/sdk-v2-server.mjs`) and the tmcp one (`fixtures/tmcp-server.mjs`).
 */
import { type ChildProcess, spawn } from "node:child_process"
import { closeSync, openSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"

/** The fixture's entry point. */
export const sdkV2Server = fileURLToPath(new URL("../fixtures/sdk-v2-server.mjs", import.meta.url))

/** The tmcp fixture's entry point (an independent implementation of 2026-07-28). */
export const tmcpServer = fileURLToPath(new URL("../fixtures/tmcp-server.mjs", import.meta.url))

/** The misbehaving legacy server that exits on any request before `initialize`. */
export const exitsBeforeInitialize = fileURLToPath(new URL("../fixtures/exits-before-initialize.mjs", import.meta.url))

const guard = fileURLToPath(new URL("../fixtures/guarded.mjs", import.meta.url))

/** Which revisions the fixture offers. */
export type SdkV2Mode = "modern" | "legacy" | "both"

/** A running fixture in its HTTP mode. */
export interface RunningSdkV2 {
  readonly url: string
  readonly port: number
  readonly stop: () => Promise<void>
}

/**
 * Starts a fixture over HTTP on 127.0.0.1 (port 0) and learns its URL from the line it prints
 * on stdout; waits at most 15 seconds. Runs through the guard, so it never outlives the worker.
 */
export const startHttpFixture = (entry: string, args: ReadonlyArray<string>, label: string): Promise<RunningSdkV2> =>
  new Promise((resolve, reject) => {
    const log = openSync(join(tmpdir(), `effect-mcp-${label.replace(/\W+/g, "-")}-${process.pid}.log`), "w")
    const child: ChildProcess = spawn(process.execPath, [guard, process.execPath, entry, ...args], {
      env: { PATH: process.env.PATH ?? "" },
      stdio: ["pipe", "pipe", log]
    })
    closeSync(log)
    let stopping = false
    const timer = setTimeout(() => {
      stopping = true
      child.kill("SIGKILL")
      reject(new Error(`${label} printed no URL in time`))
    }, 15_000)
    child.once("exit", (code, signal) => {
      if (!stopping) console.error(`${label} exited on its own: ${code ?? signal}`)
    })
    const stop = () =>
      new Promise<void>((done) => {
        stopping = true
        if (child.exitCode !== null || child.signalCode !== null) return done()
        const kill = setTimeout(() => child.kill("SIGKILL"), 2000)
        child.once("exit", () => {
          clearTimeout(kill)
          done()
        })
        child.kill("SIGTERM")
      })
    const stdout = child.stdout
    if (stdout === null) return reject(new Error("no stdout"))
    const lines = createInterface({ input: stdout })
    lines.on("line", (line) => {
      const match = /^listening (http:\/\/127\.0\.0\.1:(\d+)\/mcp)$/.exec(line)
      if (match === null || match[1] === undefined || match[2] === undefined) return
      clearTimeout(timer)
      resolve({ url: match[1], port: Number(match[2]), stop })
    })
  })

/** Starts the SDK v2 fixture over HTTP in a mode. */
export const startSdkV2Http = (mode: SdkV2Mode): Promise<RunningSdkV2> =>
  startHttpFixture(sdkV2Server, ["http", mode], `the SDK v2 server (http ${mode})`)
