/**
 * Sixel images from PNGs, piece by piece: the PNG decoder (the reference server's tiny image,
 * and every colour type, bit depth, row filter and interlacing written here), scaling, the
 * palette, the sixel bands of a known small image, and asking the terminal whether it draws
 * sixel without leaving it in raw mode.
 */
import { createHash } from "node:crypto"
import { EventEmitter } from "node:events"
import { readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { deflateSync } from "node:zlib"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { decodePng, type Image } from "../src/internal/png.js"
import {
  askTerminal,
  encode,
  fit,
  fromPng,
  parseReply,
  quantize,
  sixelByEnvironment,
  type TerminalInput
} from "../src/internal/sixel.js"
import { everything } from "./support/cli.js"

/** The reference server's `get-tiny-image` PNG. */
const TINY = Buffer.from(
  /"(iVBOR[A-Za-z0-9+/=]+)"/.exec(readFileSync(join(dirname(everything), "tools", "get-tiny-image.js"), "utf8"))?.[1] ??
    "",
  "base64"
)
/** The SHA-256 of its RGBA as an independent decoder gave it (every pixel opaque). */
const TINY_RGBA_SHA256 = "3f2e9d724b6020c926ec3fe4cabf38d229cedbce2ecdefd0df286c7e7910e4b2"

// ---------------------------------------------------------------------------------------------
// A PNG writer for the tests: any colour type and depth, each row with a chosen filter, Adam7.

const chunk = (type: string, data: Uint8Array) => {
  const length = Buffer.alloc(4)
  length.writeUInt32BE(data.length)
  // The decoder does not check CRCs; zeros stand for them.
  return Buffer.concat([length, Buffer.from(type, "latin1"), data, Buffer.alloc(4)])
}

const paeth = (a: number, b: number, c: number) => {
  const p = a + b - c
  const [pa, pb, pc] = [Math.abs(p - a), Math.abs(p - b), Math.abs(p - c)]
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c
}

/** Filters a row with filter `type` (0 to 4), given the row above (unfiltered). */
const filterRow = (type: number, row: Uint8Array, above: Uint8Array, bpp: number) =>
  Uint8Array.from(row, (value, i) => {
    const [left, up, upLeft] = [i >= bpp ? row[i - bpp] : 0, above[i], i >= bpp ? above[i - bpp] : 0] as [
      number,
      number,
      number
    ]
    const predicted = [0, left, up, (left + up) >> 1, paeth(left, up, upLeft)][type] ?? 0
    return (value - predicted) & 255
  })

const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2]
] as const

interface PngSpec {
  readonly width: number
  readonly height: number
  readonly colourType: number
  readonly depth: number
  /** The samples of pixel (x, y), at the given depth. */
  readonly samples: (x: number, y: number) => ReadonlyArray<number>
  readonly palette?: ReadonlyArray<readonly [number, number, number]>
  readonly transparency?: Uint8Array
  readonly interlaced?: boolean
}

/** A PNG of `spec`, row n of each pass filtered with filter n mod 5 (all five are used). */
const writePng = (spec: PngSpec): Uint8Array => {
  const channels = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }[spec.colourType] ?? 1
  const bitsPerPixel = channels * spec.depth
  const bpp = Math.max(1, bitsPerPixel >> 3)
  const header = Buffer.alloc(13)
  header.writeUInt32BE(spec.width, 0)
  header.writeUInt32BE(spec.height, 4)
  header.set([spec.depth, spec.colourType, 0, 0, spec.interlaced === true ? 1 : 0], 8)
  const raw: Array<Uint8Array> = []
  for (const [x0, y0, dx, dy] of spec.interlaced === true ? ADAM7 : ([[0, 0, 1, 1]] as const)) {
    const [width, height] = [Math.ceil((spec.width - x0) / dx), Math.ceil((spec.height - y0) / dy)]
    if (width <= 0 || height <= 0) continue
    const stride = Math.ceil((width * bitsPerPixel) / 8)
    let above = new Uint8Array(stride)
    for (let y = 0; y < height; y++) {
      const row = new Uint8Array(stride)
      for (let x = 0; x < width; x++)
        for (const [c, value] of spec.samples(x0 + x * dx, y0 + y * dy).entries()) {
          const index = x * channels + c
          if (spec.depth === 16) row.set([value >> 8, value & 255], 2 * index)
          else if (spec.depth === 8) row[index] = value
          else {
            const bit = index * spec.depth
            row[bit >> 3] = (row[bit >> 3] ?? 0) | (value << (8 - spec.depth - (bit & 7)))
          }
        }
      const type = y % 5
      raw.push(Uint8Array.of(type), filterRow(type, row, above, bpp))
      above = row
    }
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    ...(spec.palette === undefined ? [] : [chunk("PLTE", Uint8Array.from(spec.palette.flat()))]),
    ...(spec.transparency === undefined ? [] : [chunk("tRNS", spec.transparency)]),
    chunk("IDAT", deflateSync(Buffer.concat(raw))),
    chunk("IEND", new Uint8Array())
  ])
}

/** The RGBA of pixel (x, y). */
const pixel = (image: Image, x: number, y: number) =>
  Array.from(image.rgba.subarray((y * image.width + x) * 4, (y * image.width + x) * 4 + 4))

const decoded = (png: Uint8Array): Image => Either.getOrThrowWith(decodePng(png), (reason) => new Error(reason))

/** Checks every pixel of a decoded `spec` against `expected`. */
const expectPixels = (spec: PngSpec, expected: (x: number, y: number) => ReadonlyArray<number>) => {
  for (const interlaced of [false, true]) {
    const image = decoded(writePng({ ...spec, interlaced }))
    expect([image.width, image.height]).toStrictEqual([spec.width, spec.height])
    for (let y = 0; y < spec.height; y++)
      for (let x = 0; x < spec.width; x++)
        expect([interlaced, x, y, ...pixel(image, x, y)]).toStrictEqual([interlaced, x, y, ...expected(x, y)])
  }
}

// 13 × 11: not a multiple of 8, so Adam7's passes have ragged ends.
const [W, H] = [13, 11]

describe("the PNG decoder", () => {
  it("decodes the reference server's tiny image (20×20 RGBA) as an independent decoder does", () => {
    const image = decoded(TINY)
    expect([image.width, image.height]).toStrictEqual([20, 20])
    expect(createHash("sha256").update(image.rgba).digest("hex")).toBe(TINY_RGBA_SHA256)
  })

  it("greys of 1, 2, 4, 8 and 16 bits, with a transparent grey", () => {
    for (const depth of [1, 2, 4, 8, 16]) {
      const maximum = 2 ** depth - 1
      const grey = (x: number, y: number) => (x * 7 + y * 3) % (maximum + 1)
      const key = grey(1, 1)
      const transparency = Uint8Array.of(key >> 8, key & 255)
      expectPixels(
        { width: W, height: H, colourType: 0, depth, samples: (x, y) => [grey(x, y)], transparency },
        (x, y) => {
          const level = depth === 16 ? grey(x, y) >> 8 : Math.round((grey(x, y) * 255) / maximum)
          return [level, level, level, grey(x, y) === key ? 0 : 255]
        }
      )
    }
  })

  it("palettes of 1, 2, 4 and 8 bits, with per-entry alpha", () => {
    for (const depth of [1, 2, 4, 8]) {
      const size = Math.min(2 ** depth, 40)
      const palette = Array.from({ length: size }, (_, i) => [i * 6, 255 - i * 5, (i * 37) % 256] as const)
      const transparency = Uint8Array.from({ length: Math.min(size, 3) }, (_, i) => i * 100)
      const index = (x: number, y: number) => (x + 2 * y) % size
      expectPixels(
        { width: W, height: H, colourType: 3, depth, samples: (x, y) => [index(x, y)], palette, transparency },
        (x, y) => [...(palette[index(x, y)] ?? []), transparency[index(x, y)] ?? 255]
      )
    }
  })

  it("RGB and RGBA, grey and alpha, of 8 and 16 bits; a transparent RGB colour", () => {
    for (const depth of [8, 16]) {
      const maximum = 2 ** depth - 1
      const value = (x: number, y: number, c: number) =>
        ((x * 977 + y * 131 + c * 4099) * (depth === 16 ? 613 : 1)) % (maximum + 1)
      const level = (v: number) => (depth === 16 ? v >> 8 : v)
      const rgb = (x: number, y: number) => [value(x, y, 0), value(x, y, 1), value(x, y, 2)]
      const key = rgb(2, 3)
      const transparency = Uint8Array.from(key.flatMap((v) => [v >> 8, v & 255]))
      const transparent = (x: number, y: number) => rgb(x, y).every((v, c) => v === key[c])
      expectPixels({ width: W, height: H, colourType: 2, depth, samples: rgb, transparency }, (x, y) => [
        ...rgb(x, y).map(level),
        transparent(x, y) ? 0 : 255
      ])
      const rgba = (x: number, y: number) => [...rgb(x, y), value(x, y, 3)]
      expectPixels({ width: W, height: H, colourType: 6, depth, samples: rgba }, (x, y) => rgba(x, y).map(level))
      const greyAlpha = (x: number, y: number) => [value(x, y, 0), value(x, y, 1)]
      expectPixels({ width: W, height: H, colourType: 4, depth, samples: greyAlpha }, (x, y) => {
        const [grey = 0, alpha = 0] = greyAlpha(x, y).map(level)
        return [grey, grey, grey, alpha]
      })
    }
  })

  it("noise: every filter's edge cases (ties in Paeth's predictor, sums past 255)", () => {
    // A linear congruential generator: the same noise on every run.
    let state = 12345
    const noise = Array.from({ length: 64 * 64 * 4 }, () => {
      state = (state * 1103515245 + 12345) % 2 ** 31
      return (state >> 16) & 255
    })
    const rgba = (x: number, y: number) => noise.slice((y * 64 + x) * 4, (y * 64 + x) * 4 + 4)
    expectPixels({ width: 64, height: 64, colourType: 6, depth: 8, samples: rgba }, rgba)
  })

  it("refuses what is not a readable PNG, and images too large to draw", () => {
    const good = writePng({ width: 2, height: 2, colourType: 0, depth: 8, samples: () => [7] })
    const reason = (bytes: Uint8Array) => Either.getLeft(decodePng(bytes)).pipe(Option.getOrElse(() => "decoded"))
    expect(reason(Buffer.from("GIF89a"))).toBe("not a PNG")
    expect(reason(good.subarray(0, 40))).toMatch(/cut short/)
    const huge = Buffer.from(good)
    huge.writeUInt32BE(5000, 16)
    huge.writeUInt32BE(5000, 20)
    expect(reason(huge)).toBe("5000×5000 is too large")
    // More data than the header announces: inflating stops at the announced size.
    const lying = Buffer.from(good)
    lying.writeUInt32BE(1, 20)
    expect(reason(lying)).toMatch(/does not inflate to 3 bytes/)
    expect(reason(writePng({ width: 2, height: 2, colourType: 5, depth: 8, samples: () => [0] }))).toBe(
      "colour type 5 is not PNG's"
    )
    const palette = writePng({
      width: 2,
      height: 1,
      colourType: 3,
      depth: 8,
      samples: (x) => [x * 3],
      palette: [[0, 0, 0]]
    })
    expect(reason(palette)).toBe("palette index 3 past the palette's 1 colours")
  })
})

const image = (width: number, height: number, colour: (x: number, y: number) => ReadonlyArray<number>): Image => ({
  width,
  height,
  rgba: Uint8Array.from(
    Array.from({ length: width * height }, (_, i) => colour(i % width, Math.floor(i / width))).flat()
  )
})

const [RED, BLUE, NONE] = [
  [255, 0, 0, 255],
  [0, 0, 255, 255],
  [0, 0, 0, 0]
]

describe("sixel", () => {
  it("a known small image: its palette, bands of six rows, a line per colour, transparent pixels undrawn", () => {
    // 3 × 8: in the first band (rows 0-5) column 0 red, column 1 transparent, column 2 blue; rows 6-7 red.
    const small = image(3, 8, (x, y) => (y >= 6 || x === 0 ? RED : x === 2 ? BLUE : NONE))
    const indexed = quantize(small)
    expect(indexed.palette).toStrictEqual([
      [255, 0, 0],
      [0, 0, 255]
    ])
    expect(encode(indexed)).toBe(
      // DCS, transparent background, 1:1 pixels 3 × 8; red and blue in percent.
      '\x1bP0;1;0q"1;1;3;8#0;2;100;0;0#1;2;0;0;100' +
        // Band 1: red's column 0 all six rows (~); blue's columns 0 and 1 empty (?), column 2 full.
        "#0~$#1??~" +
        // Band 2: rows 6 and 7 (bits 1 + 2 = 3, "B") in all three columns.
        "-#0BBB" +
        "\x1b\\"
    )
  })

  it("codes runs of more than three equal sixels as !count", () => {
    const row = image(10, 1, (x) => (x < 9 ? RED : BLUE))
    expect(encode(quantize(row))).toBe('\x1bP0;1;0q"1;1;10;1#0;2;100;0;0#1;2;0;0;100#0!9@$#1!9?@\x1b\\')
  })

  it("keeps at most 256 colours, each pixel close to its own", () => {
    // 4096 colours: every red and green in steps of 17, blue from both.
    const many = image(64, 64, (x, y) => [(x % 16) * 17, (y % 16) * 17, ((x >> 4) + 4 * (y >> 4)) * 17, 255])
    const indexed = quantize(many)
    expect(indexed.palette.length).toBeLessThanOrEqual(256)
    expect(indexed.palette.length).toBeGreaterThan(200)
    let worst = 0
    for (let i = 0; i < 64 * 64; i++) {
      const chosen = indexed.palette[indexed.pixels[i] ?? -1] ?? [999, 999, 999]
      for (let c = 0; c < 3; c++) worst = Math.max(worst, Math.abs((chosen[c] ?? 0) - (many.rgba[4 * i + c] ?? 0)))
    }
    // 256 boxes of 16 colours: none spans more than 4 of a channel's 16 steps of 17, so no
    // pixel is further than 1.5 steps from its box's mean.
    expect(worst).toBeLessThanOrEqual(26)
    expect(quantize(many, 16).palette.length).toBe(16)
  })

  it("scales down (never up) to fit, averaging the pixels it covers", () => {
    const checks = image(40, 20, (x, y) => ((x + y) % 2 === 0 ? [0, 0, 0, 255] : [255, 255, 255, 255]))
    const half = fit(checks, 20, 100)
    expect([half.width, half.height]).toStrictEqual([20, 10])
    expect(pixel(half, 3, 4)).toStrictEqual([128, 128, 128, 255])
    expect(fit(checks, 1000, 1000)).toBe(checks)
    // Transparent pixels do not darken their neighbours.
    const edge = fit(
      image(2, 1, (x) => (x === 0 ? RED : NONE)),
      1,
      1
    )
    expect(pixel(edge, 0, 0)).toStrictEqual([255, 0, 0, 128])
  })

  it("draws the tiny image at its size, and a large one no larger than asked", () => {
    const full = Either.getOrThrow(fromPng(TINY, 800, 600))
    expect(full.startsWith('\x1bP0;1;0q"1;1;20;20#0;2;')).toBe(true)
    expect(full.endsWith("\x1b\\")).toBe(true)
    expect(Either.getOrThrow(fromPng(TINY, 10, 600)).startsWith('\x1bP0;1;0q"1;1;10;10#')).toBe(true)
    expect(fromPng(Buffer.from("nope"), 10, 10)).toStrictEqual(Either.left("not a PNG"))
  })
})

/** A terminal's input that records its modes; `answer` is what the terminal sends on a query. */
const fakeInput = (answer: string | undefined) => {
  const events = new EventEmitter()
  const modes: Array<boolean> = []
  const input: TerminalInput & { readableFlowing: boolean | null; isRaw: boolean } = {
    isTTY: true,
    isRaw: false,
    readableFlowing: null,
    setRawMode: (mode) => {
      input.isRaw = mode
      modes.push(mode)
    },
    resume: () => {
      input.readableFlowing = true
    },
    pause: () => {
      input.readableFlowing = false
    },
    on: (_, listener) => events.on("data", listener),
    off: (_, listener) => events.off("data", listener)
  }
  const written: Array<string> = []
  const output = {
    isTTY: true,
    write: (text: string) => {
      written.push(text)
      // The terminal answers in two pieces, as it may.
      if (answer !== undefined && input.isRaw)
        setTimeout(() => {
          events.emit("data", Buffer.from(answer.slice(0, 5)))
          events.emit("data", Buffer.from(answer.slice(5)))
        }, 1)
    }
  }
  return { input, output, modes, written, listeners: () => events.listenerCount("data") }
}

describe("whether the terminal draws sixel", () => {
  it("known terminals by their environment", () => {
    expect(sixelByEnvironment({ TERM: "foot" })).toBe(true)
    expect(sixelByEnvironment({ TERM: "foot-extra" })).toBe(true)
    expect(sixelByEnvironment({ TERM: "xterm-sixel" })).toBe(true)
    expect(sixelByEnvironment({ TERM: "xterm-256color", MLTERM: "3.9.3" })).toBe(true)
    expect(sixelByEnvironment({ TERM: "xterm-256color" })).toBe(false)
    expect(sixelByEnvironment({ TERM: "footloose" })).toBe(false)
  })

  it("reads the device attributes and the cell size from the answers", () => {
    expect(parseReply("\x1b[?62;4;22c")).toStrictEqual({ attributes: [62, 4, 22] })
    expect(parseReply("\x1b[6;20;10t\x1b[?64;1;9c")).toStrictEqual({
      attributes: [64, 1, 9],
      cell: { width: 10, height: 20 }
    })
    expect(parseReply("\x1b[6;20;10t")).toBeUndefined()
  })

  it.live("asks with stdin in raw mode, and puts it back as it was when answered", () =>
    Effect.gen(function* () {
      const terminal = fakeInput("\x1b[6;18;9t\x1b[?62;4c")
      const reply = yield* askTerminal(terminal.input, terminal.output, "5 seconds")
      expect(reply).toStrictEqual(Option.some({ attributes: [62, 4], cell: { width: 9, height: 18 } }))
      expect(terminal.written).toStrictEqual(["\x1b[16t\x1b[c"])
      expect(terminal.modes).toStrictEqual([true, false])
      expect([terminal.input.readableFlowing, terminal.listeners()]).toStrictEqual([false, 0])
    })
  )

  it.live("gives up after the timeout when nobody answers, stdin back as it was", () =>
    Effect.gen(function* () {
      const terminal = fakeInput(undefined)
      terminal.input.isRaw = true
      terminal.input.readableFlowing = true
      const reply = yield* askTerminal(terminal.input, terminal.output, "50 millis")
      expect(reply).toStrictEqual(Option.none())
      // It was raw and read by someone: it stays so.
      expect(terminal.modes).toStrictEqual([true, true])
      expect([terminal.input.readableFlowing, terminal.listeners()]).toStrictEqual([true, 0])
    })
  )

  it.live("does not ask when stdin or stdout is not a terminal", () =>
    Effect.gen(function* () {
      const terminal = fakeInput("\x1b[?62;4c")
      const piped = { ...terminal.input, isTTY: false }
      expect(yield* askTerminal(piped, terminal.output, "5 seconds")).toStrictEqual(Option.none())
      expect(yield* askTerminal(terminal.input, { ...terminal.output, isTTY: false }, "5 seconds")).toStrictEqual(
        Option.none()
      )
      expect([terminal.written, terminal.modes]).toStrictEqual([[], []])
    })
  )
})
