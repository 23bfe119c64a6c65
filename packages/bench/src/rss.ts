/**
 * Preloaded (`node --import rss.js`) into a CLI the `cli` workload measures: at exit, writes
 * the process's peak resident set size in KB (`process.resourceUsage().maxRSS`) to the file
 * `BENCH_RSS_FILE` names.
 */
import { writeFileSync } from "node:fs"

const file = process.env.BENCH_RSS_FILE
if (file !== undefined) process.on("exit", () => writeFileSync(file, String(process.resourceUsage().maxRSS)))
