/**
 * Binary content a user can get at, on the built binary against the reference server:
 * `--out DIR` saves images and embedded resources and prints their paths (never
 * overwriting); an image is drawn inline only on a terminal that shows images.
 */
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { extensionOf, inlineImageProtocol, safeName } from "../src/commands/binary.js"
import { everythingStdio, run } from "./support/cli.js"
import { runOnTerminal } from "./support/pty.js"

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47])

describe("binary content", () => {
  it("names files safely", () => {
    expect(extensionOf("image/png")).toBe("png")
    expect(extensionOf("application/x-unknown")).toBe("bin")
    expect(safeName("../../etc/passwd")).toBe("etc_passwd")
    expect(inlineImageProtocol({ TERM: "xterm-kitty" })).toBe("kitty")
    expect(inlineImageProtocol({ TERM_PROGRAM: "iTerm.app" })).toBe("iterm")
    expect(inlineImageProtocol({ TERM: "xterm-256color" })).toBeUndefined()
  })

  it("--out DIR saves images and embedded resources and prints the paths", async () => {
    const dir = mkdtempSync(join(tmpdir(), "effect-mcp-out-"))
    const image = await run(["tools", "call", "get-tiny-image", "--out", dir, ...everythingStdio])
    expect(image.code, image.stderr).toBe(0)
    expect(image.stdout).toContain(`[image image/png, 4033 bytes]\n  saved to ${join(dir, "get-tiny-image-2.png")}`)
    expect(readFileSync(join(dir, "get-tiny-image-2.png")).subarray(0, 4)).toStrictEqual(PNG)
    // A second run does not overwrite the first file.
    const again = await run(["tools", "call", "get-tiny-image", "--out", dir, ...everythingStdio])
    expect(again.stdout).toContain(`saved to ${join(dir, "get-tiny-image-2-2.png")}`)
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
  })
})
