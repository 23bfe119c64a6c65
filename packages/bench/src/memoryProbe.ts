/**
 * Preloaded into the processes the `gateway` workloads serve from (`--import`, with `--expose-gc`):
 * on `SIGUSR2` it collects garbage and, once the freed pages are given back, writes the process's heap and resident set, in KB, to
 * {@link probeFile}. What an idle session costs is then read as the memory it keeps, not the
 * garbage a process has not yet collected (no GC can be forced from outside).
 */
import { writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** Where process `pid` writes what it measured. */
export const probeFile = (pid: number) => join(tmpdir(), `bench-memory-${pid}.json`)

if (process.env.BENCH_MEMORY_PROBE === "1") {
  const gc = () => (globalThis as { gc?: () => void }).gc?.()
  process.on("SIGUSR2", () => {
    gc()
    gc()
    // V8 gives the pages it freed back to the system as it sweeps, after the collection: the
    // resident set is read a moment later.
    setTimeout(() => {
      gc()
      const memory = process.memoryUsage()
      writeFileSync(
        probeFile(process.pid),
        JSON.stringify({ heapKB: memory.heapUsed / 1024, rssKB: memory.rss / 1024 })
      )
    }, 500)
  })
}
