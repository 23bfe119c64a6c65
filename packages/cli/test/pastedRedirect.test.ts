/**
 * What `auth login --no-browser` takes from stdin: the whole address the browser was sent to,
 * its query alone, or `CODE#STATE`, each with its state; a code alone is refused (nothing would
 * tie it to this authorization), and so is a line with no code.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import { parsePasted } from "../src/internal/pastedRedirect.js"

const pair = (text: string) =>
  Either.map(parsePasted(text), (params) => [params.get("code"), params.get("state"), params.get("error")])

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

  it("a code alone, or a line without a code, is refused with what to paste", () => {
    expect(parsePasted("abc.DEF-123")).toStrictEqual(
      Either.left(
        "a code alone cannot be checked against this authorization; paste the whole address the browser was sent to"
      )
    )
    for (const text of ["http://127.0.0.1:4000/callback", "state=xyz", "not an address", "abc#", "#xyz"])
      expect(Either.getLeft(parsePasted(text))._tag, text).toBe("Some")
  })
})
