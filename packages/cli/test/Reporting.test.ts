/**
 * How failures reach a person, on the built binary against the reference server: each failure
 * once, as one `error:` line (with `--verbose`, its detail below it), and never the runtime's
 * trace of a failed fiber.
 */
import { describe, expect, it } from "@effect/vitest"
import { everythingStdio, run } from "./support/cli.js"

/** The lines of `text` that mention `what`. */
const mentions = (text: string, what: RegExp) => text.split("\n").filter((line) => what.test(line))

describe.concurrent("a failure is reported once", () => {
  it("under --verbose: the error once, no trace of a failed fiber", async () => {
    const unknown = await run(["tools", "call", "nope", "--verbose", ...everythingStdio])
    expect(unknown.code, unknown.stderr).toBe(2)
    expect(unknown.stderr).not.toMatch(/Fiber terminated|unhandled error|chunk-|\bat file:/)
    expect(mentions(unknown.stderr, /no tool named "nope"/)).toHaveLength(1)
    // A request of the server's that the CLI refuses is answered with the error, not traced.
    const refused = await run([
      "tools",
      "call",
      "trigger-sampling-request",
      "prompt=hi",
      "--verbose",
      ...everythingStdio
    ])
    expect(refused.code, refused.stderr).toBe(1)
    expect(refused.stderr).not.toMatch(/Fiber terminated|unhandled error|chunk-|\bat file:/)
  })

  it("a tool's error: once, on stderr, with the tool's words (sampling refused without --sampling-command)", async () => {
    const result = await run(["tools", "call", "trigger-sampling-request", "prompt=hi", ...everythingStdio])
    expect(result.code, result.stderr).toBe(1)
    const output = `${result.stdout}${result.stderr}`
    expect(mentions(output, /sampling/)).toStrictEqual([
      "error: tool trigger-sampling-request reported an error: MCP error -1: effect-mcp declined the sampling request: no --sampling-command is configured"
    ])
    expect(result.stdout).toBe("")
  })
})
