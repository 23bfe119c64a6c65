/**
 * `tools call --task` as a user runs it, against the reference server's task tool and the official
 * SDK's task support (whose `compute` reports progress while it runs).
 */
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import { everythingStdio, run } from "./support/cli.js"

const taskServer = [
  "--",
  process.execPath,
  "--import",
  "tsx",
  fileURLToPath(new URL("../../gateway/test/fixtures/taskServer.ts", import.meta.url))
]

describe("tools call --task", () => {
  it("runs a task-required tool as a task, showing its status, with --task or without it", async () => {
    const plain = await run(["tools", "call", "simulate-research-query", "topic=cli", ...everythingStdio])
    expect(plain.code, plain.stderr).toBe(0)
    expect(plain.stdout).toMatch(/Research Report: cli/)
    expect(plain.stderr).toMatch(/task \S+: working/)
    const task = await run(["tools", "call", "simulate-research-query", "topic=cli", "--task", ...everythingStdio])
    expect(task.code, task.stderr).toBe(0)
    expect(task.stdout).toMatch(/Research Report: cli/)
    expect(task.stderr).toMatch(/task \S+: working/)
  })

  it("shows the task's progress as the server reports it", async () => {
    const task = await run(["tools", "call", "compute", "ms:=400", "steps:=2", "--task", ...taskServer])
    expect(task.code, task.stderr).toBe(0)
    expect(task.stdout).toMatch(/done after 400/)
    // Off a terminal, one line per update: the status, then each step.
    expect(task.stderr).toMatch(/^1\/2 step 1$/m)
    expect(task.stderr).toMatch(/^2\/2 step 2$/m)
  })
})
