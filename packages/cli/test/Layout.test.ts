/**
 * Text laid out for a terminal, on the built binary in a pseudo-terminal of a known width: long
 * lines wrap between words, and columns line up, counted as the terminal draws them (control
 * sequences take no column, wide characters two).
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { padEnd, pieces, width } from "../src/internal/textWidth.js"
import { everything, everythingStdio, run } from "./support/cli.js"
import { runOnTerminal } from "./support/pty.js"

const COLOURS = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g")

/** The lines a terminal shows: each line as the last of its carriage returns left it, without erasures and colours. */
const shown = (screen: string): ReadonlyArray<string> =>
  screen.split("\r\n").map((line) => (line.split("\r").at(-1) ?? "").replaceAll("\x1b[2K", "").replace(COLOURS, ""))

/** The column where the text after the first run of two or more spaces starts, on lines that have one. */
const secondColumn = (lines: ReadonlyArray<string>): ReadonlyArray<number> =>
  lines.flatMap((line) => {
    const lead = /^(.*?\S) {2,}(?=\S)/.exec(line)
    return lead === null ? [] : [width(line.slice(0, lead[0].length))]
  })

describe("widths", () => {
  it("count what a terminal draws", () => {
    expect(width("abc")).toBe(3)
    expect(width("\x1b[1mbold\x1b[0m")).toBe(4)
    expect(width("天气")).toBe(4)
    expect(width("e\u0301")).toBe(1)
    expect(width("🎉")).toBe(2)
    expect(padEnd("天气", 6)).toBe("天气  ")
    expect(pieces("天气预报", 5)).toStrictEqual(["天气", "预报"])
  })
})

describe.concurrent("on a terminal 60 columns wide", () => {
  it("info: the capabilities wrap between words, under themselves", async () => {
    const piped = await run(["info", ...everythingStdio])
    const capabilities = /^capabilities {2}(.*)$/m.exec(piped.stdout)?.[1] ?? ""
    expect(capabilities.length).toBeGreaterThan(60)
    const { code, screen } = await runOnTerminal(["info", ...everythingStdio], { columns: 60 })
    expect(code, screen).toBe(0)
    const lines = shown(screen)
    const first = lines.findIndex((line) => line.startsWith("capabilities  "))
    const last = lines.findIndex((line) => line.startsWith("instructions"))
    const block = lines.slice(first, last)
    expect(block.length).toBeGreaterThan(1)
    for (const line of block) expect(width(line), line).toBeLessThanOrEqual(60)
    expect(block.slice(1).every((line) => line.startsWith(" ".repeat(14)))).toBe(true)
    // The same words, cut only between them.
    expect(block.map((line) => line.trim().replace(/^capabilities {2}/, "")).join(" ")).toBe(capabilities)
  })
})

describe.concurrent("on a terminal 120 columns wide", () => {
  it("resources list: one row per entry, when its address and name fit the line", async () => {
    const { code, screen } = await runOnTerminal(["resources", "list", ...everythingStdio], { columns: 120 })
    expect(code, screen).toBe(0)
    const lines = shown(screen).filter((line) => line.trim() !== "")
    expect(lines.length).toBeGreaterThan(0)
    for (const line of lines) expect(line, screen).toMatch(/^demo:\/\/\S+ {2,}\S+ \(text\/markdown\)$/)
    expect(new Set(secondColumn(lines)).size).toBe(1)
  })
})

describe.concurrent("columns line up", () => {
  it("help: every section of a page starts its descriptions in one column", async () => {
    for (const page of [
      ["help", "connect"],
      ["help", "tools", "call"]
    ]) {
      const { code, screen } = await runOnTerminal(page, { columns: 100 })
      expect(code, screen).toBe(0)
      const terms = shown(screen).filter((line) => /^ {2}[-<]/.test(line))
      const columns = new Set(secondColumn(terms))
      expect([page.join(" "), columns.size]).toStrictEqual([page.join(" "), 1])
    }
  })

  it("host status: name, transport and status in columns; a long status continues under itself; wide names count twice", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "effect-mcp-layout-"))
    const stdio = { command: process.execPath, args: [everything, "stdio"] }
    writeFileSync(
      join(cwd, ".mcp.json"),
      JSON.stringify({ mcpServers: { 天气: stdio, one: stdio, gone: { command: "no-such-mcp-server-anywhere" } } })
    )
    const { screen } = await runOnTerminal(["host", "status"], { cwd, columns: 80 })
    const lines = shown(screen).filter((line) => line.trim() !== "" && !line.startsWith("error:"))
    const rows = lines.filter((line) => /^\S/.test(line))
    expect(rows.map((line) => line.split(/ +/)[0])).toStrictEqual(["天气", "one", "gone"])
    // The transport column, then the status column, at one place in every row.
    const transport = new Set(rows.map((line) => width(line.slice(0, line.indexOf("stdio")))))
    const status = new Set(rows.map((line) => width(line.slice(0, line.search(/(ready|failed)/)))))
    expect([transport.size, status.size]).toStrictEqual([1, 1])
    // The failure's reason wraps under the status column.
    const continued = lines.filter((line) => /^\s/.test(line))
    expect(continued.length).toBeGreaterThan(0)
    for (const line of continued) expect(line.length - line.trimStart().length).toBe([...status][0])
  })
})
