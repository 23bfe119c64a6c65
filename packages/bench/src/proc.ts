/**
 * What the benchmark reads of a process it started (a server, the gateway, mcp-proxy): from Linux's
 * `/proc`, the CPU time it and its descendants (a gateway's stdio server) have used; from its memory
 * probe, its heap and resident set once it collected its garbage.
 */
import { existsSync, readFileSync, rmSync } from "node:fs"
import { probeFile } from "./memoryProbe.js"

/**
 * The heap and resident set (KB) of a process started with the memory probe (`memoryProbe.ts`),
 * after it collected its garbage; waits for its answer for at most five seconds.
 */
export const collectedMemoryKB = async (pid: number): Promise<{ readonly heapKB: number; readonly rssKB: number }> => {
  const file = probeFile(pid)
  rmSync(file, { force: true })
  process.kill(pid, "SIGUSR2")
  for (let poll = 0; poll < 100 && !existsSync(file); poll++) await new Promise((resolve) => setTimeout(resolve, 50))
  // Written at once, but read only once complete.
  for (let poll = 0; poll < 20; poll++) {
    try {
      const read = JSON.parse(readFileSync(file, "utf8")) as { readonly heapKB: number; readonly rssKB: number }
      rmSync(file, { force: true })
      return read
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
  throw new Error(`process ${pid} did not report its memory (was it started with the memory probe?)`)
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
