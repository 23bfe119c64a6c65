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
})
