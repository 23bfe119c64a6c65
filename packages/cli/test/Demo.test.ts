/**
 * `npm start`'s demo as a person reads it: the root's `npm start` builds, then runs the CLI
 * package's `demo` script (the build is the tests' own, so this runs the script alone): an
 * overview of the reference server, then a tool call, each under a heading naming the command.
 */
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"

const repo = fileURLToPath(new URL("../../../", import.meta.url))

describe("npm start's demo", () => {
  it("shows the tool call's result under its own heading, not after the overview's last line", async () => {
    const { stdout, code } = await new Promise<{ stdout: string; code: number | null }>((resolve) => {
      const child = execFile(
        "npm",
        ["run", "demo", "--silent", "-w", "@effect-mcp/cli"],
        { cwd: repo, env: { ...process.env, NO_COLOR: "1" }, timeout: 60_000 },
        (_error, out) => resolve({ stdout: out, code: child.exitCode })
      )
    })
    expect(code).toBe(0)
    const lines = stdout.split("\n")
    const inspect = lines.findIndex((line) => /^\$ effect-mcp inspect /.test(line))
    const call = lines.findIndex((line) => /^\$ effect-mcp tools call echo /.test(line))
    expect(
      [inspect, call].every((at) => at >= 0),
      stdout
    ).toBe(true)
    expect(inspect).toBeLessThan(call)
    // The result is what follows the heading, set off from the overview by a blank line.
    expect(lines[call - 1]).toBe("")
    expect(lines.slice(call + 1).filter((line) => line !== "")).toStrictEqual(["Echo: hello from effect-mcp"])
  }, 90_000)
})
