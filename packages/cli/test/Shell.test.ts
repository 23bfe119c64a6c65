/**
 * `effect-mcp shell` and `effect-mcp host shell` as a person uses them, on a real
 * pseudo-terminal against the reference server: Tab completion of commands, tool names and
 * argument names; server notifications printed above the prompt with the typed line drawn
 * again; Ctrl-C cancelling the running call without leaving; Ctrl-D closing cleanly; history
 * kept per server across sessions. Piped, the shell reads commands as a script.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import { miniServer } from "../../client/test/support/processes.js"
import {
  answered,
  complete,
  firstVariable,
  promptArguments,
  schemaArguments,
  type Vocabulary
} from "../src/shell/Completion.js"
import { COMMANDS } from "../src/shell/ServerShell.js"
import { eventually, everything, everythingStdio, run } from "./support/cli.js"
import { startOnTerminal } from "./support/pty.js"

const PROMPT = "mcp-servers/everything> "
const testServer = fileURLToPath(new URL("fixtures/test-server.mjs", import.meta.url))

describe("completion", () => {
  const vocabulary: Vocabulary = {
    commands: COMMANDS,
    tools: [
      { name: "get-sum", args: schemaArguments({ properties: { a: { type: "number" }, b: { type: "number" } } }) },
      { name: "get-env", args: [] },
      {
        name: "style",
        args: schemaArguments({
          properties: {
            colour: { enum: ["red", "green"] },
            size: { oneOf: [{ const: "s", title: "Small" }, { const: "l" }] },
            bold: { type: "boolean" }
          }
        })
      }
    ],
    resources: ["demo://a", "demo://b"],
    templates: ["demo://text/{id}", "{+path}"],
    prompts: [{ name: "greet", args: promptArguments([{ name: "who" }, { name: "team" }]) }]
  }
  const words = (line: string) => {
    const completion = complete(line, vocabulary)
    return completion._tag === "Candidates" ? [completion.candidates, completion.word] : completion
  }

  it("completes commands, tool names, argument names and resource URIs", () => {
    expect(words("to")).toStrictEqual([["tools "], "to"])
    expect(words("tools c")).toStrictEqual([["call "], "c"])
    expect(words("tools call get-")).toStrictEqual([["get-sum ", "get-env "], "get-"])
    expect(words("tools call get-sum a=1 ")).toStrictEqual([["b="], ""])
    expect(words("resources read demo://")).toStrictEqual([["demo://a ", "demo://b ", "demo://text/"], "demo://"])
    expect(words("prompts get greet w")).toStrictEqual([["who="], "w"])
    expect(words("subscribe demo://b")).toStrictEqual([["demo://b "], "demo://b"])
  })

  it("completes values a tool's schema lists, and options", () => {
    expect(words("tools call style colour=")).toStrictEqual([["colour=red ", "colour=green "], "colour="])
    expect(words("tools call style colour=g")).toStrictEqual([["colour=green "], "colour=g"])
    expect(words("tools call style size:=")).toStrictEqual([["size:=s ", "size:=l "], "size:="])
    expect(words("tools call style bold=")).toStrictEqual([["bold=true ", "bold=false "], "bold="])
    expect(words("tools call get-sum a=")).toStrictEqual([[], "a="])
    expect(words("tools call style --")).toStrictEqual([["--task ", "--out ", "--args "], "--"])
    expect(words("resources read demo://a --o")).toStrictEqual([["--out "], "--o"])
  })

  it("asks the server for a prompt argument's values (with the others given) and a template's variable", () => {
    expect(words("prompts get greet team=eng who=A")).toStrictEqual({
      _tag: "Ask",
      word: "who=A",
      ask: {
        ref: { type: "ref/prompt", name: "greet" },
        argument: "who",
        typed: "A",
        context: { team: "eng" },
        prefix: "who="
      }
    })
    const ask = complete("resources read demo://text/4", vocabulary)
    expect(ask).toStrictEqual({
      _tag: "Ask",
      word: "demo://text/4",
      ask: {
        ref: { type: "ref/resource", uri: "demo://text/{id}" },
        argument: "id",
        typed: "4",
        context: {},
        prefix: "demo://text/"
      }
    })
    if (ask._tag === "Ask") expect(answered(ask.ask, ["4", "42"])).toStrictEqual(["demo://text/4 ", "demo://text/42 "])
    expect(firstVariable("{+path}")).toBeUndefined()
  })

  it("offers a server's values as one word each, and none that would drive the terminal", () => {
    const cities: Vocabulary = {
      ...vocabulary,
      tools: [
        {
          name: "weather",
          args: schemaArguments({ properties: { city: { enum: ["New York", "Paris", "O'Hare\x1b]0;x\x07"] } } })
        }
      ]
    }
    const completion = complete("tools call weather city=New", cities)
    expect(completion).toStrictEqual({ _tag: "Candidates", word: "city=New", candidates: ["city=New\\ York "] })
    const ask = complete("prompts get greet who=", vocabulary)
    if (ask._tag === "Ask") expect(answered(ask.ask, ["Ann Lee", "bad\x9b31m"])).toStrictEqual(["who=Ann\\ Lee "])
  })

  it("a listed URI is offered before a template's variable; of two templates, the longer start", () => {
    const files: Vocabulary = {
      ...vocabulary,
      resources: ["file:///a.txt"],
      templates: ["file:///{path}", "demo://{kind}", "demo://text/{id}"]
    }
    expect(complete("resources read file:///a", files)).toMatchObject({
      _tag: "Candidates",
      candidates: ["file:///a.txt "]
    })
    expect(complete("resources read demo://text/7", files)).toMatchObject({
      _tag: "Ask",
      ask: { argument: "id", typed: "7" }
    })
  })
})

describe("effect-mcp shell", () => {
  it("on a terminal: completion, notifications above the typed line, Ctrl-C, Ctrl-D, history", async () => {
    const state = mkdtempSync(join(tmpdir(), "effect-mcp-shell-"))
    const env = { XDG_STATE_HOME: state, NO_COLOR: "1" }
    const shell = startOnTerminal(["shell", ...everythingStdio], { env, columns: 120, timeoutMs: 90_000 })
    let at = await shell.waitFor(PROMPT)
    // Tab completes the command, the tool's name, then lists its arguments.
    await shell.type("tools ca")
    await shell.type("\t")
    at = await shell.waitFor("tools call ", at)
    await shell.type("get-su")
    await shell.type("\t")
    at = await shell.waitFor("get-sum ", at)
    await shell.type("\t")
    await shell.type("\t")
    at = await shell.waitFor(/a= +b=/, at)
    await shell.type("a=2 b=3\r")
    at = await shell.waitFor("The sum of 2 and 3 is 5.", at)

    // A per-session feature: logging, switched on once, keeps printing while the user types.
    await shell.waitFor(PROMPT, at)
    await shell.type("logs on debug\r")
    at = await shell.waitFor("showing log messages at debug", at)
    await shell.type("tools call toggle-simulated-logging\r")
    at = await shell.waitFor("Started simulated", at)
    at = await shell.waitFor(PROMPT, at)
    await shell.type("tools li")
    at = await shell.waitFor("tools li", at)
    // The next log message goes above, and the prompt with the typed text is drawn again.
    at = await shell.waitFor(/\[\w+\] \w+-level message\r?\n/, at, 30_000)
    at = await shell.waitFor(`${PROMPT}tools li`, at)
    await shell.type("\x15logs off\r")
    at = await shell.waitFor("log messages hidden", at)

    // Ctrl-C cancels the running call; the session goes on.
    await shell.type("tools call trigger-long-running-operation duration:=30 steps:=30\r")
    at = await shell.waitFor(/1\/30 \[/, at)
    await shell.type("\x03")
    at = await shell.waitFor("cancelled: tools call trigger-long-running-operation", at)
    at = await shell.waitFor(PROMPT, at)
    await shell.type("ping\r")
    at = await shell.waitFor("pong in", at)
    // Keys typed while a command runs are not drawn over it; they are the next line, and run.
    await shell.type("tools call trigger-long-running-operation duration:=4 steps:=4\r")
    at = await shell.waitFor(/1\/4 \[/, at)
    // Two lines, the first mistyped and mended (Backspace acts as typed at the prompt).
    await shell.type("pnig\x7f\x7f\x7fing\rtools list\r")
    const typedAt = at
    at = await shell.waitFor(/[34]\/4 \[/, at)
    at = await shell.waitFor("Long running operation completed", at)
    expect(shell.screen().slice(typedAt, at)).not.toMatch(/pnig|ping|tools list/)
    at = await shell.waitFor("pong in", at)
    at = await shell.waitFor("get-annotated-message", at)
    // Ctrl-C at the prompt drops the line, not the session.
    await shell.type("half typed")
    await shell.type("\x03")
    at = await shell.waitFor(PROMPT, at)
    // Ctrl-D leaves cleanly.
    await shell.type("\x04")
    const { code } = await shell.finished
    expect(code).toBe(0)

    // History is kept per server, and offered by the next session (Up arrow).
    const history = readFileSync(join(state, "effect-mcp", "history", "mcp-servers_everything"), "utf8")
    expect(history.trimEnd().split("\n")).toContain("ping")
    const again = startOnTerminal(["shell", ...everythingStdio], { env, columns: 120 })
    const ready = await again.waitFor(PROMPT)
    await again.type("\x1b[A")
    await again.waitFor(`${PROMPT}tools list`, ready)
    await again.type("\x15\x04")
    expect((await again.finished).code).toBe(0)
  }, 120_000)

  it("on a terminal: Tab completes values (a schema's enum, the server's completions) and options; Ctrl-R searches", async () => {
    const state = mkdtempSync(join(tmpdir(), "effect-mcp-shell-values-"))
    const shell = startOnTerminal(["shell", ...everythingStdio], { env: { XDG_STATE_HOME: state }, columns: 120 })
    let at = await shell.waitFor(PROMPT)
    // A tool argument's enum, then a boolean.
    await shell.type("tools call get-annotated-message messageType=su\t")
    at = await shell.waitFor("messageType=success ", at)
    await shell.type("includeImage=f\t")
    at = await shell.waitFor("includeImage=false ", at)
    await shell.type("--ta\t")
    at = await shell.waitFor("--task ", at)
    // A prompt argument's values from the server (completion/complete).
    await shell.type("\x15prompts get completable-prompt department=Eng\t")
    at = await shell.waitFor("department=Engineering ", at)
    // A template's variable from the server.
    await shell.type("\x15resources read demo://resource/dynamic/te\t")
    at = await shell.waitFor("demo://resource/dynamic/text/", at)
    // Its value is the server's: the word ends (readline draws only the space it adds).
    await shell.type("1\t")
    at = await shell.waitFor("1 ", at)
    await shell.type("\x15ping\r")
    at = await shell.waitFor("pong in", at)
    await shell.type("tools list\r")
    at = await shell.waitFor("get-annotated-message", at)
    await shell.waitFor(PROMPT, at)
    // Ctrl-R finds the last line with "pi" and Enter runs it.
    await shell.type("\x12pi")
    at = await shell.waitFor("(reverse-i-search)'pi': ping", at)
    await shell.type("\r")
    at = await shell.waitFor("pong in", at)
    await shell.type("\x04")
    expect((await shell.finished).code).toBe(0)
  })

  it("piped: reads commands as a script; a failing command is reported and the next runs; it exits 2, and keeps no history", async () => {
    const state = mkdtempSync(join(tmpdir(), "effect-mcp-piped-"))
    const result = await run(["shell", ...everythingStdio], {
      input: "tools call get-sum a:=2 b:=40\ntools lst\nbogus-command\nping\n",
      env: { XDG_STATE_HOME: state }
    })
    // The failed lines are the session's outcome, as a script's would be.
    expect(result.code, result.stderr).toBe(2)
    expect(existsSync(join(state, "effect-mcp", "history"))).toBe(false)
    expect(result.stdout).toMatch(/The sum of 2 and 40 is 42\./)
    expect(result.stderr).toMatch(/error: tools: "lst" is not a command; did you mean list\?/)
    expect(result.stderr).toMatch(/error: "bogus-command" is not a command/)
    expect(result.stdout).toMatch(/pong in/)
  })

  it("a server that dies: said once, the commands after it are not sent, and the session ends with exit 3", async () => {
    const result = await run(["shell", "--", process.execPath, miniServer, "crash"], {
      input: "tools call echo\nping\ntools list\n"
    })
    expect(result.code).toBe(3)
    expect(result.stderr).toMatch(/about to crash|exited with code 3/)
    const refused =
      result.stderr.match(/error: the server has ended \(.*\); reconnect starts it again, Ctrl-D leaves/g) ?? []
    expect(refused).toHaveLength(2)
    expect(result.stdout).not.toMatch(/pong/)
  })

  it("reconnect is refused under --record (one connection) and in the host shell (it restarts its servers)", async () => {
    const recorded = await run(
      ["shell", "--record", join(mkdtempSync(join(tmpdir(), "effect-mcp-rec-")), "s.jsonl"), ...everythingStdio],
      { input: "reconnect\nping\n" }
    )
    // The refused reconnect is a failed line: the piped session exits 2.
    expect(recorded.code, recorded.stderr).toBe(2)
    expect(recorded.stderr).toContain("error: reconnect: --record keeps one connection")
    expect(recorded.stdout).toMatch(/pong in/)
  })

  it("reconnect: a server that died is started again and the session goes on (exit 3: lines failed)", async () => {
    const result = await run(["shell", "--", process.execPath, miniServer, "crash"], {
      input: "tools call echo\nping\nreconnect\nping\n"
    })
    expect(result.code, result.stderr).toBe(3)
    expect(result.stderr.match(/error: the server has ended/g) ?? []).toHaveLength(1)
    expect(result.stderr).toMatch(/reconnected to /)
    expect(result.stdout.match(/pong in/g) ?? []).toHaveLength(1)
  })

  it("complete asks the server to complete a prompt's argument or a template's variable", async () => {
    const result = await run(["shell", ...everythingStdio], {
      input:
        "complete prompt completable-prompt department E\ncomplete prompt completable-prompt department zzz\ncomplete prompts\n"
    })
    // The last line is a usage mistake.
    expect(result.code, result.stderr).toBe(2)
    expect(result.stdout.split("\n")).toContain("Engineering")
    expect(result.stderr).toMatch(/no completions/)
    expect(result.stderr).toMatch(/complete prompt NAME ARG \[TYPED\] \| complete template URI-TEMPLATE ARG \[TYPED\]/)
  })
})

/** A shell on the test server on a terminal; `received` is what the server was sent. */
const testServerShell = () => {
  const state = mkdtempSync(join(tmpdir(), "effect-mcp-shell-test-server-"))
  const received = join(state, "received.log")
  writeFileSync(received, "")
  const shell = startOnTerminal(["shell", "--", process.execPath, testServer, received], {
    env: { XDG_STATE_HOME: state, NO_COLOR: "1" },
    columns: 120
  })
  return { shell, received: () => readFileSync(received, "utf8") }
}

/** Shows the session goes on (a command runs), then leaves with Ctrl-D (exit 0). */
const goesOn = async (shell: ReturnType<typeof startOnTerminal>, at: number) => {
  await shell.type("tools list\r")
  await shell.waitFor("ask-defaults", at)
  await shell.type("\x04")
  expect((await shell.finished).code).toBe(0)
}

describe("effect-mcp shell, Ctrl-C", () => {
  it("cancels the running request on the server (notifications/cancelled) and the session goes on", async () => {
    const { shell, received } = testServerShell()
    let at = await shell.waitFor("test-server> ")
    await shell.type("tools call slow\r")
    at = await shell.waitFor(/calling slow {2}\d+ /, at)
    await shell.type("\x03")
    // ^C, then the line on its own.
    at = await shell.waitFor("\x1b[2K^C\r\ncancelled: tools call slow", at)
    await eventually(() => received().includes("notifications/cancelled"), "the cancellation")
    await goesOn(shell, at)
  }, 60_000)
})

describe("effect-mcp shell, Ctrl-C in a form", () => {
  it("answers the server cancel and cancels the command; the session goes on", async () => {
    const { shell, received } = testServerShell()
    let at = await shell.waitFor("test-server> ")
    await shell.type("tools call ask\r")
    at = await shell.waitFor("accept (fill in the form)", at)
    await shell.type("\r")
    at = await shell.waitFor("Your name", at)
    await shell.type("\x03")
    at = await shell.waitFor("^C\r\ncancelled: tools call ask\r\n", at)
    await eventually(() => received().includes('"result":{"action":"cancel"}'), "the answer")
    await goesOn(shell, await shell.waitFor("test-server> ", at))
  }, 60_000)
})

describe("effect-mcp shell, per-session features", () => {
  it("a subscription made by one command brings updates while later commands run", async () => {
    const uri = "demo://resource/static/document/architecture.md"
    const result = await run(["shell", ...everythingStdio], {
      input: `subscribe ${uri}\ntools call toggle-subscriber-updates\ntools call trigger-long-running-operation duration:=7 steps:=1\n`,
      timeoutMs: 40_000
    })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toContain(`subscribed to ${uri}`)
    expect(result.stderr).toContain(`updated: ${uri}`)
  }, 45_000)
})

describe("effect-mcp host shell", () => {
  it("routes namespaced tools, says why a server is down, suggests close names", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "effect-mcp-host-shell-"))
    writeFileSync(
      join(cwd, ".mcp.json"),
      JSON.stringify({
        mcpServers: {
          one: { command: process.execPath, args: [everything, "stdio"] },
          gone: { command: "no-such-mcp-server-anywhere" }
        }
      })
    )
    const result = await run(["host", "shell"], {
      cwd,
      input: "status\ntools call one__get-sum a:=1 b:=2\ntools call gone__echo message=x\ntools call one__get-sun\n"
    })
    // Lines failed (a server down, a mistyped tool): the piped session exits 2.
    expect(result.code, result.stderr).toBe(2)
    expect(result.stdout).toMatch(/^one +stdio +ready/m)
    expect(result.stdout).toMatch(/^gone +stdio +failed:/m)
    expect(result.stdout).toMatch(/The sum of 1 and 2 is 3\./)
    expect(result.stderr).toMatch(/"gone__echo" cannot be called: gone is not ready \(failed:/)
    expect(result.stderr).toMatch(/no ready server offers "one__get-sun" \(did you mean one__get-sum/)
  })

  it("on a terminal: completes namespaced tool names", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "effect-mcp-host-shell-tty-"))
    writeFileSync(
      join(cwd, ".mcp.json"),
      JSON.stringify({ mcpServers: { one: { command: process.execPath, args: [everything, "stdio"] } } })
    )
    const shell = startOnTerminal(["host", "shell"], {
      cwd,
      env: { XDG_STATE_HOME: cwd, NO_COLOR: "1" },
      columns: 120
    })
    let at = await shell.waitFor("host> ")
    await shell.type("tools call one__get-su")
    await shell.type("\t")
    at = await shell.waitFor("one__get-sum ", at)
    await shell.type("a=4 b=5\r")
    at = await shell.waitFor("The sum of 4 and 5 is 9.", at)
    await shell.type("\x04")
    expect((await shell.finished).code).toBe(0)
  }, 60_000)
})
