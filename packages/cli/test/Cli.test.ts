/**
 * The CLI as a user runs it: the built binary against the real reference server (stdio and
 * HTTP), config files, bad input, failing tools, Ctrl-C, and the failures people hit daily.
 */

import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { type RunningServer, startEverything } from "../../client/test/support/httpServers.js"
import { isAlive } from "../../client/test/support/processes.js"
import { splitCommandLine } from "../src/internal/words.js"
import { eventually, everything, everythingStdio, run, start } from "./support/cli.js"

const testServer = fileURLToPath(new URL("fixtures/test-server.mjs", import.meta.url))

/** The process ids of a process's children. */
const childrenOf = (pid: number): ReadonlyArray<number> => {
  try {
    return execFileSync("ps", ["-o", "pid=", "--ppid", String(pid)], { encoding: "utf8" })
      .split("\n")
      .map((line) => Number(line.trim()))
      .filter((child) => child > 0)
  } catch {
    return []
  }
}

/** `complete` of the reference server's `completable-prompt`'s department, from `value`. */
const department = (value: string) =>
  run(["complete", "--prompt", "completable-prompt", "--argument", "department", "--value", value, ...everythingStdio])

describe.concurrent("against the reference server over stdio", () => {
  it("inspect shows the overview", async () => {
    const result = await run(["inspect", ...everythingStdio])
    expect(result.stderr).toBe("")
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^Everything Reference Server 2\.0\.0/)
    expect(result.stdout).toMatch(/protocol\s+2025-11-25/)
    expect(result.stdout).toMatch(/^tools \(\d+\)$/m)
    expect(result.stdout).toMatch(
      /^ {2}echo message:string +Echo Tool: Echoes back the input string \(read-only, idempotent\)$/m
    )
    expect(result.stdout).toMatch(/^resource templates \(2\)$/m)
    expect(result.stdout).toMatch(/^ {2}args-prompt <city> \[state\]/m)
  })

  it("info --json prints the handshake's facts exactly", async () => {
    const result = await run(["info", "--json", ...everythingStdio])
    expect(result.code).toBe(0)
    const info = JSON.parse(result.stdout)
    expect(info.serverInfo.name).toBe("mcp-servers/everything")
    expect(info.protocolVersion).toBe("2025-11-25")
    expect(Object.keys(info.capabilities)).toContain("tools")
    expect(typeof info.instructions).toBe("string")
  })

  it("tools list, call with key=value and key:=json, and --args", async () => {
    const list = await run(["tools", "list", "--json", ...everythingStdio])
    expect(JSON.parse(list.stdout).tools.map((tool: { name: string }) => tool.name)).toContain("get-sum")
    const echo = await run(["tools", "call", "echo", "message=hello there", ...everythingStdio])
    expect([echo.code, echo.stdout]).toStrictEqual([0, "Echo: hello there\n"])
    const sum = await run(["tools", "call", "get-sum", "a=2", "b:=3", "--json", ...everythingStdio])
    expect(sum.code).toBe(0)
    expect(JSON.parse(sum.stdout).content[0].text).toBe("The sum of 2 and 3 is 5.")
    const args = await run(["tools", "call", "get-sum", "--args", '{"a": 1, "b": 1}', ...everythingStdio])
    expect(args.stdout).toBe("The sum of 1 and 1 is 2.\n")
  })

  it("server and run options may come before the command", async () => {
    const result = await run([
      "--stdio",
      `${process.execPath} ${everything} stdio`,
      "--json",
      "--timeout",
      "60",
      "info"
    ])
    expect(result.code, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({ serverInfo: { name: expect.any(String) } })
  })

  it("checks arguments against the input schema before sending (exit 2)", async () => {
    const result = await run(["tools", "call", "get-sum", "a=2", ...everythingStdio])
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(
      /^error: the arguments do not match the input schema of get-sum: .*required property 'b'/
    )
    const unknown = await run(["tools", "call", "no-such-tool", ...everythingStdio])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(/has no tool named "no-such-tool" \(see effect-mcp tools list\)/)
  })

  it("a tool reporting isError exits 1; sampling without a command is declined with a clear message", async () => {
    const result = await run(["tools", "call", "trigger-sampling-request", "prompt=hi", ...everythingStdio])
    expect(result.code).toBe(1)
    // Said once, as the error (test/Reporting.test.ts).
    expect(result.stderr).toMatch(
      /error: tool trigger-sampling-request reported an error: .*no --sampling-command is configured/
    )
  })

  it("answers sampling with --sampling-command", async () => {
    const reply = JSON.stringify({
      role: "assistant",
      content: { type: "text", text: "from the command" },
      model: "shell"
    })
    const result = await run([
      "tools",
      "call",
      "trigger-sampling-request",
      "prompt=hi",
      "--sampling-command",
      `cat > /dev/null; echo '${reply}'`,
      ...everythingStdio
    ])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/from the command/)
  })

  it("a --sampling-command that does not exist is said to be not found (exit 127)", async () => {
    const result = await run([
      "tools",
      "call",
      "trigger-sampling-request",
      "prompt=hi",
      "--sampling-command",
      "no-such-sampling-command-anywhere",
      ...everythingStdio
    ])
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/the sampling command exited 127 \(not found\)/)
    expect(result.stderr).not.toMatch(/did not print a CreateMessageResult/)
  })

  it("off a terminal, elicitation is declined, or accepted with defaults when every required field has one", async () => {
    const declined = await run(["tools", "call", "trigger-elicitation-request", ...everythingStdio])
    expect(declined.code).toBe(0)
    expect(declined.stdout).toMatch(/declined/)
    expect(declined.stderr).toMatch(/declined \(not a terminal; --accept-defaults accepts defaults\)/)
    const defaults = await run([
      "tools",
      "call",
      "trigger-elicitation-request",
      "--accept-defaults",
      ...everythingStdio
    ])
    expect(defaults.stderr).toMatch(/declined \(--accept-defaults, but name has no default\)/)
    const received = join(mkdtempSync(join(tmpdir(), "effect-mcp-defaults-")), "received.log")
    const accepted = await run([
      "tools",
      "call",
      "ask-defaults",
      "--accept-defaults",
      "--",
      process.execPath,
      testServer,
      received
    ])
    expect([accepted.code, accepted.stdout]).toStrictEqual([
      0,
      '{"action":"accept","content":{"color":"green","subscribe":true}}\n'
    ])
    expect(accepted.stderr).toMatch(/accepted with defaults \(--accept-defaults\)/)
  })

  it("resources, templates, prompts and completion", async () => {
    const resources = await run(["resources", "list", ...everythingStdio])
    expect(resources.stdout).toMatch(/^demo:\/\/resource\/static\/document\/architecture\.md +architecture\.md/m)
    const templates = await run(["resources", "templates", "--json", ...everythingStdio])
    expect(JSON.parse(templates.stdout).resourceTemplates).toHaveLength(2)
    const read = await run(["resources", "read", "demo://resource/dynamic/text/7", ...everythingStdio])
    expect([read.code, read.stdout]).toStrictEqual([0, expect.stringMatching(/7/)])
    const prompt = await run(["prompts", "get", "args-prompt", "city=Paris", ...everythingStdio])
    expect(prompt.stdout).toMatch(/^user:\n.*Paris/m)
    const complete = await department("E")
    expect(complete.stdout.split("\n")).toContain("Engineering")
  })

  it("ping", async () => {
    // The whole result, so that a failure shows the signal and stderr too (twice on CI the process
    // was ended by a SIGKILL that no test sent, with nothing printed).
    const ping = await run(["ping", ...everythingStdio])
    expect(ping).toMatchObject({
      code: 0,
      signal: null,
      stderr: "",
      stdout: expect.stringMatching(/^pong from .* in [\d.]+ ms$/m)
    })
  })

  it("complete with nothing to offer says so (not a blank)", async () => {
    const none = await department("Zzz")
    expect([none.code, none.stdout, none.stderr]).toStrictEqual([0, "", "no completions\n"])
  })

  it("prompts and resources are checked like tools: the user's mistakes exit 2 with did-you-mean", async () => {
    const typo = await run(["prompts", "get", "args-promt", "city=Paris", ...everythingStdio])
    expect([typo.code, typo.stderr]).toStrictEqual([
      2,
      expect.stringMatching(/has no prompt named "args-promt" \(did you mean args-prompt\?\)/)
    ])
    const missing = await run(["prompts", "get", "args-prompt", ...everythingStdio])
    expect([missing.code, missing.stderr]).toStrictEqual([
      2,
      expect.stringMatching(/prompt args-prompt needs city=… \(required\)/)
    ])
    const unknown = await run(["prompts", "get", "args-prompt", "city=Paris", "stat=CA", ...everythingStdio])
    expect([unknown.code, unknown.stderr]).toStrictEqual([
      2,
      expect.stringMatching(/prompt args-prompt takes no argument "stat" \(did you mean state\?\)/)
    ])
    const uri = await run(["resources", "read", "demo://resource/static/document/architecture.mdx", ...everythingStdio])
    expect([uri.code, uri.stderr]).toStrictEqual([
      2,
      expect.stringMatching(
        /lists no resource demo:\/\/resource\/static\/document\/architecture\.mdx \(did you mean demo:\/\/resource\/static\/document\/architecture\.md/
      )
    ])
    const json = await run(["prompts", "get", "args-promt", "--json", ...everythingStdio])
    expect([json.code, json.signal], json.stderr).toStrictEqual([2, null])
    expect(JSON.parse(json.stderr.trim().split("\n").at(-1) ?? "{}")).toMatchObject({
      error: { kind: "UsageError", exitCode: 2 }
    })
  })

  it("offers --root directories as roots, and --timeout bounds a request (exit 3)", async () => {
    const roots = await run(["tools", "call", "get-roots-list", "--root", tmpdir(), ...everythingStdio])
    expect(roots.code).toBe(0)
    expect(roots.stdout).toContain(pathToFileURL(tmpdir()).href)
    const slow = await run([
      "tools",
      "call",
      "trigger-long-running-operation",
      "duration:=20",
      "steps:=2",
      "--timeout",
      "5",
      ...everythingStdio
    ])
    expect(slow.code).toBe(3)
    expect(slow.stderr).toMatch(/error: .*tools\/call timed out after 5s/)
  })

  it("names a server from a config file, and lists the configured servers", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "effect-mcp-cli-"))
    writeFileSync(
      join(cwd, ".mcp.json"),
      `{
        // the reference server
        "mcpServers": {
          "everything": { "command": "${process.execPath}", "args": ["${everything}", "stdio"], "env": { "TOKEN": "\${HIDDEN_TOKEN:-default-secret}" } },
          "remote": { "type": "http", "url": "https://example.com/mcp", "headers": { "Authorization": "Bearer header-secret" } },
        }
      }`
    )
    const servers = await run(["servers"], { cwd })
    expect(servers.code).toBe(0)
    expect(servers.stdout).toMatch(/^everything +stdio +.*index\.js stdio/m)
    expect(servers.stdout).toMatch(/^remote +http +https:\/\/example\.com\/mcp/m)
    expect(servers.stdout + servers.stderr).not.toMatch(/secret/)
    const call = await run(["tools", "call", "echo", "message=configured", "--server", "everything"], { cwd })
    expect([call.code, call.stdout]).toStrictEqual([0, "Echo: configured\n"])
    const missing = await run(["info", "--server", "nope"], { cwd })
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/no server named "nope" .*configured: everything, remote/)
  })

  it("a broken config names the file, the entry and the field (exit 2)", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "effect-mcp-cli-"))
    writeFileSync(
      join(cwd, "bad.json"),
      JSON.stringify({ mcpServers: { srv: { command: "node", args: "not-a-list" } } })
    )
    const result = await run(["info", "--config", "bad.json", "--server", "srv"], { cwd })
    expect(result.code).toBe(2)
    expect(result.stderr).toBe(
      `error: ${join(cwd, "bad.json")}: server "srv", field "args": Expected ReadonlyArray<string>, actual "not-a-list"\n`
    )
    writeFileSync(join(cwd, "unset.json"), JSON.stringify({ mcpServers: { srv: { command: "${NOT_SET_ANYWHERE}" } } }))
    const unset = await run(["info", "--config", "unset.json", "--server", "srv", "--json"], { cwd })
    expect(unset.code).toBe(2)
    expect(JSON.parse(unset.stderr).error).toMatchObject({
      kind: "ConfigError",
      message: expect.stringMatching(/variable NOT_SET_ANYWHERE is not set/)
    })
  })
})

describe.concurrent("help", () => {
  const commands = [
    ["inspect"],
    ["info"],
    ["ping"],
    ["tools", "list"],
    ["tools", "call"],
    ["resources", "list"],
    ["resources", "templates"],
    ["resources", "read"],
    ["resources", "subscribe"],
    ["prompts", "list"],
    ["prompts", "get"],
    ["complete"],
    ["logs"],
    ["servers"],
    ["config", "list"],
    ["config", "add"],
    ["config", "remove"],
    ["config", "import"],
    ["auth", "login"],
    ["auth", "status"],
    ["conformance"]
  ]
  it("every --help example runs as written (not the long-running ones, those that read or write the user's files, or those needing an HTTP server), with no config file", async () => {
    // HOME is empty (no user config); the working directory is this package's, whose npx finds the
    // reference server in the workspace.
    const empty = mkdtempSync(join(tmpdir(), "effect-mcp-examples-"))
    const examples = (await Promise.all(commands.map((command) => run([...command, "--help"]))))
      .flatMap((help) => help.stdout.split("\n"))
      .map((line) => /^(?:Example: | {2})effect-mcp (.*)$/.exec(line)?.[1])
      .filter(
        (line): line is string =>
          line !== undefined &&
          !/^(shell|logs|resources subscribe|chat|servers --config|config (add|remove|import))\b|--url /.test(line)
      )
    expect(examples.length).toBeGreaterThanOrEqual(10)
    const runExample = async (example: string) => {
      const words = splitCommandLine(example)
      if (words._tag === "Left") return [example, words.left]
      const result = await run([...words.right], { env: { HOME: empty }, timeoutMs: 120_000 })
      return [example, result.code, result.code === 0 ? "" : result.stderr]
    }
    // Three at a time: the other tests of this file run beside these.
    const results: Array<ReadonlyArray<unknown>> = []
    for (let start = 0; start < examples.length; start += 3)
      results.push(...(await Promise.all(examples.slice(start, start + 3).map(runExample))))
    expect(results).toStrictEqual(examples.map((example) => [example, 0, ""]))
  }, 180_000)

  it("--server with no config file shows a minimal .mcp.json (exit 2)", async () => {
    const empty = mkdtempSync(join(tmpdir(), "effect-mcp-noconfig-"))
    const result = await run(["ping", "--server", "everything"], { cwd: empty, env: { HOME: empty } })
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('no server named "everything" (no config file was found)')
    expect(result.stderr).toContain(
      '{"mcpServers": {"everything": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"]}}}'
    )
  })

  it("every command has --help with an example, without colours off a terminal", async () => {
    const helps = await Promise.all(commands.map((command) => run([...command, "--help"])))
    helps.forEach((help, index) => {
      const command = commands[index]?.join(" ")
      expect([command, help.code, help.stdout]).toStrictEqual([
        command,
        0,
        expect.stringMatching(new RegExp(`^Usage: effect-mcp ${command}[^]*\nExamples?:\n {2}\\S`))
      ])
      expect(help.stdout).not.toContain("\x1b[")
    })
  })
})

describe.concurrent("usage and start-up failures", () => {
  it("no server, or two, is a usage error (exit 2)", async () => {
    const none = await run(["tools", "list"])
    expect(none.code).toBe(2)
    expect(none.stderr).toMatch(/which server\?/)
    const two = await run(["ping", "--url", "http://127.0.0.1:1/mcp", "--stdio", "node x"])
    expect(two.code).toBe(2)
    const flag = await run(["ping", "--no-such-flag"])
    expect(flag.code).toBe(2)
  })

  it("a command that is not found is named, with the PATH searched (exit 3)", async () => {
    const result = await run(["ping", "--stdio", "definitely-not-a-command-xyz --flag"], {
      env: { PATH: "/nowhere:/also/nowhere" }
    })
    expect(result.code).toBe(3)
    expect(result.stderr).toBe(
      "error: command not found: definitely-not-a-command-xyz\nsearched PATH: /nowhere:/also/nowhere\n"
    )
  })

  it("a server that exits during start-up: exit code and stderr tail, no environment values (exit 3)", async () => {
    const result = await run([
      "ping",
      "--env",
      "API_KEY=env-secret-value",
      "--verbose",
      "--",
      process.execPath,
      "-e",
      "console.error('cannot open database'); process.exit(4)"
    ])
    expect(result.code).toBe(3)
    expect(result.stderr).toMatch(/the server process exited with code 4\n/)
    expect(result.stderr).not.toMatch(/\(exit code 4\)/)
    expect(result.stderr).toMatch(/stderr: cannot open database/)
    expect(result.stdout + result.stderr).not.toMatch(/env-secret-value/)
  })

  it("a server that crashes at start shows its error line and the tail, without --verbose", async () => {
    const dir = mkdtempSync(join(tmpdir(), "effect-mcp-crash-"))
    const crash = join(dir, "crash.mjs")
    writeFileSync(
      crash,
      [
        "const open = () => { throw new Error('cannot open /var/db/app.sqlite: permission denied') }",
        "const start = () => open()",
        "const main = () => start()",
        "main()"
      ].join("\n")
    )
    const result = await run(["ping", "--", process.execPath, crash])
    expect(result.code).toBe(3)
    const shown = result.stderr.split("\n").filter((line) => line.startsWith("  stderr: "))
    // The error itself, then what the process said last (Node's version, after the frames).
    expect(shown[0]).toBe("  stderr: Error: cannot open /var/db/app.sqlite: permission denied")
    expect(shown.at(-1)).toMatch(/^ {2}stderr: Node\.js v/)
    expect(shown.length).toBeLessThanOrEqual(6)
  })
})

describe("HTTP", () => {
  let streamable: RunningServer
  let sse: RunningServer
  let html: Server
  let htmlPort = 0
  // As `python3 -m http.server` answers a POST: 501 and an HTML error page.
  let plain: Server
  let plainPort = 0
  beforeAll(async () => {
    plain = createServer((_request, response) => {
      response.writeHead(501, { "content-type": "text/html;charset=utf-8" })
      response.end(
        '<!DOCTYPE HTML>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Error response</title>\n</head>\n<body><h1>Error response</h1><p>Error code: 501</p></body></html>\n'
      )
    })
    await new Promise<void>((resolve) => plain.listen(0, "127.0.0.1", resolve))
    const plainAddress = plain.address()
    plainPort = typeof plainAddress === "object" && plainAddress !== null ? plainAddress.port : 0
    ;[streamable, sse] = await Promise.all([startEverything("streamableHttp"), startEverything("sse")])
    html = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" })
      response.end("<!doctype html><html><body>Welcome to nginx!</body></html>")
    })
    await new Promise<void>((resolve) => html.listen(0, "127.0.0.1", resolve))
    const address = html.address()
    htmlPort = typeof address === "object" && address !== null ? address.port : 0
  })
  afterAll(async () => {
    await Promise.all([
      streamable?.stop(),
      sse?.stop(),
      new Promise((resolve) => html?.close(resolve)),
      new Promise((resolve) => plain?.close(resolve))
    ])
  })

  it("inspects the reference server over Streamable HTTP and over legacy SSE (auto fallback)", async () => {
    const overHttp = await run(["tools", "call", "echo", "message=over http", "--url", `${streamable.origin}/mcp`])
    expect([overHttp.code, overHttp.stdout]).toStrictEqual([0, "Echo: over http\n"])
    const overSse = await run(["inspect", "--url", `${sse.origin}/sse`])
    expect(overSse.code).toBe(0)
    expect(overSse.stdout).toMatch(/^tools \(\d+\)$/m)
    const forcedSse = await run(["ping", "--url", `${sse.origin}/sse`, "--transport", "sse"])
    expect(forcedSse.code).toBe(0)
  })

  it("a web server that is not an MCP server: the POST's status, the page's title, and a word on the path", async () => {
    const result = await run(["ping", "--url", `http://127.0.0.1:${plainPort}/`])
    expect(result.code).toBe(3)
    expect(result.stderr).toContain(
      'HTTP 501, an HTML page titled "Error response": this does not look like an MCP endpoint (is the path right? servers often use /mcp)'
    )
    expect(result.stderr).not.toContain("<!DOCTYPE")
    // A wrong path on an MCP server: the POST's 404 made the client try legacy SSE; both are said.
    const wrongPath = await run(["ping", "--url", `${streamable.origin}/wrong`])
    expect(wrongPath.code).toBe(3)
    expect(wrongPath.stderr).toContain(
      "the POST answered HTTP 404, so the legacy HTTP+SSE transport was tried, and failed too: GET"
    )
    expect(wrongPath.stderr).toContain("this does not look like an MCP endpoint")
  })

  it("a refused connection and https:// to a plain HTTP port are said in plain words", async () => {
    const refused = await run(["ping", "--url", "http://127.0.0.1:1/mcp"])
    expect([refused.code, refused.stderr]).toStrictEqual([
      3,
      expect.stringContaining(
        "nothing is listening at 127.0.0.1:1: is the server running, on that port? (ECONNREFUSED)"
      )
    ])
    const tls = await run(["ping", "--url", `https://127.0.0.1:${plainPort}/mcp`])
    expect(tls.code).toBe(3)
    expect(tls.stderr).toContain(
      "the server does not speak TLS there: an https:// URL for a plain HTTP port? (try http://)"
    )
  })

  it("an HTML answer is reported with status, content type and what page it is; header values never appear (exit 3)", async () => {
    const result = await run([
      "info",
      "--url",
      `http://127.0.0.1:${htmlPort}/mcp`,
      "--transport",
      "http",
      "--header",
      "Authorization: Bearer header-secret-token",
      "--verbose"
    ])
    expect(result.code).toBe(3)
    expect(result.stderr).toContain(
      "unexpected content type text/html; charset=utf-8 with status 200: HTTP 200, an HTML page: this does not look like an MCP endpoint (is the path right? servers often use /mcp)"
    )
    expect(result.stdout + result.stderr).not.toMatch(/header-secret-token/)
  })
})

describe("Ctrl-C", () => {
  it("cancels the running request (the server receives notifications/cancelled), exits 130, and leaves no process", async () => {
    const received = join(mkdtempSync(join(tmpdir(), "effect-mcp-cancel-")), "received.log")
    writeFileSync(received, "")
    const started = start(["tools", "call", "slow", "--", process.execPath, testServer, received])
    await eventually(() => /progress slow: 2/.test(started.stderr()), "progress on stderr")
    const pid = started.child.pid ?? 0
    const servers = childrenOf(pid)
    expect(servers.length).toBeGreaterThan(0)
    started.child.kill("SIGINT")
    const result = await started.finished
    expect(result.code).toBe(130)
    const messages = readFileSync(received, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { method?: string; params?: { requestId?: unknown } })
    const call = messages.find((message) => message.method === "tools/call") as { id: unknown }
    expect(messages.find((message) => message.method === "notifications/cancelled")?.params?.requestId).toBe(call.id)
    await eventually(() => servers.every((server) => !isAlive(server)), "the server process to end", 10_000)
  })

  it("ends a streaming command (logs) cleanly", async () => {
    const started = start(["logs", "--level", "info", ...everythingStdio])
    await eventually(() => /streaming .* log messages at info and above/.test(started.stderr()), "the log stream")
    const servers = childrenOf(started.child.pid ?? 0)
    expect(servers.length).toBeGreaterThan(0)
    started.child.kill("SIGINT")
    const result = await started.finished
    expect(result.code).toBe(130)
    await eventually(() => servers.every((server) => !isAlive(server)), "the server process to end", 10_000)
  })

  it("ends a streaming command (resources subscribe) cleanly", async () => {
    const started = start([
      "resources",
      "subscribe",
      "demo://resource/static/document/architecture.md",
      ...everythingStdio
    ])
    await eventually(() => /subscribed to/.test(started.stderr()), "the subscription")
    const servers = childrenOf(started.child.pid ?? 0)
    expect(servers.length).toBeGreaterThan(0)
    started.child.kill("SIGINT")
    const result = await started.finished
    expect(result.code).toBe(130)
    await eventually(() => servers.every((server) => !isAlive(server)), "the server process to end", 10_000)
  })
})

describe("mistakes at the command line", () => {
  it("replay on a file that is not a recording: error, exit 2, no internal error", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "effect-mcp-notrec-")), "notes.json")
    writeFileSync(file, '{"a": 1}\n')
    const result = await run(["replay", file])
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/^error: .*notes\.json: this is not an effect-mcp recording/)
    expect(result.stderr).not.toMatch(/internal error|\n\s+at /)
  })

  it("a missing argument is a usage error with error:, the usage, and --json's form", async () => {
    const missing = await run(["tools", "call", ...everythingStdio])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/^error: effect-mcp tools call needs <tool>\nUsage: effect-mcp tools call <tool> /)
    const json = await run(["tools", "call", "--json", ...everythingStdio])
    expect(json.code).toBe(2)
    expect(JSON.parse(json.stderr)).toStrictEqual({
      error: { kind: "UsageError", message: "effect-mcp tools call needs <tool>", exitCode: 2 }
    })
  })

  it("-v, -V, --verison and version are pointed at --version", async () => {
    for (const word of ["-v", "-V", "--verison", "version"]) {
      const result = await run([word])
      expect([word, result.code]).toStrictEqual([word, 2])
      expect(result.stderr).toMatch(/^error: .*did you mean .*--version/)
    }
  })

  it("--timeout 0 is refused before anything runs", async () => {
    const result = await run(["tools", "list", "--timeout", "0", ...everythingStdio])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--timeout takes a number of seconds, more than 0, not "0"')
  })

  it("--stdio and a command after -- together are refused", async () => {
    const result = await run(["ping", "--stdio", "node nothing.mjs", ...everythingStdio])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain("not both")
  })

  it("skills list on a server without skills exits 1 (it answers, it has none), not 3", async () => {
    const result = await run(["skills", "list", ...everythingStdio])
    expect(result.stderr).toMatch(/does not support skills\/list/)
    expect(result.code).toBe(1)
  })

  it("complete --argument the prompt does not have: exit 2, naming its arguments", async () => {
    const result = await run(["complete", "--prompt", "completable-prompt", "--argument", "nosuch", ...everythingStdio])
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/prompt completable-prompt has no argument "nosuch" \(it has department, name\)/)
  })
})
