/**
 * The live progress line and the prompts that pause it, on a real pseudo-terminal against the
 * reference server: the line moves between the server's updates and shows `n/total`, a bar
 * and the time; a URL elicitation's question shows before any key is pressed; the -32042
 * error path shows the URL; a form field is checked as it is entered.
 */

import { existsSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import { checkText } from "../src/internal/formField.js"
import { bar, elapsedText, plain, render } from "../src/ProgressLine.js"
import { everything, everythingStdio, run as runPiped } from "./support/cli.js"
import { startOnTerminal } from "./support/pty.js"

const ESC = String.fromCharCode(27)
const ANSI = new RegExp(`${ESC}\\[[0-9;?]*[A-Za-z]`, "g")

describe("the progress line (pure)", () => {
  it("shows the spinner, n/total with a bar, the message and the time; cut to the width", () => {
    const line = render({ label: "calling op", progress: 3, total: 10, message: "copying" }, 0, 65_000, 200)
    expect(line).toBe(`⠋ calling op  3/10 ${bar(0.3)}  copying  1m05s`)
    expect(bar(0.5, 4)).toBe("[##--]")
    expect(elapsedText(4_200)).toBe("4s")
    expect(render({ label: "calling op", progress: 2 }, 1, 0, 200)).toBe("⠙ calling op  2  0s")
    expect(render({ label: "x".repeat(100) }, 0, 0, 40)).toHaveLength(40)
    expect(plain({ label: "progress op", progress: 1, total: 4, message: "m" })).toBe("progress op: 1/4 m")
  })

  it("never lets the server's message drive the terminal", () => {
    const line = render({ label: "calling op", message: `${ESC}]0;owned\x07${ESC}[31mred\nnext` }, 0, 0, 200)
    expect(line).not.toContain(ESC)
    expect(line).not.toContain("\x07")
    expect(line).not.toContain("\n")
  })
})

describe("form fields, checked as entered", () => {
  it("checks formats, lengths, ranges and numbers", () => {
    const email = { type: "string", format: "email" } as const
    expect(checkText(email, "nope", true)).toStrictEqual(Either.left("enter an email address (name@example.com)"))
    expect(checkText(email, "ada@example.com", true)).toStrictEqual(Either.right("ada@example.com"))
    expect(Either.isLeft(checkText({ type: "string", format: "date" }, "2021-02-30", true))).toBe(true)
    expect(Either.isRight(checkText({ type: "string", format: "date" }, "2024-02-29", true))).toBe(true)
    expect(Either.isLeft(checkText({ type: "string", format: "uri" }, "not a uri", true))).toBe(true)
    expect(Either.isRight(checkText({ type: "string", format: "date-time" }, "2024-01-02T03:04:05Z", true))).toBe(true)
    expect(checkText({ type: "string", minLength: 3 }, "ab", true)).toStrictEqual(
      Either.left("enter at least 3 characters")
    )
    const integer = { type: "integer", minimum: 1, maximum: 100 } as const
    expect(checkText(integer, "500", true)).toStrictEqual(Either.left("enter at most 100"))
    expect(checkText(integer, "1.5", true)).toStrictEqual(Either.left("enter a whole number"))
    expect(checkText(integer, "7", true)).toStrictEqual(Either.right(7))
    expect(checkText(integer, "", false)).toStrictEqual(Either.right(undefined))
    expect(checkText(integer, "", true)).toStrictEqual(Either.left("a value is required"))
  })
})

describe("on a terminal", () => {
  it("draws a live line: it moves between the server's updates and shows n/total, a bar and the time", async () => {
    const run = startOnTerminal([
      "tools",
      "call",
      "trigger-long-running-operation",
      "duration:=3",
      "steps:=3",
      ...everythingStdio
    ])
    const { code, screen } = await run.finished
    expect(code).toBe(0)
    const frames = screen
      .replace(ANSI, "")
      .split("\r")
      .map((frame) => frame.trim())
    expect(frames.some((frame) => /calling trigger-long-running-operation {2}1\/3 \[#+-+\] {2}\ds$/.test(frame))).toBe(
      true
    )
    // Redrawn while the server is silent: several frames show the same count with other glyphs.
    const glyphs = new Set(frames.filter((frame) => frame.includes(" 1/3 ")).map((frame) => frame[0]))
    expect(glyphs.size).toBeGreaterThan(1)
    expect(screen).toMatch(/Long running operation completed/)
  })

  it("shows a URL elicitation's question at once and draws no line over it", async () => {
    const run = startOnTerminal([
      "tools",
      "call",
      "trigger-url-elicitation",
      "url=https://example.com/consent",
      ...everythingStdio
    ])
    const asked = await run.waitFor("Open example.com and continue there?")
    await new Promise((resolve) => setTimeout(resolve, 400))
    // Nothing redrawn over the question while it waits for the user.
    expect(run.screen().slice(asked)).not.toMatch(/calling trigger-url-elicitation/)
    await run.type("n")
    const { code, screen } = await run.finished
    expect(code).toBe(0)
    expect(screen).toMatch(/decline/i)
  })

  it("shows the URL of a -32042 error, offers to open it, and says to retry", async () => {
    const run = startOnTerminal([
      "tools",
      "call",
      "trigger-url-elicitation",
      "url=https://example.com/consent",
      "errorPath:=true",
      ...everythingStdio
    ])
    // The reference server sends its own prerequisite URL.
    const shown = await run.waitFor(/needs you to open https:\/\/modelcontextprotocol\.io/)
    await run.waitFor("in your browser?", shown)
    await run.type("n")
    const { code, screen } = await run.finished
    expect(screen).toMatch(/when you are done there, run the same command again/)
    // The server refused the call until the user has been there: the server's error, exit 1.
    expect(code).toBe(1)
  })

  it("asks a form field again with the reason when the answer does not fit", async () => {
    const run = startOnTerminal(["tools", "call", "trigger-elicitation-request", ...everythingStdio])
    let at = await run.waitFor("accept (fill in the form)")
    await run.type("\r")
    at = await run.waitFor("String", at)
    await run.type("Ada\r")
    at = await run.waitFor("Boolean", at)
    await run.type("y")
    at = await run.waitFor("String with default", at)
    await run.type("\r")
    at = await run.waitFor("String with email format", at)
    await run.type("not-an-email\r")
    at = await run.waitFor("enter an email address", at)
    // Still on the same field: erase and answer again.
    await run.type(`${"\x7f".repeat(12)}ada@example.com\r`)
    at = await run.waitFor("String with uri format", at)
    await run.type("\r")
    at = await run.waitFor("String with date format", at)
    await run.type("\r")
    at = await run.waitFor("Integer", at)
    await run.type("\r")
    at = await run.waitFor("Number in range", at)
    await run.type("\r")
    at = await run.waitFor("Untitled Single Select Enum", at)
    await run.type("\r")
    at = await run.waitFor("Untitled Multiple Select Enum", at)
    await run.type("\r")
    at = await run.waitFor("Titled Single Select Enum", at)
    await run.type("\r")
    at = await run.waitFor("Titled Multiple Select Enum", at)
    await run.type("\r")
    at = await run.waitFor("Legacy Titled Single Select Enum", at)
    await run.type("\r")
    const { code, screen } = await run.finished
    expect(screen).toMatch(/Email: ada@example.com/)
    expect(code).toBe(0)
  }, 40_000)
})

describe("while a server starts", () => {
  /** A stdio server that starts only once `gate` exists (the test opens it when it has seen what it waits for). */
  const gated = () => {
    const dir = mkdtempSync(join(tmpdir(), "effect-mcp-gate-"))
    const gate = join(dir, "open")
    const script = `while [ ! -e '${gate}' ]; do sleep 0.05; done; exec '${process.execPath}' '${everything}' stdio`
    return { gate, server: ["--", "sh", "-c", script] }
  }

  it("a terminal shows `starting <command>` from the first moment, and the line goes once connected", async () => {
    const { gate, server } = gated()
    const run = startOnTerminal(["ping", ...server], { env: { NO_COLOR: "1" } })
    const shown = await run.waitFor("starting sh -c while")
    expect(existsSync(gate)).toBe(false)
    writeFileSync(gate, "")
    const { code, screen } = await run.finished
    expect(code).toBe(0)
    const after = screen.slice(shown).replace(ANSI, "")
    expect(after).toMatch(/pong from .* in [\d.]+ ms/)
    // The last frame of the line is erased: nothing of it follows the answer.
    expect(after.slice(after.search(/pong from/))).not.toContain("starting")
  })

  it("off a terminal nothing is printed for it", async () => {
    const { gate, server } = gated()
    writeFileSync(gate, "")
    const piped = await runPiped(["ping", ...server])
    expect(piped.code).toBe(0)
    expect(piped.stderr).not.toContain("starting")
  })
})

describe("progress and the timeout", () => {
  const longRun = ["tools", "call", "trigger-long-running-operation", "duration:=4", "steps:=8"]

  it("a call that reports progress faster than --timeout lives past it; --max-time bounds it", async () => {
    // Progress every 0.5 s for 4 s, with 1 s allowed between reports: the call ends as the server ends it.
    const alive = await runPiped([...longRun, "--timeout", "1", ...everythingStdio])
    expect(alive.stderr).not.toContain("timed out")
    expect(alive.code).toBe(0)
    expect(alive.stdout).toContain("Long running operation completed")
    // However much progress comes, --max-time ends it.
    const bounded = await runPiped([...longRun, "--timeout", "1", "--max-time", "2", ...everythingStdio])
    expect(bounded.stderr).toContain("tools/call timed out after 2s")
    expect(bounded.code).not.toBe(0)
  })
})
