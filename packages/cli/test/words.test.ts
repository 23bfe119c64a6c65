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
  const properties = {
    text: { type: "string" },
    count: { type: "integer" },
    ratio: { type: "number" },
    flag: { type: "boolean" },
    either: { type: ["number", "string"] },
    choice: { enum: ["1", "2"] },
    list: { type: "array" }
  }

  it("reads key=value by the property's type in the input schema", () => {
    expect(
      parseArguments(
        ["text=123", "count=3", "ratio=0.5", "flag=true", "either=7", "choice=1", "list=[1]", "free=4"],
        properties
      )
    ).toStrictEqual(
      Either.right({ text: "123", count: 3, ratio: 0.5, flag: true, either: 7, choice: "1", list: [1], free: 4 })
    )
    expect(parseArguments(["either=seven", "text=null", "text:=null"], properties)).toStrictEqual(
      Either.right({ either: "seven", text: null })
    )
    expect(parseArguments(["count=three"], properties)).toStrictEqual(
      Either.left('count=three: "count" takes an integer (write count:=<json> to give any JSON value)')
    )
    expect(parseArguments(["flag=yes"], properties)).toStrictEqual(
      Either.left('flag=yes: "flag" takes a boolean (write flag:=<json> to give any JSON value)')
    )
  })

  it.prop("a string property keeps any text as typed", [FastCheck.string()], ([text]) => {
    expect(parseArguments([`text=${text}`], properties)).toStrictEqual(Either.right({ text }))
  })

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
