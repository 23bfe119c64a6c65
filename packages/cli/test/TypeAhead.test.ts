/**
 * Keys typed while a one-shot command runs, on a real pseudo-terminal with the user's shell
 * after it: they are not echoed over the live line (from start-up on), the line keeps turning,
 * and they are left on the terminal for the shell, which finds it echoing again, however the
 * command ended.
 */
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import { everything, everythingStdio } from "./support/cli.js"
import { startOnTerminal } from "./support/pty.js"

const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`

/** The shell after effect-mcp: what it finds on the terminal (see the fixture). */
const shellReads = [process.execPath, fileURLToPath(new URL("fixtures/shell-reads.mjs", import.meta.url))]
  .map(quote)
  .join(" ")

/** The reference server, a second slow to start: long enough to type during start-up. */
const slowToStart = ["--", "/bin/sh", "-c", `sleep 1; exec ${quote(process.execPath)} ${quote(everything)} stdio`]

const call = (seconds: number) => [
  "tools",
  "call",
  "trigger-long-running-operation",
  `duration:=${seconds}`,
  `steps:=${seconds}`
]

/** The lines the terminal shows at the end (each line's last redraw). */
const shownLines = (screen: string) =>
  screen.split(/\r?\n/).map((line) => line.split("\r").at(-1)?.replaceAll("\x1b[2K", "") ?? "")

describe("keys typed during a one-shot call", () => {
  it("reach the shell after it, never echoed, while it starts and while it calls; the line goes on", async () => {
    const run = startOnTerminal([...call(3), ...slowToStart], { afterwards: shellReads })
    const starting = await run.waitFor("starting /bin/sh")
    await run.type("zq1\r")
    // The line still turns after the keys (a frame after them, then the call's).
    const typedAt = run.screen().length
    await run.waitFor("starting /bin/sh", typedAt)
    const calling = await run.waitFor(/calling trigger-long-running-operation {2}1\//, starting)
    await run.type("zq2")
    const typedAgain = run.screen().length
    await run.waitFor(/calling trigger-long-running-operation {2}[23]\//, typedAgain)
    const { code, screen } = await run.finished
    expect(code, screen).toBe(0)
    const before = screen.slice(0, screen.indexOf("the shell got"))
    expect(before).not.toContain("zq")
    expect(before.slice(calling)).toContain("Long running operation completed")
    // No copy of the line left behind by an echoed Enter.
    expect(shownLines(before).filter((line) => /starting |calling /.test(line))).toStrictEqual([])
    // The Enter as the terminal keeps it (a newline); the second line as typed, without one.
    expect(screen).toContain(`the shell got "zq1\\nzq2", echo on`)
  }, 40_000)

  it("Ctrl-C: the terminal echoes again for the shell, and the line typed goes, as at a shell's prompt", async () => {
    const run = startOnTerminal([...call(30), ...everythingStdio], { afterwards: shellReads })
    await run.waitFor(/calling trigger-long-running-operation {2}1\//)
    await run.type("zq3")
    await run.type("\x03")
    const { code, screen } = await run.finished
    expect(code, screen).toBe(130)
    expect(screen).toContain("cancelled: tools call trigger-long-running-operation")
    expect(screen).not.toContain("zq3")
    expect(screen).toContain(`the shell got "", echo on`)
  }, 40_000)

  it("a server that cannot start: an error, and the keys and the echo are the shell's again", async () => {
    const run = startOnTerminal([...call(3), "--", "/bin/sh", "-c", "sleep 1; echo gone >&2; exit 1"], {
      afterwards: shellReads
    })
    await run.waitFor("starting /bin/sh")
    await run.type("zq4")
    const { code, screen } = await run.finished
    expect(code, screen).toBe(3)
    expect(screen.slice(0, screen.indexOf("the shell got"))).not.toContain("zq4")
    expect(screen).toContain(`the shell got "zq4", echo on`)
  }, 40_000)
})
