/**
 * Decode throughput: @effect-mcp/protocol against the official TypeScript SDK's own
 * validation (its Zod schemas), on the same parsed messages, in one process, interleaved
 * round by round. Prints messages/s for both and the ratio; `--json FILE` also writes them.
 *
 *   npm run bench -w @effect-mcp/protocol            (5 rounds of 1 s per contender)
 *   npx tsx --conditions=@effect-mcp/source bench/decode.ts --rounds 3 --ms 200
 */
import { writeFileSync } from "node:fs"
import { CallToolResultSchema, ListToolsResultSchema } from "@modelcontextprotocol/sdk/types.js"
import * as Schema from "effect/Schema"
import { Methods } from "../src/index.js"
import { toolsCallResult, toolsListResult } from "./fixtures.js"

/** One workload: a message and the two decoders that validate it. */
interface Workload {
  readonly name: string
  readonly message: unknown
  readonly contenders: Record<"effect-mcp" | "sdk-zod", (input: unknown) => unknown>
}

const workloads: ReadonlyArray<Workload> = [
  {
    name: "tools/list result, 100 tools",
    message: toolsListResult(100),
    contenders: {
      "effect-mcp": Schema.decodeUnknownSync(Methods.requests["tools/list"].result),
      "sdk-zod": (input) => ListToolsResultSchema.parse(input)
    }
  },
  {
    name: "tools/call result",
    message: toolsCallResult(),
    contenders: {
      "effect-mcp": Schema.decodeUnknownSync(Methods.requests["tools/call"].result),
      "sdk-zod": (input) => CallToolResultSchema.parse(input)
    }
  }
]

/** Decodes fresh copies for `ms` milliseconds; returns messages per second. */
const measure = (decode: (input: unknown) => unknown, text: string, ms: number): number => {
  const copies = Array.from({ length: 64 }, () => JSON.parse(text))
  let count = 0
  const start = performance.now()
  let now = start
  while (now - start < ms) {
    for (const copy of copies) decode(copy)
    count += copies.length
    now = performance.now()
  }
  return (count * 1000) / (now - start)
}

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2
}

/** The result of one workload. */
export interface DecodeResult {
  readonly workload: string
  readonly effectMcp: number
  readonly sdkZod: number
  /** Median of the per-round ratios effect-mcp / sdk-zod (above 1: we are faster). */
  readonly ratio: number
}

/** Runs every workload: a warm-up, then `rounds` interleaved rounds of `ms` per contender. */
export const run = (options: { readonly rounds: number; readonly ms: number }): ReadonlyArray<DecodeResult> =>
  workloads.map(({ name, message, contenders }) => {
    const text = JSON.stringify(message)
    measure(contenders["effect-mcp"], text, options.ms)
    measure(contenders["sdk-zod"], text, options.ms)
    const ours: Array<number> = []
    const theirs: Array<number> = []
    const ratios: Array<number> = []
    for (let round = 0; round < options.rounds; round++) {
      const a = round % 2 === 0
      const first = measure(contenders[a ? "effect-mcp" : "sdk-zod"], text, options.ms)
      const second = measure(contenders[a ? "sdk-zod" : "effect-mcp"], text, options.ms)
      const [effectMcp, sdkZod] = a ? [first, second] : [second, first]
      ours.push(effectMcp)
      theirs.push(sdkZod)
      ratios.push(effectMcp / sdkZod)
    }
    return { workload: name, effectMcp: median(ours), sdkZod: median(theirs), ratio: median(ratios) }
  })

const flag = (name: string): string | undefined => {
  const index = process.argv.indexOf(name)
  return index === -1 ? undefined : process.argv[index + 1]
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rounds = Number(flag("--rounds") ?? 5)
  const ms = Number(flag("--ms") ?? 1000)
  const results = run({ rounds, ms })
  const format = (n: number) => Math.round(n).toLocaleString("en-US")
  console.log(`decode throughput, median of ${rounds} interleaved rounds (${ms} ms each), node ${process.version}`)
  console.log("| workload | effect-mcp msg/s | SDK v1 (zod) msg/s | ratio |")
  console.log("| --- | ---: | ---: | ---: |")
  for (const r of results) {
    console.log(`| ${r.workload} | ${format(r.effectMcp)} | ${format(r.sdkZod)} | ${r.ratio.toFixed(2)}× |`)
  }
  const file = flag("--json")
  if (file !== undefined) writeFileSync(file, JSON.stringify({ rounds, ms, node: process.version, results }, null, 2))
}
