/** Helpers for tests that start real processes. */
import { execFileSync } from "node:child_process"
import { createRequire } from "node:module"
import { fileURLToPath } from "node:url"

const require = createRequire(import.meta.url)

/** The reference server's entry point (`@modelcontextprotocol/server-everything`). */
export const everythingServer = require.resolve("@modelcontextprotocol/server-everything/dist/index.js")

/** The fault-injecting mini server. */
export const miniServer = fileURLToPath(new URL("../fixtures/mini-server.mjs", import.meta.url))

/** Is a process with this id still running (and not a zombie)? */
export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    const state = execFileSync("ps", ["-o", "stat=", "-p", String(pid)], { encoding: "utf8" }).trim()
    return state !== "" && !state.startsWith("Z")
  } catch {
    return false
  }
}

/** The live processes of a process group. */
export const groupMembers = (pgid: number): ReadonlyArray<number> => {
  const out = execFileSync("ps", ["-eo", "pid=,pgid=,stat="], { encoding: "utf8" })
  return out
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter(([, group, stat]) => Number(group) === pgid && stat !== undefined && !stat.startsWith("Z"))
    .map(([pid]) => Number(pid))
}

/** This process's live child processes (pid and command line). */
export const children = (): ReadonlyArray<string> => {
  const out = execFileSync("ps", ["-o", "pid=,stat=,args=", "--ppid", String(process.pid)], { encoding: "utf8" })
  return out
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !/^\d+\s+Z/.test(line) && !line.includes(" ps -o "))
}
