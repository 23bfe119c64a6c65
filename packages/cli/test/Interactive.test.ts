/**
 * Interactive elicitation through a real pseudo-terminal (`script` from util-linux): the user
 * answers prompts built from the server's form, or declines.
 */

import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import { bin } from "./support/cli.js"

const testServer = fileURLToPath(new URL("fixtures/test-server.mjs", import.meta.url))
const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`

/** Runs `effect-mcp tools call <tool>` on a pseudo-terminal, typing each answer when its prompt shows. */
const converse = (steps: ReadonlyArray<readonly [prompt: string, keys: string]>, tool = "ask") =>
  new Promise<{ readonly code: number | null; readonly screen: string; readonly received: string }>(
    (resolve, reject) => {
      const received = join(mkdtempSync(join(tmpdir(), "effect-mcp-pty-")), "received.log")
      writeFileSync(received, "")
      const command = [process.execPath, bin, "tools", "call", tool, "--", process.execPath, testServer, received]
        .map(quote)
        .join(" ")
      const child = spawn("script", ["-qfec", command, "/dev/null"], {
        stdio: ["pipe", "pipe", "pipe"],
        env: { ...process.env, NO_COLOR: "1" }
      })
      let screen = ""
      let step = 0
      child.stdout.on("data", (chunk: Buffer) => {
        screen += chunk.toString()
        const next = steps[step]
        if (next !== undefined && screen.lastIndexOf(next[0]) > screen.lastIndexOf("✔")) {
          step += 1
          // Typed like a person, a moment after the prompt shows.
          setTimeout(() => child.stdin.write(next[1]), 300)
        }
      })
      const timer = setTimeout(() => {
        child.kill("SIGKILL")
        reject(new Error(`the conversation did not end; screen so far:\n${screen}`))
      }, 30_000)
      child.once("exit", (code) => {
        clearTimeout(timer)
        resolve({ code, screen, received: readFileSync(received, "utf8") })
      })
    }
  )

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
