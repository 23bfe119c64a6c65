/**
 * The easier ways to write a call (issue 31, beyond the rivals): a function call
 * (`'get-sum(a: 2, b: 3)'`, `'get-sum(2, 3)'`), positional values in the schema's order (a
 * prompt's too), and `key=@file`; as parsers, and on the real binary against the reference server.
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import { functionCall } from "../src/internal/callSyntax.js"
import { everythingStdio, run } from "./support/cli.js"

describe("functionCall", () => {
  it("reads name(key: value, …) into the name and key=value / key:=json words", () => {
    expect(functionCall("get-sum(a: 2, b: 3)")).toStrictEqual(Either.right({ name: "get-sum", words: ["a=2", "b=3"] }))
    expect(functionCall(`echo(message: "a, b (c)", tags: ["x", "y"], o: {"k": 1}, s: 'it\\'s')`)).toStrictEqual(
      Either.right({
        name: "echo",
        words: ['message:="a, b (c)"', 'tags:=["x", "y"]', 'o:={"k": 1}', `s:=${JSON.stringify("it's")}`]
      })
    )
    expect(functionCall("ping()")).toStrictEqual(Either.right({ name: "ping", words: [] }))
    expect(functionCall("get-sum")).toBeUndefined()
    expect(functionCall(`get-sum(2, b: 3)`)).toStrictEqual(Either.right({ name: "get-sum", words: ["2", "b=3"] }))
    expect(functionCall(`echo('a, b', "c")`)).toStrictEqual(Either.right({ name: "echo", words: ["a, b", "c"] }))
    expect(Either.isLeft(functionCall("echo(a=b)") ?? Either.right(undefined))).toBe(true)
    expect(Either.isLeft(functionCall('echo(message: "open)') ?? Either.right(undefined))).toBe(true)
  })
})

describe("tools call, the easier ways (the binary, the reference server over stdio)", () => {
  it("a function call, positional values in the schema's order, a quoted value that stays a string", async () => {
    const called = await run(["tools", "call", "get-sum(a: 2, b: 3)", ...everythingStdio])
    expect(called.code, called.stderr).toBe(0)
    expect(called.stdout).toContain("The sum of 2 and 3 is 5.")
    const positional = await run(["tools", "call", "get-sum", "4", "5", ...everythingStdio])
    expect(positional.code, positional.stderr).toBe(0)
    expect(positional.stdout).toContain("The sum of 4 and 5 is 9.")
    const quoted = await run(["tools", "call", 'echo(message: "123")', ...everythingStdio])
    expect(quoted.stdout).toContain("Echo: 123")
    const tooMany = await run(["tools", "call", "get-sum", "1", "2", "3", ...everythingStdio])
    expect(tooMany.code).toBe(2)
    expect(tooMany.stderr).toContain("3 positional values for 2 properties (a, b)")
  })

  it("bare values as the shell takes them: 'get-sum(2, 3)', and a prompt's arguments in its order", async () => {
    const called = await run(["tools", "call", "get-sum(2, 3)", ...everythingStdio])
    expect(called.code, called.stderr).toBe(0)
    expect(called.stdout).toContain("The sum of 2 and 3 is 5.")
    const mixed = await run(["tools", "call", "echo('hello, world')", ...everythingStdio])
    expect(mixed.code, mixed.stderr).toBe(0)
    expect(mixed.stdout).toContain("Echo: hello, world")
    const prompt = await run(["prompts", "get", "args-prompt", "Paris", "--json", ...everythingStdio])
    expect(prompt.code, prompt.stderr).toBe(0)
    const both = await run(["prompts", "get", "args-prompt", "state=Texas", "Paris", "--json", ...everythingStdio])
    expect(both.code, both.stderr).toBe(0)
    expect([prompt.stdout, both.stdout].map((text) => text.includes("Paris"))).toStrictEqual([true, true])
    expect(both.stdout).toContain("Texas")
    const tooMany = await run(["prompts", "get", "args-prompt", "Paris", "Texas", "more", ...everythingStdio])
    expect([tooMany.code, tooMany.stderr]).toStrictEqual([
      2,
      expect.stringContaining("3 bare values for 2 arguments (city, state)")
    ])
  })

  it("key=@file reads the value from a file (@@ for a literal @); an unreadable file is a usage error", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "effect-mcp-value-")), "message.txt")
    writeFileSync(file, "from a file")
    const fromFile = await run(["tools", "call", "echo", `message=@${file}`, ...everythingStdio])
    expect(fromFile.code, fromFile.stderr).toBe(0)
    expect(fromFile.stdout).toContain("Echo: from a file")
    const literal = await run(["tools", "call", "echo", "message=@@home", ...everythingStdio])
    expect(literal.stdout).toContain("Echo: @home")
    const missing = await run(["tools", "call", "echo", `message=@${file}.missing`, ...everythingStdio])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain(`message=@${file}.missing: cannot read the file (not found)`)
  })
})
