import { describe, expect, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as FiberId from "effect/FiberId"
import * as FiberRefs from "effect/FiberRefs"
import * as HashMap from "effect/HashMap"
import * as List from "effect/List"
import * as LogLevel from "effect/LogLevel"
import { format } from "../src/Logging.js"

const entry = (message: unknown, annotations: ReadonlyArray<readonly [string, unknown]> = []) => ({
  fiberId: FiberId.none,
  logLevel: LogLevel.Warning,
  message,
  cause: Cause.empty,
  context: FiberRefs.empty(),
  spans: List.empty(),
  annotations: HashMap.fromIterable(annotations),
  date: new Date(0)
})

describe("Logging.format", () => {
  it("shows structured message parts and annotations compactly, never as [object Object]", () => {
    expect(format(entry(["mcp protocol violation (unknown-id) from fake", { id: 7 }]))).toBe(
      "warn: mcp protocol violation (unknown-id) from fake { id: 7 }"
    )
    const annotated = format(
      entry("sent", [
        ["mcp.server", "fake"],
        ["message", { jsonrpc: "2.0", nested: [1, { a: 2 }] }]
      ])
    )
    expect(annotated).toMatch(/^warn: sent /)
    expect(annotated).toContain(" mcp.server=fake")
    expect(annotated).toContain(" message={ jsonrpc: '2.0', nested: [ 1, { a: 2 } ] }")
  })

  it("removes control sequences (log lines quote servers)", () => {
    expect(format(entry(["from server:", "a\x1b]0;x\x07b\x1b[31mc"]))).toBe("warn: from server: abc")
  })
})
