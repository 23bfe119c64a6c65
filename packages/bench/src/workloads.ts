/**
 * The workloads, each run in a fresh client process: what is measured and how. Times come
 * from `performance.now()`, CPU from `process.cpuUsage()` around the workload, memory from
 * `process.memoryUsage()` after a full GC (the worker runs with `--expose-gc`). When the benchmark
 * started the server (`Target.serverPid`), the server's side too: its CPU per call (the process
 * and its descendants, from `/proc`) and, for `idle`, its heap and RSS per open session.
 */
import type { Client, Session, Target } from "./clients/Client.js"
import { collectedMemoryKB, treeCpuMicros } from "./proc.js"

/** A workload's name, transport and sizes. */
export interface WorkloadSpec {
  readonly name: "import" | "cold" | "sequential" | "inflight" | "big" | "pending" | "sessions" | "idle"
  readonly transport: "stdio" | "http"
  readonly n: number
  readonly concurrency?: number
  readonly kb?: number
  /** effect-mcp's `maxInFlight` for this workload (none: unbounded, the default). */
  readonly limit?: number
  /** `sequential`, `inflight`: the calls made before the measured ones (default 200 sequentially, 500 in flight). */
  readonly warmup?: number
  /** `pending`: how long the server holds each call (default 3000 ms); the heap is read a third of the way in. */
  readonly holdMs?: number
  /**
   * `idle`: how long the sessions rest before the server's memory is read (default 25,000 ms, past
   * the gateway's 10 s, and its sweep, after which an unused session rests as data: idle, not just opened).
   */
  readonly restMs?: number
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
export const lanes = async (n: number, concurrency: number, call: () => Promise<unknown>) => {
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

/** The server's CPU per call over `n` calls, when the benchmark started the server. */
const serverCpu = (target: Target | undefined) => {
  const pid = target?.serverPid
  if (pid === undefined) return () => ({})
  const since = treeCpuMicros([pid])
  return (n: number) => ({ serverCpuUsPerCall: (treeCpuMicros([pid]) - since) / n })
}

/** `n` echo calls, `concurrency` at a time: in the client's own loop when it has one (an Effect program's), else in Promise lanes. */
const echoes = (session: Session, n: number, concurrency: number, timed?: (ms: number) => void) =>
  session.echoes !== undefined
    ? session.echoes(n, concurrency, timed)
    : lanes(n, concurrency, async () => {
        const t = performance.now()
        await session.echo("hello")
        timed?.(performance.now() - t)
      })

/** Echo calls, each timed, `concurrency` at a time. */
const timedEchoes = async (n: number, concurrency: number, session: Session) => {
  const latencies: Array<number> = []
  const cpu = process.cpuUsage()
  const started = performance.now()
  await echoes(session, n, concurrency, (ms) => {
    latencies.push(ms)
  })
  const elapsed = performance.now() - started
  const cpuUs = cpuMicros(cpu)
  latencies.sort((a, b) => a - b)
  return {
    callsPerSec: (n / elapsed) * 1000,
    p50Us: percentile(latencies, 50) * 1000,
    p99Us: percentile(latencies, 99) * 1000,
    cpuUsPerCall: cpuUs / n
  }
}

/** Runs a workload on an open session (`import`, `cold`, `sessions` and `idle` are measured by the worker around connecting). */
export const measure = async (spec: WorkloadSpec, session: Session, target?: Target): Promise<Figures> => {
  switch (spec.name) {
    case "sequential": {
      await echoes(session, spec.warmup ?? Math.min(200, spec.n), 1)
      const server = serverCpu(target)
      const figures = await timedEchoes(spec.n, 1, session)
      return { ...figures, ...server(spec.n) }
    }
    case "inflight": {
      await echoes(session, spec.warmup ?? Math.min(500, spec.n), spec.concurrency ?? 100)
      const server = serverCpu(target)
      const figures = await timedEchoes(spec.n, spec.concurrency ?? 100, session)
      const serverFigures = server(spec.n)
      const memory = heap()
      return { ...figures, ...serverFigures, heapMB: memory.heapUsed / 2 ** 20, rssMB: memory.rss / 2 ** 20 }
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
      const hold = spec.holdMs ?? 3000
      const calls = Array.from({ length: spec.n }, () => session.sleep(hold))
      await new Promise((resolve) => setTimeout(resolve, hold / 3))
      const during = heap().heapUsed
      await Promise.all(calls)
      return { heapKBPerPending: (during - before) / spec.n / 1024 }
    }
    default:
      return {}
  }
}

/**
 * `idle`: `n` sessions opened (initialized, tools listed, 50 at a time) and left open; the growth
 * of the serving process's heap and RSS per session, between one session open and all of them, each
 * read after a rest (`restMs`, the same for every route) and a full GC in that process (its memory
 * probe, `memoryProbe.ts`): what a session keeps, not garbage not yet collected.
 */
export const measureIdle = async (spec: WorkloadSpec, client: Client, target: Target): Promise<Figures> => {
  const pid = target.serverPid
  if (pid === undefined) throw new Error("the idle workload needs the server's process id")
  const rest = () => new Promise((resolve) => setTimeout(resolve, spec.restMs ?? 25_000))
  const first = await client.connect(target)
  await first.list()
  await rest()
  const before = await collectedMemoryKB(pid)
  const sessions: Array<Session> = []
  const started = performance.now()
  await lanes(spec.n, 50, async () => {
    const session = await client.connect(target)
    await session.list()
    sessions.push(session)
  })
  const elapsed = performance.now() - started
  await rest()
  const after = await collectedMemoryKB(pid)
  await Promise.all([first, ...sessions].map((session) => session.close()))
  return {
    sessionsMs: elapsed,
    serverHeapKBPerSession: (after.heapKB - before.heapKB) / spec.n,
    serverRssKBPerSession: (after.rssKB - before.rssKB) / spec.n,
    serverRssMB: after.rssKB / 1024
  }
}
