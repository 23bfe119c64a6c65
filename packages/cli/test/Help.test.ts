/**
 * Help as a user reads it, from the built binary: a short root help, per-command usage with
 * the full path and examples, the shared connection options described once, "did you mean"
 * for mistyped commands, wrapping to the terminal's width on a terminal and none off one.
 */
import { describe, expect, it } from "@effect/vitest"
import { run } from "./support/cli.js"
import { runOnTerminal } from "./support/pty.js"

describe.concurrent("help", () => {
  it("the root help is short: one line per command, no filler, the connection options not repeated", async () => {
    for (const words of [[], ["--help"], ["help"]]) {
      const help = await run(words)
      expect(help.code).toBe(0)
      const lines = help.stdout.trimEnd().split("\n")
      expect(lines.length).toBeLessThan(40)
      expect(help.stdout).toMatch(/^Usage: effect-mcp <command>/m)
      expect(help.stdout).toMatch(/^ {2}tools +List, show and call tools\.$/m)
      expect(help.stdout).toMatch(/effect-mcp help connect/)
      expect(help.stdout).not.toMatch(/A user-defined piece of text|This setting is optional|--inherit-env/)
    }
  })

  it("a command's help: usage with its full path, its own options, examples, connection options once", async () => {
    const help = await run(["tools", "call", "--help"])
    expect(help.code).toBe(0)
    expect(help.stdout).toMatch(
      /^Usage: effect-mcp tools call <tool> <key=value \| key:=json>\.\.\. \[options\] \[server\]$/m
    )
    expect(help.stdout).toMatch(/^ {2}--task +Run the tool as a task/m)
    expect(help.stdout).toMatch(/^Examples?:\n {2}effect-mcp tools call get-sum a=2 b:=3/m)
    expect(help.stdout).not.toMatch(/--inherit-env|--sampling-command|A user-defined piece of text/)
    expect(help.stdout).toMatch(/more: effect-mcp help connect/)
    const same = await run(["help", "tools", "call"])
    expect(same.stdout).toBe(help.stdout)
    const host = await run(["host", "call", "--help"])
    expect(host.stdout).toMatch(/^Usage: effect-mcp host call <server__tool>/m)
    expect(host.stdout).toMatch(/^Shared options: --config, --json, .*; see effect-mcp help connect$/m)
    const group = await run(["tools"])
    expect(group.code).toBe(0)
    expect(group.stdout).toMatch(/^ {2}tools show +Show one tool/m)
  })

  it("help connect describes every shared option once", async () => {
    const help = await run(["help", "connect"])
    expect(help.code).toBe(0)
    for (const option of [
      "--stdio",
      "--url",
      "--server",
      "--config",
      "--header",
      "--env",
      "--json",
      "--timeout",
      "--root"
    ])
      expect(help.stdout.match(new RegExp(`^ {2}${option}\\b`, "gm"))).toHaveLength(1)
    expect(help.stdout).toMatch(/--timeout SECONDS +Seconds to wait for each request/)
    // Values named by what they are, not by the parser's type.
    expect(help.stdout).toMatch(/--client-secret SECRET +OAuth: that client's secret/)
    expect(help.stdout).not.toMatch(/ (float|redacted) /)
    expect(help.stdout).not.toMatch(/\(repeatable\) \(repeatable\)/)
  })

  it("a mistyped command: did you mean, exit 2", async () => {
    const typo = await run(["tools", "lst"])
    expect(typo.code).toBe(2)
    expect(typo.stderr).toMatch(/^error: effect-mcp tools has no command "lst"; did you mean "tools list"\?/)
    const root = await run(["inspekt", "--server", "x"])
    expect(root.code).toBe(2)
    expect(root.stderr).toMatch(/did you mean "inspect"\?/)
  })

  it("off a terminal nothing wraps; on one, lines fit its width and words stay whole", async () => {
    const piped = await run(["help", "connect"])
    expect(piped.stdout).toMatch(/^ {2}--config file +The config file \(default: .*Claude's\)$/m)
    const { code, screen } = await runOnTerminal(["help", "connect"], { columns: 60, env: { NO_COLOR: "1" } })
    expect(code).toBe(0)
    // Example command lines are kept whole, to be copied.
    const lines = screen.split("\r\n").filter((line) => line !== "" && !line.startsWith("  effect-mcp "))
    expect(
      lines.every((line) => line.length <= 60),
      screen
    ).toBe(true)
    const words = (text: string) => new Set(text.split(/\s+/).filter((word) => word !== ""))
    expect(words(screen)).toStrictEqual(words(piped.stdout))
  })

  it("option mistakes name the option: unknown ones with did-you-mean, missing and mistyped values (exit 2)", async () => {
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
      [
        ["ping", "--jsn"],
        "error: effect-mcp ping has no option --jsn (did you mean --json?)\nSee effect-mcp ping --help."
      ],
      [["tools", "call", "echo", "--tsk"], "error: effect-mcp tools call has no option --tsk (did you mean --task?)"],
      [["ping", "--timeout", "abc"], 'error: --timeout takes a number of seconds, more than 0, not "abc"'],
      [["ping", "--timeout=abc"], 'error: --timeout takes a number of seconds, more than 0, not "abc"'],
      [["ping", "--retry", "2.5"], 'error: --retry takes a whole number, not "2.5"'],
      [["ping", "--server"], "error: --server needs a value"],
      [["ping", "--server", "--verbose"], "error: --server needs a value"],
      [
        ["ping", "--transport", "htp"],
        'error: --transport takes one of auto, http, sse, not "htp" (did you mean http?)'
      ],
      [["--jsn", "ping"], "error: effect-mcp ping has no option --jsn (did you mean --json?)"]
    ]
    const results = await Promise.all(cases.map(([words]) => run([...words, "--", "never-started"])))
    results.forEach((result, index) => {
      const [words, expected] = cases[index] ?? [[], ""]
      expect([words, result.code, result.stderr]).toStrictEqual([words, 2, expect.stringContaining(expected)])
      expect(result.stdout).toBe("")
    })
  })

  it("under --json every usage error is one JSON object, options and commands alike", async () => {
    for (const words of [
      ["ping", "--json", "--jsn"],
      ["--json", "ping", "--timeout", "x"],
      ["tools", "cal", "--json"]
    ]) {
      const result = await run([...words, "--", "never-started"])
      expect(result.code).toBe(2)
      expect(JSON.parse(result.stderr)).toMatchObject({ error: { kind: "UsageError", exitCode: 2 } })
    }
  })

  it("help help is the root help, not a did-you-mean", async () => {
    const result = await run(["help", "help"])
    expect([result.code, result.stdout]).toStrictEqual([
      0,
      expect.stringMatching(/^effect-mcp .*\n\nUsage: effect-mcp <command>/)
    ])
  })
})
