/**
 * Interactive elicitation through a real pseudo-terminal (`script` from util-linux): the user
 * answers prompts built from the server's form, or declines; a text field is edited with the
 * shell's keys and checked as it is entered.
 */

import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import { startOnTerminal } from "./support/pty.js"

const testServer = fileURLToPath(new URL("fixtures/test-server.mjs", import.meta.url))
/** Runs `effect-mcp tools call <tool>` on a pseudo-terminal, typing each answer when its prompt shows. */
const converse = async (steps: ReadonlyArray<readonly [prompt: string, keys: string]>, tool = "ask") => {
  const received = join(mkdtempSync(join(tmpdir(), "effect-mcp-pty-")), "received.log")
  writeFileSync(received, "")
  const terminal = startOnTerminal(["tools", "call", tool, "--", process.execPath, testServer, received], {
    env: { NO_COLOR: "1" }
  })
  let step = 0
  terminal.child.stdout?.on("data", () => {
    const screen = terminal.screen()
    const next = steps[step]
    if (next !== undefined && screen.lastIndexOf(next[0]) > screen.lastIndexOf("✔")) {
      step += 1
      // Typed like a person, a moment after the prompt shows.
      setTimeout(() => terminal.child.stdin?.write(next[1]), 300)
    }
  })
  const { code, screen } = await terminal.finished
  return { code, screen, received: readFileSync(received, "utf8") }
}

const answerOf = (received: string) =>
  received
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { id?: unknown; result?: unknown })
    .find((message) => message.id === "elicit-1")?.result

describe("elicitation on a terminal", () => {
  it("asks field by field (default first, enums as selects) and sends the answers", async () => {
    const { code, screen, received } = await converse([
      ["accept (fill in the form)", "\r"],
      ["Your name", "Ada\r"],
      ["Favourite colour", "\x1b[B\r"],
      ["Subscribe", "n"],
      ["Age", "42\r"]
    ])
    expect(code).toBe(0)
    expect(answerOf(received)).toStrictEqual({
      action: "accept",
      content: { name: "Ada", color: "red", subscribe: false, age: 42 }
    })
    // The spinner is paused while the user answers.
    const [start, end] = [screen.indexOf("Tell us about you"), screen.lastIndexOf("Age")]
    expect(0 <= start && start < end, screen).toBe(true)
    expect(screen.slice(start, end)).not.toMatch(/calling ask/)
  })

  it("lets the user decline", async () => {
    const { code, received } = await converse([["accept (fill in the form)", "\x1b[B\r"]])
    expect(code).toBe(0)
    expect(answerOf(received)).toStrictEqual({ action: "decline" })
  })

  it("an optional choice can be skipped; a multiple choice says how to choose", async () => {
    const { code, screen, received } = await converse(
      [
        ["accept (fill in the form)", "\r"],
        // small, large, (skip)
        ["Size", "\x1b[B\x1b[B\r"],
        // Select All, Inverse Selection, cheese, …
        ["Toppings", "\x1b[B\x1b[B \r"]
      ],
      "ask-choices"
    )
    expect(code, screen).toBe(0)
    expect(screen).toContain("(skip)")
    expect(screen).toContain("space toggles, enter confirms")
    expect(answerOf(received)).toStrictEqual({ action: "accept", content: { toppings: ["cheese"] } })
  })

  it("a text field is edited as in a shell: Ctrl-U, Ctrl-A/E, Ctrl-W, Backspace, arrows and Delete", async () => {
    const [left, right, del] = ["\x1b[D", "\x1b[C", "\x1b[3~"]
    const { code, screen, received } = await converse(
      [
        ["accept (fill in the form)", "\r"],
        // abc, Ctrl-U: Zed; Ctrl-A: Dr Zed; Ctrl-E: Dr Zed Smith, Ctrl-W: Dr Zed, Backspace: Dr Zed;
        // three left, Delete: Dr ed; N: Dr Ned.
        ["Your name", `abc\x15Zed\x01Dr \x05 Smith\x17\x7f${left}${left}${left}${del}N${right}\r`],
        ["Email", "ada@example.com\r"],
        ["Age", "42\r"]
      ],
      "ask-contact"
    )
    expect(code, screen).toBe(0)
    expect(answerOf(received)).toStrictEqual({
      action: "accept",
      content: { name: "Dr Ned", email: "ada@example.com", age: 42 }
    })
    // What the user sees is what is sent: the answer, and no control character drawn.
    expect(screen).toContain("Dr Ned")
    for (const key of ["\x15", "\x01", "\x05", "\x17"]) expect(screen).not.toContain(key)
  })

  it("a field the server's schema would refuse is asked again with what was typed, until it is right", async () => {
    const home = "\x01"
    const { code, screen, received } = await converse(
      [
        ["accept (fill in the form)", "\r"],
        // One character: shorter than the field's minLength of 2.
        ["Your name", "A\r"],
        ["enter at least 2 characters", "da\r"],
        // An underscore is no part of a domain name (the server's `format: email` refuses it).
        ["Email", "ada@exa_mple.com\r"],
        // Asked again with the text as typed: seven to the right, Delete takes the underscore.
        ["enter an email address", `${home}${"\x1b[C".repeat(7)}\x1b[3~\r`],
        ["Age", "abc\r"],
        ["enter a whole number", "\x15200\r"],
        ["enter at most 150", "\x1542\r"]
      ],
      "ask-contact"
    )
    expect(code, screen).toBe(0)
    expect(answerOf(received)).toStrictEqual({
      action: "accept",
      content: { name: "Ada", email: "ada@example.com", age: 42 }
    })
  })

  it("Ctrl-C in a form: the line ends, the server is answered cancel, the command exits 130", async () => {
    const { code, screen, received } = await converse([
      ["accept (fill in the form)", "\r"],
      ["Your name", "\x03"]
    ])
    expect(code, screen).toBe(130)
    expect(answerOf(received)).toStrictEqual({ action: "cancel" })
    // The question's line is ended; ^C and the one line follow, each on its own.
    const lines = screen.split("\r\n").map((line) => line.split("\r").at(-1)?.replaceAll("\x1b[2K", ""))
    expect(lines.slice(-3)).toStrictEqual(["^C", "cancelled: tools call ask", ""])
    expect(lines.at(-4)).toMatch(/Your name/)
    expect(screen.match(/cancelled: /g)).toHaveLength(1)
  })
})
