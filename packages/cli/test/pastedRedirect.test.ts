/**
 * What `auth login --no-browser` takes from stdin: the whole address the browser was sent to,
 * its query alone, or `CODE#STATE`, each with its state, or a code alone (taken where PKCE binds
 * it); a stray word or a line with neither is refused.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import { parsePasted } from "../src/internal/pastedRedirect.js"

const pair = (text: string) =>
  Either.map(parsePasted(text), (pasted) =>
    pasted._tag === "Code"
      ? pasted.code
      : [pasted.params.get("code"), pasted.params.get("state"), pasted.params.get("error")]
  )

describe("a pasted redirect", () => {
  it("the address, its query or CODE#STATE give the code and the state", () => {
    for (const text of [
      "  http://127.0.0.1:4000/callback?code=abc&state=xyz&iss=https%3A%2F%2Fas  ",
      "?code=abc&state=xyz",
      "code=abc&state=xyz",
      "abc#xyz"
    ])
      expect(pair(text)).toStrictEqual(Either.right(["abc", "xyz", null]))
    expect(pair("http://127.0.0.1:4000/callback?error=access_denied&state=xyz")).toStrictEqual(
      Either.right([null, "xyz", "access_denied"])
    )
  })

  it("a code alone is a code; a stray word or a line without a code is refused with what to paste", () => {
    expect(pair("  abc.DEF-123~/+_ ")).toStrictEqual(Either.right("abc.DEF-123~/+_"))
    for (const text of [
      "http://127.0.0.1:4000/callback",
      "state=xyz",
      "not an address",
      "abc#",
      "#xyz",
      "y",
      "ok",
      "yes-do"
    ])
      expect(Either.getLeft(parsePasted(text))._tag, text).toBe("Some")
  })
})
