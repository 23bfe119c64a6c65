/**
 * What Linux's `/proc` says about a process the benchmark started (a server, the gateway,
 * mcp-proxy), read from outside it: its resident set size, and the CPU time it and its
 * descendants (a gateway's stdio server) have used.
 */
import { readFileSync } from "node:fs"

/** `VmRSS` of the process, in KB. */
export const rssKB = (pid: number): number => {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))
  if (match === null) throw new Error(`no VmRSS for process ${pid}`)
  return Number(match[1])
}

/** The process and its descendants, parents first. */
export const processTree = (pid: number): ReadonlyArray<number> => {
  let children: ReadonlyArray<number> = []
  try {
    const text = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim()
    children = text === "" ? [] : text.split(/\s+/).map(Number)
  } catch {}
  return [pid, ...children.flatMap(processTree)]
}

/** Clock ticks per second of `utime` and `stime` (`getconf CLK_TCK`: 100 on Linux). */
const TICKS = 100

/** User plus system CPU time of one process, in µs (0 when it has gone). */
const cpuOf = (pid: number) => {
  try {
    // After the command name in parentheses: state is field 3, utime 14 and stime 15.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return ((Number(fields[11]) + Number(fields[12])) / TICKS) * 1e6
  } catch {
    return 0
  }
}

/** User plus system CPU time, in µs, of the processes and their descendants (10 ms resolution). */
export const treeCpuMicros = (pids: ReadonlyArray<number>): number =>
  pids.flatMap(processTree).reduce((sum, pid) => sum + cpuOf(pid), 0)
