/** How failures become exit codes and words, decided in process (no binary needed). */
import { describe, expect, it } from "@effect/vitest"
import { McpError } from "@effect-mcp/client"
import { describe as describeFailure, ExitCode, exitCodeOf, toJson } from "../src/CliError.js"

describe("CliError", () => {
  it("a server that asks for input the client cannot give is a protocol failure (3), not a usage error (2)", () => {
    const roots = new McpError.InputNotGiven({
      server: "s",
      method: "tools/call",
      request: "roots/list",
      reason: "the server asked for roots/list (where), which this client could not give: Method not found: roots/list"
    })
    expect(exitCodeOf(roots)).toBe(ExitCode.connection)
    expect(describeFailure(roots, false)).toBe(
      "error: s: tools/call: the server asked for roots/list (where), which this client could not give: Method not found: roots/list"
    )
    const rounds = new McpError.InputNotGiven({
      server: "s",
      method: "tools/call",
      rounds: 10,
      reason: "the server asked for input 10 times; the limit is 10 rounds (maxInputRounds)"
    })
    expect(toJson(rounds)).toStrictEqual({
      kind: "InputNotGiven",
      message: "s: tools/call: the server asked for input 10 times; the limit is 10 rounds (maxInputRounds)",
      server: "s",
      method: "tools/call",
      exitCode: 3
    })
    // The caller's own bad input stays a usage error.
    expect(exitCodeOf(new McpError.InvalidInput({ server: "s", method: "tools/call", reason: "bad" }))).toBe(
      ExitCode.usage
    )
  })
})
