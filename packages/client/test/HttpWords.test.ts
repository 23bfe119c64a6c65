/** How HTTP failures read: the ones a person meets first in plain words, HTML pages by their title. */
import { describe, expect, it } from "@effect/vitest"
import { describeCause, statusAnswer } from "../src/internal/transport/httpBody.js"

const failure = (message: string, code?: string) =>
  Object.assign(new Error(message), code === undefined ? {} : { code })

describe("HTTP failures in words", () => {
  it("a refused connection, a host that does not resolve and https:// to a plain port, each with its code", () => {
    expect(describeCause(failure("connect ECONNREFUSED 127.0.0.1:3001", "ECONNREFUSED"))).toBe(
      "nothing is listening at 127.0.0.1:3001: is the server running, on that port? (ECONNREFUSED)"
    )
    expect(describeCause(failure("getaddrinfo ENOTFOUND mcp.invalid", "ENOTFOUND"))).toBe(
      "the host name mcp.invalid does not resolve (ENOTFOUND)"
    )
    expect(
      describeCause(
        failure(
          "C0D7B4F7:error:0A00010B:SSL routines:ssl3_get_record:wrong version number",
          "ERR_SSL_WRONG_VERSION_NUMBER"
        )
      )
    ).toBe(
      "the server does not speak TLS there: an https:// URL for a plain HTTP port? (try http://) (ERR_SSL_WRONG_VERSION_NUMBER)"
    )
    // Anything else as it is, its code said once.
    expect(describeCause(failure("read ECONNRESET", "ECONNRESET"))).toBe("read ECONNRESET")
    expect(describeCause(failure("boom", "EWHAT"))).toBe("EWHAT: boom")
  })

  it("an HTML page by its title, with a word on the path; any other body as it begins", () => {
    expect(
      statusAnswer(501, "<!DOCTYPE HTML>\n<html><head><title>Error response</title></head><body>…</body></html>")
    ).toBe(
      'HTTP 501, an HTML page titled "Error response": this does not look like an MCP endpoint (is the path right? servers often use /mcp)'
    )
    expect(statusAnswer(404, "<html><body>nothing</body></html>")).toBe(
      "HTTP 404, an HTML page: this does not look like an MCP endpoint (is the path right? servers often use /mcp)"
    )
    expect(statusAnswer(500, "internal failure")).toBe("HTTP 500: internal failure")
    expect(statusAnswer(502, "")).toBe("HTTP 502")
  })
})
