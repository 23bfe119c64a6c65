/**
 * What a person sees, on a real pseudo-terminal and piped: a hostile server's control
 * sequences never reach the terminal (our own colours do), logs go to stderr once and
 * readably, an inline server is called by the name it reports, and signals end a run with
 * their exit code (Ctrl-C saying what it cancelled) and without leaving the server behind.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import { isAlive } from "../../client/test/support/processes.js"
import { eventually, everything, everythingStdio, run, start } from "./support/cli.js"
import { descendantsOf, runOnTerminal, startOnTerminal } from "./support/pty.js"

const hostile = ["--", process.execPath, fileURLToPath(new URL("fixtures/hostile-server.mjs", import.meta.url))]

/** The server's control sequences, none of which may reach the terminal. */
const FOREIGN = [
  ["OSC", "\x1b]0;"],
  ["OSC payload", "PWNED"],
  ["CSI red", "\x1b[31m"],
  ["8-bit OSC", "\u009d"],
  ["8-bit CSI", "\u009b"],
  ["DCS", "\x1bP"]
] as const

/** No control sequence of the server's in `screen` (nor the OSC's payload, unless it is shown as JSON text). */
const expectClean = (screen: string, json = false) => {
  for (const [name, sequence] of FOREIGN)
    if (!json || name !== "OSC payload") expect([name, screen.includes(sequence)]).toStrictEqual([name, false])
}

describe.concurrent("a server's text on a terminal", () => {
  it("inspect: name, instructions, descriptions without the server's control sequences; our colours stay", async () => {
    const { code, screen } = await runOnTerminal(["inspect", ...hostile])
    expect(code, screen).toBe(0)
    expectClean(screen)
    expect(screen).toMatch(/<title RED +RED8 >/)
    expect(screen).toMatch(/<instructions RED +RED8 >/)
    expect(screen).toMatch(/evil +<description-evil RED +RED8 >/)
    expect(screen).toMatch(/<resource-name RED +RED8 >/)
    expect(screen).toMatch(/greet +<prompt-description RED +RED8 >/)
    expect(screen).toContain("\x1b[1mtools (3)\x1b[0m")
  })

  it("tools call: the result, the server's log message; an error quoting the server", async () => {
    const called = await runOnTerminal(["tools", "call", "evil", ...hostile])
    expect(called.code, called.screen).toBe(0)
    expectClean(called.screen)
    expect(called.screen).toMatch(/<result RED +RED8 >/)
    expect(called.screen).toMatch(/\[error\] <log RED +RED8 >/)
    const failed = await runOnTerminal(["tools", "call", "fail", ...hostile])
    // The server refused the call (a JSON-RPC error): the server's error, exit 1.
    expect(failed.code, failed.screen).toBe(1)
    expectClean(failed.screen)
    expect(failed.screen).toMatch(/tools\/call failed: <error RED +RED8 >/)
  })

  it("prompts, resources, tools list and logged protocol violations", async () => {
    const screens = await Promise.all(
      [
        ["prompts", "get", "greet"],
        ["prompts", "list"],
        ["resources", "list"],
        ["resources", "read", "evil://doc"],
        ["tools", "list"],
        ["tools", "call", "noise"]
      ].map((command) => runOnTerminal([...command, ...hostile]))
    )
    for (const { code, screen } of screens) {
      expect(code, screen).toBe(0)
      expectClean(screen)
    }
    const [prompt, prompts, resources, read, tools, noise] = screens.map(({ screen }) => screen)
    expect(prompt).toMatch(/<prompt RED +RED8 >[\s\S]*<prompt-message RED +RED8 >/)
    expect(prompts).toMatch(/<prompt-description RED +RED8 >/)
    expect(resources).toMatch(/<resource-name RED +RED8 >/)
    expect(read).toMatch(/<resource-text RED +RED8 >/)
    expect(tools).toMatch(/<description-fail RED +RED8 >/)
    expect(noise).toMatch(/not json <noise RED +RED8 >/)
  })

  it("--json escapes C1 controls too (the same JSON value)", async () => {
    const { code, screen } = await runOnTerminal(["tools", "call", "evil", "--json", ...hostile])
    expect(code, screen).toBe(0)
    expectClean(screen, true)
    const json = screen.slice(screen.indexOf("{"), screen.lastIndexOf("}") + 1)
    expect(JSON.parse(json).content[0].text).toContain("\u009b31mRED8")
  })
})

describe.concurrent("logs", () => {
  it("go to stderr once; stdout carries only the result", async () => {
    const piped = await run(["tools", "call", "noise", "--json", ...hostile])
    expect(piped.code, piped.stderr).toBe(0)
    expect(JSON.parse(piped.stdout)).toStrictEqual({ content: [{ type: "text", text: "quiet" }] })
    expect(piped.stderr.match(/protocol violation/g)).toHaveLength(3)
    const { screen } = await runOnTerminal(["tools", "call", "noise", ...hostile])
    expect(screen.match(/protocol violation/g)).toHaveLength(3)
    expect(screen).not.toMatch(/WARN/)
  })

  it("show structured values readably, not as [object Object]", async () => {
    const result = await run(["tools", "call", "noise", ...hostile])
    expect(result.stderr).not.toContain("[object Object]")
    expect(result.stderr).toMatch(/^warn: mcp protocol violation \(malformed\) from \S+ \{ hello: 'world' \}$/m)
    expect(result.stderr).toMatch(/^warn: mcp protocol violation \(unknown-id\) from \S+ \{ id: 99999 \}$/m)
  })
})

describe.concurrent("an inline server's name", () => {
  it("is the name it reports, once known (not its file's name)", async () => {
    const failed = await run(["tools", "call", "fail", ...hostile])
    expect(failed.stderr).toMatch(/^error: hostile-corp: tools\/call failed: /m)
    const json = await run(["tools", "call", "fail", "--json", ...hostile])
    expect(JSON.parse(json.stderr).error).toMatchObject({
      server: "hostile-corp",
      message: expect.stringMatching(/^hostile-corp: /)
    })
    const unknown = await run(["tools", "call", "nope", ...hostile])
    expect(unknown.stderr).toMatch(/^error: hostile-corp has no tool named "nope"/m)
    const ping = await run(["ping", ...hostile])
    expect(ping.stdout).toMatch(/^pong from hostile-corp in /)
  })
})

describe.concurrent("a script's label before the handshake", () => {
  it("is its package's name, not the file's (index)", async () => {
    // The reference server started as `node …/dist/index.js`.
    const verbose = await run(["tools", "list", "--verbose", ...everythingStdio])
    expect(verbose.code, verbose.stderr).toBe(0)
    expect(verbose.stderr).not.toMatch(/\bindex\b/)
    expect(verbose.stderr).toMatch(/mcp\.server=@modelcontextprotocol\/server-everything/)
    // A server that dies before it could say its name is called by its package's.
    const project = mkdtempSync(join(tmpdir(), "effect-mcp-label-"))
    mkdirSync(join(project, "dist"))
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "acme-weather", version: "1.0.0" }))
    writeFileSync(join(project, "dist", "index.js"), 'console.error("no API key"); process.exit(1)\n')
    const died = await run(["tools", "list", "--", process.execPath, join(project, "dist", "index.js")])
    expect(died.code).toBe(3)
    expect(died.stderr).toMatch(/^error: acme-weather: the server process exited with code 1$/m)
  })
})

describe("signals during a long call", () => {
  const long = ["tools", "call", "trigger-long-running-operation", "duration:=60", "steps:=60", ...everythingStdio]

  it("SIGTERM ends it with 143, quietly, and the server is gone", async () => {
    const started = start(long)
    await eventually(() => /progress trigger-long-running-operation: 1/.test(started.stderr()), "progress")
    const servers = descendantsOf(started.child.pid ?? 0)
    expect(servers.length).toBeGreaterThan(0)
    started.child.kill("SIGTERM")
    const result = await started.finished
    expect([result.code, result.stdout]).toStrictEqual([143, ""])
    expect(result.stderr).not.toMatch(/cancelled|error/)
    await eventually(() => servers.every((server) => !isAlive(server)), "the server process to end", 10_000)
  })

  it("Ctrl-C says what it cancelled at once, before a slow server has been shut down", async () => {
    // A server that ignores SIGTERM: shutting it down takes the whole shutdown sequence (seconds).
    const stubborn = [
      "tools",
      "call",
      "trigger-long-running-operation",
      "duration:=60",
      "steps:=60",
      "--",
      "sh",
      "-c",
      `trap "" TERM; exec '${process.execPath}' '${everything}' stdio`
    ]
    const started = start(stubborn)
    await eventually(() => /progress trigger-long-running-operation: 1/.test(started.stderr()), "progress")
    const servers = descendantsOf(started.child.pid ?? 0)
    expect(servers.length).toBeGreaterThan(0)
    started.child.kill("SIGINT")
    await eventually(() => started.stderr().includes("cancelled: tools call"), "the cancelled line")
    // Said while the server is still being shut down (it goes only at the end of the sequence).
    expect(servers.some(isAlive)).toBe(true)
    const result = await started.finished
    expect(result.code).toBe(130)
    expect(result.stderr.match(/cancelled: /g)).toHaveLength(1)
  })

  it("SIGINT ends it with 130 and one line saying what was cancelled", async () => {
    const started = start(long)
    await eventually(() => /progress trigger-long-running-operation: 1/.test(started.stderr()), "progress")
    const servers = descendantsOf(started.child.pid ?? 0)
    started.child.kill("SIGINT")
    const result = await started.finished
    expect(result.code).toBe(130)
    const lines = result.stderr.trimEnd().split("\n")
    expect(lines.filter((line) => !line.startsWith("progress "))).toStrictEqual([
      "cancelled: tools call trigger-long-running-operation"
    ])
    await eventually(() => servers.every((server) => !isAlive(server)), "the server process to end", 10_000)
  })

  it("Ctrl-C on a terminal: 130, the spinner cleared, one line, no server left", async () => {
    const started = startOnTerminal(long)
    await eventually(() => /calling trigger-long-running-operation {2}1\//.test(started.screen()), "progress")
    const servers = descendantsOf(started.child.pid ?? 0)
    expect(servers.length).toBeGreaterThan(1)
    started.child.stdin?.write("\x03")
    const { code, screen } = await started.finished
    expect(code, screen).toBe(130)
    expect(screen.match(/cancelled: /g)).toHaveLength(1)
    // The spinner cleared, then ^C and the one line on its own, last.
    expect(screen.endsWith("\x1b[2K^C\r\ncancelled: tools call trigger-long-running-operation\r\n"), screen).toBe(true)
    await eventually(() => servers.every((server) => !isAlive(server)), "the server process to end", 10_000)
  })

  it("keys typed while the live line runs are not echoed: no frozen line, no letters in it", async () => {
    const started = startOnTerminal([
      "tools",
      "call",
      "trigger-long-running-operation",
      "duration:=4",
      "steps:=4",
      ...everythingStdio
    ])
    const typedAt = await started.waitFor(/calling trigger-long-running-operation {2}1\//)
    await started.type("abc\r")
    await started.type("\r")
    // Typed while it ran: a later frame comes after the keys.
    await started.waitFor(/calling trigger-long-running-operation {2}[34]\//, typedAt)
    const { code, screen } = await started.finished
    expect(code, screen).toBe(0)
    expect(screen.slice(typedAt)).not.toContain("abc")
    // What the terminal shows at the end: no line of the spinner's left behind.
    const shown = screen.split(/\r?\n/).map((line) => line.split("\r").at(-1)?.replaceAll("\x1b[2K", "") ?? "")
    expect(shown.filter((line) => line.includes("calling trigger-long-running-operation"))).toStrictEqual([])
    expect(shown.join("\n")).toContain("Long running operation completed")
  })

  it("Ctrl-C with no line drawn (logs streaming): ^C, then the line on its own", async () => {
    const started = startOnTerminal(["logs", ...everythingStdio])
    await started.waitFor("Ctrl-C to stop")
    await started.type("\x03")
    const { code, screen } = await started.finished
    expect(code, screen).toBe(130)
    // What the terminal shows: the line with ^C ends, and the message starts a line of its own.
    const shown = screen.split("\r\n").map((line) => line.split("\r").at(-1)?.replaceAll("\x1b[2K", ""))
    expect(shown.slice(-3)).toStrictEqual(["^C", "cancelled: logs", ""])
  })
})
