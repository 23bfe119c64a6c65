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
  const schema = { type: "object", properties }

  it("reads key=value by the property's type in the input schema", () => {
    expect(
      parseArguments(
        ["text=123", "count=3", "ratio=0.5", "flag=true", "either=7", "choice=1", "list=[1]", "free=4"],
        schema
      )
    ).toStrictEqual(
      Either.right({ text: "123", count: 3, ratio: 0.5, flag: true, either: 7, choice: "1", list: [1], free: 4 })
    )
    expect(parseArguments(["either=seven", "text=null", "text:=null"], schema)).toStrictEqual(
      Either.right({ either: "seven", text: null })
    )
    expect(parseArguments(["count=three"], schema)).toStrictEqual(
      Either.left('count=three: "count" takes an integer (write count:=<json> to give any JSON value)')
    )
    expect(parseArguments(["flag=yes"], schema)).toStrictEqual(
      Either.left('flag=yes: "flag" takes a boolean (write flag:=<json> to give any JSON value)')
    )
  })

  it.prop("a string property keeps any text as typed", [FastCheck.string()], ([text]) => {
    expect(parseArguments([`text=${text}`], schema)).toStrictEqual(Either.right({ text }))
  })

  it("reads key=value as JSON when it parses, else as a string; key:=json always as JSON", () => {
    expect(parseArguments(["a=2", "b=two", "c:=[1,2]", 'd={"x":1}', "e=", "f=a=b", 'g:="s"'])).toStrictEqual(
      Either.right({ a: 2, b: "two", c: [1, 2], d: { x: 1 }, e: "", f: "a=b", g: "s" })
    )
  })

  it("rejects a positional value with no schema to place it, and key:= without JSON", () => {
    expect(parseArguments(["oops"])).toStrictEqual(
      Either.left(
        '"oops" is neither key=value nor key:=json, and the input schema has no property left for a positional value'
      )
    )
    expect(Either.isLeft(parseArguments(["n:=not json"]))).toBe(true)
  })

  it("positional values fill the properties not named, required first, each read by its type", () => {
    const sum = {
      type: "object",
      properties: { note: { type: "string" }, a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"]
    }
    expect(parseArguments(["2", "3"], sum)).toStrictEqual(Either.right({ a: 2, b: 3 }))
    expect(parseArguments(["2", "3", "12"], sum)).toStrictEqual(Either.right({ a: 2, b: 3, note: "12" }))
    expect(parseArguments(["a=5", "3"], sum)).toStrictEqual(Either.right({ a: 5, b: 3 }))
    expect(parseArguments(["two"], sum)).toStrictEqual(
      Either.left('a=two: "a" takes a number (write a:=<json> to give any JSON value)')
    )
    expect(parseArguments(["1", "2", "3", "4"], sum)).toStrictEqual(
      Either.left("4 positional values for 3 properties (a, b, note)")
    )
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
    expect(parseHeader("X-Key=a:b=c")).toStrictEqual(Either.right(["X-Key", "a:b=c"]))
    expect(Either.isLeft(parseHeader("no colon"))).toBe(true)
    expect(Either.isLeft(parseHeader("bad name: x"))).toBe(true)
    expect(parseAssignment("K=a=b")).toStrictEqual(Either.right(["K", "a=b"]))
    expect(Either.isLeft(parseAssignment("=x"))).toBe(true)
  })
})
