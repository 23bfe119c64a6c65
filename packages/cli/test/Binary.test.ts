/**
 * Binary content a user can get at, on the built binary against the reference server:
 * `--out DIR` saves images and embedded resources and prints their paths (never
 * overwriting); an image is drawn inline only on a terminal that shows images: kitty and
 * iTerm2 known by their environment, sixel by its environment or by the terminal's answer to
 * the device attributes question (the test plays the terminal and answers it).
 */
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { extensionOf, inlineImageProtocol, safeName } from "../src/commands/binary.js"
import { everythingStdio, run } from "./support/cli.js"
import { runOnTerminal, startOnTerminal } from "./support/pty.js"

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47])

describe("binary content", () => {
  it("names files safely", () => {
    expect(extensionOf("image/png")).toBe("png")
    expect(extensionOf("application/x-unknown")).toBe("bin")
    expect(safeName("../../etc/passwd")).toBe("etc_passwd")
    expect(inlineImageProtocol({ TERM: "xterm-kitty" })).toBe("kitty")
    expect(inlineImageProtocol({ TERM_PROGRAM: "iTerm.app" })).toBe("iterm")
    expect(inlineImageProtocol({ TERM: "foot" })).toBe("sixel")
    expect(inlineImageProtocol({ TERM: "xterm-256color" })).toBeUndefined()
  })

  it("--out DIR saves images and embedded resources and prints the paths", async () => {
    const dir = mkdtempSync(join(tmpdir(), "effect-mcp-out-"))
    const image = await run(["tools", "call", "get-tiny-image", "--out", dir, ...everythingStdio])
    expect(image.code, image.stderr).toBe(0)
    // The only image is named after the tool (the text blocks around it do not count).
    expect(image.stdout).toContain(`[image image/png, 4033 bytes]\n  saved to ${join(dir, "get-tiny-image.png")}`)
    expect(readFileSync(join(dir, "get-tiny-image.png")).subarray(0, 4)).toStrictEqual(PNG)
    // A second run does not overwrite the first file.
    const again = await run(["tools", "call", "get-tiny-image", "--out", dir, ...everythingStdio])
    expect(again.stdout).toContain(`saved to ${join(dir, "get-tiny-image-2.png")}`)
    const blob = await run([
      "tools",
      "call",
      "get-resource-reference",
      "resourceType=Blob",
      "resourceId:=2",
      "--out",
      dir,
      ...everythingStdio
    ])
    expect(blob.code, blob.stderr).toBe(0)
    expect(blob.stdout).toContain(`saved to ${join(dir, "2.txt")}`)
    const read = await run(["resources", "read", "demo://resource/dynamic/blob/3", "--out", dir, ...everythingStdio])
    expect(read.code, read.stderr).toBe(0)
    expect(read.stdout).toContain(`saved to ${join(dir, "3.txt")}`)
  })

  it("a text/* blob is printed as its text", async () => {
    const read = await run(["resources", "read", "demo://resource/dynamic/blob/1", ...everythingStdio])
    expect(read.code, read.stderr).toBe(0)
    expect(read.stdout).toMatch(/^Resource 1: This is a base64 blob created at .*\n$/)
    const embedded = await run([
      "tools",
      "call",
      "get-resource-reference",
      "resourceType=Blob",
      "resourceId:=2",
      ...everythingStdio
    ])
    expect(embedded.code, embedded.stderr).toBe(0)
    expect(embedded.stdout).toMatch(
      /^\[resource demo:\/\/resource\/dynamic\/blob\/2\]\nResource 2: This is a base64 blob/m
    )
  })

  it("draws an image inline only on a terminal that shows images", async () => {
    const iterm = await runOnTerminal(["tools", "call", "get-tiny-image", ...everythingStdio], {
      env: { TERM_PROGRAM: "iTerm.app" }
    })
    expect(iterm.code).toBe(0)
    expect(iterm.screen).toContain("\x1b]1337;File=inline=1;size=4033:iVBOR")
    const plain = await runOnTerminal(["tools", "call", "get-tiny-image", ...everythingStdio], {
      env: { TERM_PROGRAM: "", KITTY_WINDOW_ID: undefined, LC_TERMINAL: "" }
    })
    expect(plain.code).toBe(0)
    expect(plain.screen).toContain("[image image/png, 4033 bytes]")
    expect(plain.screen).not.toContain("\x1b]1337")
    expect(plain.screen).not.toContain("\x1b_G")
    expect(plain.screen).not.toContain("\x1bP")
  })
})

/** A terminal whose environment names no image protocol. */
const NO_IMAGES = { TERM_PROGRAM: "", KITTY_WINDOW_ID: undefined, LC_TERMINAL: "", MLTERM: undefined }

/** The device attributes question (after the cell size one). */
const QUESTION = "\x1b[16t\x1b[c"

const ESC = "\x1b"

/** A sixel image of the tiny image's size: DCS, 1:1 pixels 20 × 20, a palette, bands, ST. */
const SIXEL = new RegExp(`${ESC}P0;1;0q"1;1;20;20(#\\d+;2;\\d+;\\d+;\\d+)+#\\d+[?-~!\\d$#-]*${ESC}\\\\`)

/** `tools call get-tiny-image` on a terminal that answers the question with `answer` (or never). */
const tinyImageOn = async (answer: string | undefined, env: { readonly [name: string]: string | undefined } = {}) => {
  const terminal = startOnTerminal(["tools", "call", "get-tiny-image", ...everythingStdio], {
    env: { ...NO_IMAGES, ...env },
    columns: 100
  })
  await terminal.waitFor("[image image/png, 4033 bytes]")
  const asked = await terminal.waitFor(QUESTION)
  // The terminal answers at once (not typed as a person would).
  if (answer !== undefined) terminal.child.stdin?.write(answer)
  const finished = await terminal.finished
  return { ...finished, after: finished.screen.slice(asked) }
}

describe("sixel images", () => {
  it("drawn when the terminal's device attributes list sixel (4), after its cell size", async () => {
    const { code, screen, after } = await tinyImageOn("\x1b[6;20;10t\x1b[?62;4;22c")
    expect(code, screen).toBe(0)
    expect(after).toMatch(SIXEL)
    // The answer was read in raw mode: the terminal did not echo it.
    expect(after).not.toContain("62;4;22")
  })

  it("not drawn when they do not, nor when nobody answers (after a bounded wait)", async () => {
    const [without, silent] = await Promise.all([tinyImageOn("\x1b[?62;22c"), tinyImageOn(undefined)])
    for (const { code, screen } of [without, silent]) {
      expect(code, screen).toBe(0)
      expect(screen).toContain("[image image/png, 4033 bytes]")
      expect(screen).not.toContain("\x1bP")
    }
  })

  it("drawn on a terminal known by its TERM even when it does not answer", async () => {
    const { code, screen, after } = await tinyImageOn(undefined, { TERM: "foot" })
    expect(code, screen).toBe(0)
    expect(after).toMatch(SIXEL)
  })

  it("neither asked nor drawn off a terminal, nor where kitty or iTerm2 draw", async () => {
    const piped = await run(["tools", "call", "get-tiny-image", ...everythingStdio], { env: { TERM: "foot" } })
    expect(piped.code, piped.stderr).toBe(0)
    expect(piped.stdout).not.toContain("\x1b")
    const kitty = await runOnTerminal(["tools", "call", "get-tiny-image", ...everythingStdio], {
      env: { ...NO_IMAGES, KITTY_WINDOW_ID: "1" }
    })
    expect(kitty.code, kitty.screen).toBe(0)
    expect(kitty.screen).toContain("\x1b_Ga=T,f=100,m=1;iVBOR")
    expect(kitty.screen).not.toContain("\x1b[c")
    expect(kitty.screen).not.toContain("\x1bP")
  })
})
