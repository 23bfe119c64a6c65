import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import { parseArguments, parseAssignment, parseHeader, splitCommandLine } from "../src/internal/words.js"

/** Quotes a word for a POSIX shell. */
const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`

describe("splitCommandLine", () => {
  it("splits on whitespace and honours quotes and backslashes", () => {
    expect(splitCommandLine(`npx -y "@scope/pkg" 'a b' c\\ d "e \\"f\\"" ''`)).toStrictEqual(
      Either.right(["npx", "-y", "@scope/pkg", "a b", "c d", 'e "f"', ""])
    )
  })

  it("rejects an unclosed quote", () => {
    expect(Either.isLeft(splitCommandLine(`node "server.js`))).toBe(true)
  })

  it.prop(
    "any words, quoted, split back into the same words",
    [FastCheck.array(FastCheck.string(), { maxLength: 8 })],
    ([words]) => {
      expect(splitCommandLine(words.map(quote).join(" "))).toStrictEqual(Either.right(words))
    }
  )
})

describe("parseArguments", () => {
  it("reads key=value as JSON when it parses, else as a string; key:=json always as JSON", () => {
    expect(parseArguments(["a=2", "b=two", "c:=[1,2]", 'd={"x":1}', "e=", "f=a=b", 'g:="s"'])).toStrictEqual(
      Either.right({ a: 2, b: "two", c: [1, 2], d: { x: 1 }, e: "", f: "a=b", g: "s" })
    )
  })

  it("rejects words without = and key:= without JSON", () => {
    expect(Either.isLeft(parseArguments(["oops"]))).toBe(true)
    expect(Either.isLeft(parseArguments(["n:=not json"]))).toBe(true)
  })

  it.prop(
    "key:=JSON.stringify(v) gives back v for any JSON value",
    [FastCheck.stringMatching(/^[a-z][a-z0-9_]{0,10}$/), FastCheck.jsonValue()],
    ([key, value]) => {
      const parsed = parseArguments([`${key}:=${JSON.stringify(value)}`])
      expect(parsed).toStrictEqual(Either.right({ [key]: JSON.parse(JSON.stringify(value)) }))
    }
  )
})

describe("headers and assignments", () => {
  it("parses Name: value and KEY=VALUE", () => {
    expect(parseHeader("Authorization: Bearer a:b")).toStrictEqual(Either.right(["Authorization", "Bearer a:b"]))
    expect(Either.isLeft(parseHeader("no colon"))).toBe(true)
    expect(Either.isLeft(parseHeader("bad name: x"))).toBe(true)
    expect(parseAssignment("K=a=b")).toStrictEqual(Either.right(["K", "a=b"]))
    expect(Either.isLeft(parseAssignment("=x"))).toBe(true)
  })
})
