/**
 * The errors are recognised across copies of the packages (the one-file Promise client is a bundle
 * with its own) by their brand, a global symbol, never by shape alone; `instanceof` is left as the
 * language has it (the copy that made the error), and nothing patches the classes.
 */
import { describe, expect, it } from "@effect/vitest"
import { AuthError, McpError } from "@effect-mcp/client"
import { ProtocolVersion, Revision } from "@effect-mcp/protocol"

/** An error as another copy of the classes makes it: another prototype, the same global brand and tag. */
const fromAnotherCopy = (tag: string) => {
  const prototype = Object.create(Error.prototype)
  Object.defineProperty(prototype, Symbol.for("@effect-mcp/McpError"), { value: Symbol.for("@effect-mcp/McpError") })
  return Object.assign(Object.create(prototype), { _tag: tag, server: "s", reason: "r" })
}

describe("McpError across copies", () => {
  it("an error of another copy is an McpError with its tag, and not an instance of this copy's class", () => {
    for (const tag of ["TransportError", "UnsupportedProtocolVersion", "AuthorizationError", "InvalidInput"]) {
      const error = fromAnotherCopy(tag)
      expect(McpError.isMcpError(error)).toBe(true)
      expect(McpError.isMcpError(error) && error._tag).toBe(tag)
    }
    expect(fromAnotherCopy("TransportError") instanceof McpError.TransportError).toBe(false)
    expect(Object.hasOwn(McpError.TransportError, Symbol.hasInstance)).toBe(false)
  })

  it("the shape alone is not enough", () => {
    expect(McpError.isMcpError({ _tag: "TransportError", server: "s", reason: "r" })).toBe(false)
    expect(McpError.isMcpError(new Error("TransportError"))).toBe(false)
    expect(McpError.isMcpError(null)).toBe(false)
  })

  it("every error class of the packages carries the brand, the protocol's and the authorization's included", () => {
    const errors = [
      new McpError.TransportError({ server: "s", reason: "r" }),
      new McpError.RpcError({ server: "s", method: "m", code: -32601, errorMessage: "x" }),
      new McpError.InvalidInput({ server: "s", method: "m", reason: "r" }),
      new McpError.Overloaded({ server: "s", method: "m", limit: 1, queued: 1 }),
      new AuthError.AuthorizationError({ server: "s", step: "token", reason: "r" }),
      new AuthError.AuthorizationNotRequired({ server: "s", url: "u", status: 200 }),
      new ProtocolVersion.UnsupportedProtocolVersion({ requested: "2025-11-25", received: "1999-01-01" }),
      new Revision.UnrepresentableMessage({ version: "2025-11-25", method: "m", path: [], reason: "r" })
    ]
    for (const error of errors) expect(McpError.isMcpError(error)).toBe(true)
  })

  it("a subclass is an instance of its parent; the parent's instances are not the subclass's", () => {
    class Narrower extends McpError.TransportError {}
    const own = new McpError.TransportError({ server: "s", reason: "r" })
    expect(own instanceof McpError.TransportError).toBe(true)
    expect(own instanceof Narrower).toBe(false)
    expect(new Narrower({ server: "s", reason: "r" }) instanceof McpError.TransportError).toBe(true)
    expect(own instanceof Error).toBe(true)
  })

  it("detail is the message without the server's name, for a reader that names the server itself", () => {
    const errors = [
      new McpError.TransportError({ server: "s", reason: "cannot start x: not found", stderr: "boom" }),
      new McpError.RpcError({ server: "s", method: "initialize", code: -32601, errorMessage: "no" }),
      new McpError.InvalidInput({ server: "s", method: "tools/call", reason: "bad" }),
      new McpError.SessionUnavailable({ server: "s", reason: "closed" })
    ]
    for (const error of errors) expect(error.message).toBe(`s: ${error.detail}`)
    expect(errors[0]?.detail).toBe("transport failed: cannot start x: not found\n--- last lines of stderr ---\nboom")
  })
})
