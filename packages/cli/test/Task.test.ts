/** `tools call --task` as a user runs it, against the reference server's task tool. */
import { describe, expect, it } from "@effect/vitest"
import { everythingStdio, run } from "./support/cli.js"

describe("tools call --task", () => {
  it("runs a task-required tool as a task, showing its status; without --task it says to add it (exit 2)", async () => {
    const plain = await run(["tools", "call", "simulate-research-query", "topic=cli", ...everythingStdio])
    expect(plain.code).toBe(2)
    expect(plain.stderr).toMatch(/simulate-research-query must be called as a task \(add --task\)/)
    const task = await run(["tools", "call", "simulate-research-query", "topic=cli", "--task", ...everythingStdio])
    expect(task.code, task.stderr).toBe(0)
    expect(task.stdout).toMatch(/Research Report: cli/)
    expect(task.stderr).toMatch(/task \S+: working/)
  })
})
