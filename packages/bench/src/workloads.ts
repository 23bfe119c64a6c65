/**
 * The workloads, each run in a fresh client process: what is measured and how. Times come
 * from `performance.now()`, CPU from `process.cpuUsage()` around the workload, memory from
 * `process.memoryUsage()` after a full GC (the worker runs with `--expose-gc`).
 */
import type { Session } from "./clients/Client.js"

/** A workload's name, transport and sizes. */
export interface WorkloadSpec {
  readonly name: "import" | "cold" | "sequential" | "inflight" | "big" | "pending" | "sessions"
  readonly transport: "stdio" | "http"
  readonly n: number
  readonly concurrency?: number
  readonly kb?: number
  /** effect-mcp's `maxInFlight` for this workload (none: unbounded, the default). */
  readonly limit?: number
}

/** A workload's figures, by metric name. */
export type Figures = Record<string, number>

/** A full garbage collection (the worker runs with `--expose-gc`). */
export const gc = () => (globalThis as { gc?: () => void }).gc?.()
const heap = () => {
  gc()
  gc()
  return process.memoryUsage()
}
const cpuMicros = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since)
  return used.user + used.system
}
const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0

/** Runs `n` calls with `concurrency` in flight. */
const lanes = async (n: number, concurrency: number, call: () => Promise<unknown>) => {
  let next = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        next += 1
        await call()
      }
    })
  )
}

/** Runs a workload on an open session (`import`, `cold` and `sessions` are measured by the worker around connecting). */
export const measure = async (spec: WorkloadSpec, session: Session): Promise<Figures> => {
  switch (spec.name) {
    case "sequential": {
      for (let i = 0; i < Math.min(200, spec.n); i++) await session.echo("warm")
      const latencies: Array<number> = []
      const cpu = process.cpuUsage()
      const started = performance.now()
      for (let i = 0; i < spec.n; i++) {
        const t = performance.now()
        await session.echo("hello")
        latencies.push(performance.now() - t)
      }
      const elapsed = performance.now() - started
      const cpuUs = cpuMicros(cpu)
      latencies.sort((a, b) => a - b)
      return {
        callsPerSec: (spec.n / elapsed) * 1000,
        p50Us: percentile(latencies, 50) * 1000,
        p99Us: percentile(latencies, 99) * 1000,
        cpuUsPerCall: cpuUs / spec.n
      }
    }
    case "inflight": {
      await lanes(Math.min(500, spec.n), spec.concurrency ?? 100, () => session.echo("warm"))
      const cpu = process.cpuUsage()
      const started = performance.now()
      await lanes(spec.n, spec.concurrency ?? 100, () => session.echo("hello"))
      const elapsed = performance.now() - started
      const cpuUs = cpuMicros(cpu)
      const memory = heap()
      return {
        callsPerSec: (spec.n / elapsed) * 1000,
        cpuUsPerCall: cpuUs / spec.n,
        heapMB: memory.heapUsed / 2 ** 20,
        rssMB: memory.rss / 2 ** 20
      }
    }
    case "big": {
      const kb = spec.kb ?? 1024
      await session.blob(kb)
      const started = performance.now()
      let bytes = 0
      for (let i = 0; i < spec.n; i++) bytes += await session.blob(kb)
      if (bytes !== spec.n * kb * 1024) throw new Error(`expected ${spec.n * kb * 1024} characters, got ${bytes}`)
      return { mbPerSec: bytes / 2 ** 20 / ((performance.now() - started) / 1000) }
    }
    case "pending": {
      await session.echo("warm")
      const before = heap().heapUsed
      const calls = Array.from({ length: spec.n }, () => session.sleep(3000))
      await new Promise((resolve) => setTimeout(resolve, 1000))
      const during = heap().heapUsed
      await Promise.all(calls)
      return { heapKBPerPending: (during - before) / spec.n / 1024 }
    }
    default:
      return {}
  }
}
