/**
 * How tools read, on the built binary against the reference server: signatures, titles and
 * hints in `tools list` and `inspect`, `tools show NAME`, "did you mean" for a mistyped tool,
 * no wrapping off a terminal and wrapping to the terminal's width on one.
 */
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import { closest, distance } from "../src/internal/closest.js"
import { everythingStdio, run } from "./support/cli.js"
import { runOnTerminal } from "./support/pty.js"

describe("closest names", () => {
  it("finds typos, swaps and parts; nothing for unrelated words", () => {
    expect(distance("lst", "list")).toBe(1)
    expect(distance("lsit", "list")).toBe(1)
    expect(closest("lst", ["list", "call", "show"])).toStrictEqual(["list"])
    expect(closest("get-sun", ["get-sum", "get-env", "echo"])).toStrictEqual(["get-sum"])
    expect(closest("sum", ["get-sum", "echo"])).toStrictEqual(["get-sum"])
    expect(closest("zzzzzz", ["list", "call"])).toStrictEqual([])
  })
})

describe("tools", () => {
  it("tools list: one line per tool off a terminal, with signature, title and hints", async () => {
    const listed = await run(["tools", "list", ...everythingStdio])
    expect(listed.code).toBe(0)
    const lines = listed.stdout.trimEnd().split("\n")
    const sum = lines.find((line) => line.startsWith("get-sum "))
    expect(sum).toMatch(
      /^get-sum a:number b:number +Get Sum Tool: Returns the sum of two numbers \(read-only, idempotent\)$/
    )
    expect(lines.find((line) => line.startsWith("get-resource-links "))).toMatch(
      /^get-resource-links \[count:number\] /
    )
    // Nothing wraps into a pipe: every line starts with a tool's name.
    expect(lines.every((line) => /^[a-z]/.test(line))).toBe(true)
  })

  it("tools list on a terminal wraps to its width", async () => {
    const { code, screen } = await runOnTerminal(["tools", "list", ...everythingStdio], {
      env: { NO_COLOR: "1" },
      columns: 70
    })
    expect(code).toBe(0)
    // What the terminal shows of each line: the text after its last carriage return (the live
    // line while the server starts is redrawn and erased there), without escape sequences.
    const lines = screen
      .split(/\r?\n/)
      .map((line) =>
        (line.split("\r").at(-1) ?? "").replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;?]*[A-Za-z]`, "g"), "")
      )
      .filter((line) => line.trim() !== "")
    expect(lines.length).toBeGreaterThan(15)
    expect(lines.every((line) => line.length <= 70)).toBe(true)
  })

  it("tools show NAME: description, input and output as a tree, hints, task support", async () => {
    const shown = await run(["tools", "show", "get-structured-content", ...everythingStdio])
    expect(shown.code).toBe(0)
    expect(shown.stdout).toContain("get-structured-content — Get Structured Content Tool")
    expect(shown.stdout).toMatch(
      /input\n {2}location {2}"New York"\|"Chicago"\|"Los Angeles" {2}required {2}Choose city/
    )
    expect(shown.stdout).toMatch(/output\n {2}temperature {2}number {2}required {2}Temperature in celsius/)
    expect(shown.stdout).toMatch(/hints {2}read-only, idempotent/)
    expect(shown.stdout).toMatch(/tasks {2}forbidden/)
    const json = await run(["tools", "show", "get-sum", "--json", ...everythingStdio])
    expect(JSON.parse(json.stdout)).toMatchObject({ tool: { name: "get-sum", annotations: { readOnlyHint: true } } })
  })

  it("key=value is read by the input schema: a string stays as typed, a number is read as one", async () => {
    for (const [value, echoed] of [
      ["123", "Echo: 123"],
      ["true", "Echo: true"],
      ["null", "Echo: null"]
    ] as const) {
      const called = await run(["tools", "call", "echo", `message=${value}`, ...everythingStdio])
      expect(called.code, called.stderr).toBe(0)
      expect(called.stdout.trim()).toBe(echoed)
    }
    const sum = await run(["tools", "call", "get-sum", "a=2", "b=3.5", ...everythingStdio])
    expect(sum.code, sum.stderr).toBe(0)
    expect(sum.stdout).toContain("5.5")
    const wrong = await run(["tools", "call", "get-sum", "a=two", "b=3", ...everythingStdio])
    expect(wrong.code).toBe(2)
    expect(wrong.stderr).toContain('a=two: "a" takes a number (write a:=<json> to give any JSON value)')
    const forced = await run(["tools", "call", "echo", "message:=123", ...everythingStdio])
    expect(forced.code).toBe(2)
    expect(forced.stderr).toMatch(/message must be string.*key:=<json> gives any JSON value/)
  })

  it("a mistyped tool names the closest ones, not every tool", async () => {
    const shown = await run(["tools", "call", "get-sun", "a:=1", "b:=2", ...everythingStdio])
    expect(shown.code).toBe(2)
    expect(shown.stderr).toMatch(/has no tool named "get-sun" \(did you mean get-sum/)
    expect(shown.stderr).not.toMatch(/toggle-simulated-logging/)
  })

  it("inspect shows signatures and hints", async () => {
    const inspected = await run(["inspect", ...everythingStdio])
    expect(inspected.code).toBe(0)
    expect(inspected.stdout).toMatch(/ {2}get-sum a:number b:number +Get Sum Tool: .*\(read-only, idempotent\)/)
  })
})

describe("arguments the schema does not have", () => {
  const testServer = fileURLToPath(new URL("fixtures/test-server.mjs", import.meta.url))

  it("a misspelled argument is named before sending: refused when the schema forbids it, a warning otherwise", async () => {
    const received = join(mkdtempSync(join(tmpdir(), "effect-mcp-strict-")), "received.log")
    const strict = await run(["tools", "call", "strict", "duraton=1", "--", process.execPath, testServer, received])
    expect(strict.code).toBe(2)
    expect(strict.stderr).toContain('strict has no argument "duraton" (did you mean duration?)')
    expect(readFileSync(received, "utf8")).not.toContain('"tools/call"')
    // The reference server's schemas allow other properties: sent, with a warning naming it.
    const loose = await run([
      "tools",
      "call",
      "trigger-long-running-operation",
      "duration:=1",
      "steps:=1",
      "stesp=2",
      ...everythingStdio
    ])
    expect(loose.code).toBe(0)
    expect(loose.stderr).toContain(
      'warning: trigger-long-running-operation has no argument "stesp" (did you mean steps?); sent as given'
    )
  })
})

describe("a structured result", () => {
  it("is printed once: its text, not the same JSON again; --json gives the structured content", async () => {
    const called = await run(["tools", "call", "get-structured-content", "location=Chicago", ...everythingStdio])
    expect(called.code).toBe(0)
    expect(called.stdout).not.toContain("structured content")
    const lines = called.stdout.trimEnd().split("\n")
    expect(lines).toHaveLength(1)
    expect(JSON.parse(lines[0] ?? "")).toMatchObject({ temperature: expect.any(Number) })
    const json = await run([
      "tools",
      "call",
      "get-structured-content",
      "location=Chicago",
      "--json",
      ...everythingStdio
    ])
    expect(JSON.parse(json.stdout)).toMatchObject({ structuredContent: { temperature: expect.any(Number) } })
  })
})
