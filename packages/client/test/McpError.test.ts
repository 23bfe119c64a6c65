/**
 * The error classes recognise their instances made by another copy of the package (the one-file
 * Promise client is a bundle with its own): by the tag under the package's global symbol, never by
 * shape alone, and a subclass never takes its parent's instances.
 */
import { describe, expect, it } from "@effect/vitest"
import { AuthError, McpError } from "@effect-mcp/client"

/** An error as another copy of the classes makes it: another prototype, the same global brand and tag. */
const fromAnotherCopy = (tag: string) => {
  const prototype = Object.create(Error.prototype)
  Object.defineProperty(prototype, Symbol.for("@effect-mcp/jsonrpc/PeerError"), { value: tag })
  return Object.assign(Object.create(prototype), { _tag: tag, server: "s", reason: "r" })
}

describe("McpError across copies", () => {
  it("an instance of another copy's class is an instance of the same-named class, and of no other", () => {
    expect(fromAnotherCopy("TransportError") instanceof McpError.TransportError).toBe(true)
    expect(fromAnotherCopy("TransportError") instanceof McpError.RpcError).toBe(false)
    expect(fromAnotherCopy("UnsupportedProtocolVersion") instanceof McpError.UnsupportedProtocolVersion).toBe(true)
    expect(fromAnotherCopy("AuthorizationError") instanceof AuthError.AuthorizationError).toBe(true)
  })

  it("the shape alone is not enough, and a subclass does not take its parent's instances", () => {
    expect({ _tag: "TransportError", server: "s", reason: "r" } instanceof McpError.TransportError).toBe(false)
    class Narrower extends McpError.TransportError {}
    const own = new McpError.TransportError({ server: "s", reason: "r" })
    expect(own instanceof McpError.TransportError).toBe(true)
    expect(own instanceof Narrower).toBe(false)
    expect(fromAnotherCopy("TransportError") instanceof Narrower).toBe(false)
    expect(new Narrower({ server: "s", reason: "r" }) instanceof McpError.TransportError).toBe(true)
    expect(own instanceof Error).toBe(true)
  })
})
