/** A smoke run of the decode benchmark (tiny, no timing assertions), so that it cannot rot. */
import { describe, expect, it } from "@effect/vitest"
import { run } from "../bench/decode.js"

describe("decode benchmark", () => {
  it("measures both contenders on every workload", () => {
    const results = run({ rounds: 1, ms: 5 })
    expect(results.map((result) => result.workload)).toStrictEqual([
      "tools/list result, 100 tools",
      "tools/call result"
    ])
    for (const result of results) {
      expect(result.effectMcp).toBeGreaterThan(0)
      expect(result.sdkZod).toBeGreaterThan(0)
      expect(result.ratio).toBeGreaterThan(0)
    }
  })
})
