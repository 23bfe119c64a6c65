import { describe, expect, it } from "@effect/vitest"
import * as FastCheck from "effect/FastCheck"
import { escapeJsonControls, sanitize } from "../src/internal/controls.js"
import { activity, exitCode } from "../src/internal/signals.js"

/** A control character a terminal acts on: C0 but tab and newline, DEL, C1. */
const isControl = (character: string) => {
  const code = character.codePointAt(0) ?? 0
  return (code < 0x20 && code !== 0x09 && code !== 0x0a) || (code >= 0x7f && code <= 0x9f)
}

describe("sanitize", () => {
  it("removes OSC, CSI, DCS and their 8-bit forms, keeping the text around them, newlines and tabs", () => {
    expect(sanitize("a\x1b]0;title\x07b\x1b]8;;http://x\x1b\\c")).toBe("abc")
    expect(sanitize("red \x1b[31mRED\x1b[0m \x1b[2J\x1b[?25l.")).toBe("red RED .")
    expect(sanitize("\u009d0;t\u009cx\u009b31my\u0090q\u009cz")).toBe("xyz")
    expect(sanitize("\x1bP1$qm\x1b\\ok\x1b(B\x1b7")).toBe("ok")
    expect(sanitize("line\r\nnext\ttab\x08\x00\x7f")).toBe("line\nnext\ttab")
    expect(sanitize("unterminated \x1b]0;rest")).toBe("unterminated ")
    expect(sanitize("plain ✓ — text")).toBe("plain ✓ — text")
  })

  it.prop("leaves no control character but tab and newline", [FastCheck.string({ unit: "binary" })], ([text]) => {
    expect([...sanitize(text)].filter(isControl)).toStrictEqual([])
  })

  it.prop("keeps text without controls as it is", [FastCheck.string()], ([text]) => {
    const clean = [...text].filter((character) => !isControl(character)).join("")
    expect(sanitize(clean)).toBe(clean)
  })

  it.prop("JSON with C1 escaped is the same value", [FastCheck.jsonValue()], ([value]) => {
    const text = escapeJsonControls(JSON.stringify(value))
    expect(text).not.toMatch(/[\u007f-\u009f]/)
    expect(JSON.parse(text)).toStrictEqual(JSON.parse(JSON.stringify(value)))
  })
})

describe("signals", () => {
  it("exit with 128 + the signal's number; name the activity by its first words", () => {
    expect([exitCode("SIGINT"), exitCode("SIGTERM")]).toStrictEqual([130, 143])
    expect(activity(["tools", "call", "echo", "message=hi", "--json"])).toBe("tools call echo")
    expect(activity(["logs", "--level", "info"])).toBe("logs")
    expect(activity(["prompts", "get", "args-prompt", "city=Paris"])).toBe("prompts get args-prompt")
  })
})
