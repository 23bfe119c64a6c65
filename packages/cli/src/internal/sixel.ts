/**
 * Sixel, the inline images of DEC terminals that foot, mlterm, xterm (as a VT340), WezTerm,
 * Windows Terminal, Konsole and others draw: whether this terminal does, and a PNG as a sixel
 * image that fits the terminal.
 *
 * Whether: a terminal known by its environment (`TERM` naming sixel or foot, mlterm, contour,
 * yaft; `MLTERM`), or one whose primary device attributes (DA1, the answer to `ESC [ c`)
 * list 4, "sixel graphics". The question is asked only when stdin and stdout are terminals,
 * with stdin in raw mode for at most {@link QUERY_TIMEOUT} and put back as it was however the
 * wait ends; `ESC [ 16 t` asked first gives the size of a character cell in pixels, where
 * the terminal tells (DA1, which every terminal answers, comes after it).
 *
 * How: the PNG decoded (`png.ts`), scaled down to fit, reduced to at most 256 colours (the
 * image's own when it has no more, else median cut), and written as bands six pixels high,
 * one run-length coded line per colour, with transparent pixels left undrawn.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { decodePng, type Image } from "./png.js"

const ESC = "\x1b"

/** Whether the environment names a terminal that draws sixel. */
export const sixelByEnvironment = (env: { readonly [name: string]: string | undefined }): boolean => {
  const term = (env.TERM ?? "").toLowerCase()
  return term.includes("sixel") || /^(foot|mlterm|contour|yaft)(-|$)/.test(term) || (env.MLTERM ?? "") !== ""
}

/** A character cell's size in pixels. */
export interface Cell {
  readonly width: number
  readonly height: number
}

/** The cell assumed when the terminal does not say (a common 10×20 font). */
export const DEFAULT_CELL: Cell = { width: 10, height: 20 }

/** What a terminal answered: its DA1 attributes, and its cell size if it told. */
export interface TerminalReply {
  readonly attributes: ReadonlyArray<number>
  readonly cell?: Cell
}

/** Parses the answers to `ESC [ 16 t` and `ESC [ c`; `undefined` until DA1's has come. */
export const parseReply = (text: string): TerminalReply | undefined => {
  const da1 = new RegExp(`${ESC}\\[\\?([\\d;]*)c`).exec(text)
  if (da1 === null) return undefined
  const size = new RegExp(`${ESC}\\[6;(\\d+);(\\d+)t`).exec(text.slice(0, da1.index))
  const [height, width] = [Number(size?.[1] ?? 0), Number(size?.[2] ?? 0)]
  return {
    attributes: (da1[1] ?? "")
      .split(";")
      .filter((part) => part !== "")
      .map(Number),
    ...(height > 0 && width > 0 ? { cell: { width, height } } : {})
  }
}

/** How long the terminal has to answer. */
export const QUERY_TIMEOUT = Duration.millis(500)

/** The terminal's input, as much of a TTY `ReadStream` as the question needs. */
export interface TerminalInput {
  readonly isTTY?: boolean
  readonly isRaw?: boolean
  /** `true` while something reads it (`null` or `false`: nobody, the question must leave it so). */
  readonly readableFlowing: boolean | null
  readonly setRawMode: (mode: boolean) => unknown
  readonly resume: () => unknown
  readonly pause: () => unknown
  readonly on: (event: "data", listener: (chunk: Buffer | string) => void) => unknown
  readonly off: (event: "data", listener: (chunk: Buffer | string) => void) => unknown
}

/** The terminal's output. */
export interface TerminalOutput {
  readonly isTTY?: boolean
  readonly write: (text: string) => unknown
}

/**
 * Asks the terminal for its cell size and device attributes: `None` when stdin or stdout is
 * not a terminal or no answer came within `timeout`. stdin is in raw mode (no echo, no line
 * buffering) only while waiting, and paused again unless something was reading it.
 */
export const askTerminal = (
  input: TerminalInput,
  output: TerminalOutput,
  timeout: Duration.DurationInput = QUERY_TIMEOUT
): Effect.Effect<Option.Option<TerminalReply>> =>
  input.isTTY !== true || output.isTTY !== true
    ? Effect.succeedNone
    : Effect.acquireUseRelease(
        Effect.sync(() => {
          const before = { raw: input.isRaw === true, flowing: input.readableFlowing === true }
          input.setRawMode(true)
          return before
        }),
        () =>
          Effect.async<TerminalReply>((resume) => {
            let received = ""
            const onData = (chunk: Buffer | string) => {
              received += typeof chunk === "string" ? chunk : chunk.toString("latin1")
              const reply = parseReply(received)
              if (reply === undefined) return
              input.off("data", onData)
              resume(Effect.succeed(reply))
            }
            input.on("data", onData)
            input.resume()
            output.write(`${ESC}[16t${ESC}[c`)
            return Effect.sync(() => input.off("data", onData))
          }).pipe(Effect.timeoutTo({ duration: timeout, onTimeout: Option.none, onSuccess: Option.some })),
        (before) =>
          Effect.sync(() => {
            input.setRawMode(before.raw)
            if (!before.flowing) input.pause()
          })
      )

/** An image whose pixels are palette indices (`-1`: transparent, not drawn). */
export interface Indexed {
  readonly width: number
  readonly height: number
  /** Red, green and blue of each colour, 0 to 255. */
  readonly palette: ReadonlyArray<readonly [number, number, number]>
  readonly pixels: Int16Array
}

/** Below this alpha a pixel is transparent; at or above, opaque. */
const OPAQUE = 128

/**
 * Scales an image down (never up) to fit `maxWidth` × `maxHeight`, each target pixel the
 * average of the source pixels it covers (weighted by their alpha).
 */
export const fit = (image: Image, maxWidth: number, maxHeight: number): Image => {
  const scale = Math.min(1, maxWidth / image.width, maxHeight / image.height)
  if (scale >= 1) return image
  const width = Math.max(1, Math.floor(image.width * scale))
  const height = Math.max(1, Math.floor(image.height * scale))
  const rgba = new Uint8Array(width * height * 4)
  for (let y = 0; y < height; y++) {
    const [top, bottom] = [Math.floor((y * image.height) / height), Math.floor(((y + 1) * image.height) / height)]
    for (let x = 0; x < width; x++) {
      const [left, right] = [Math.floor((x * image.width) / width), Math.floor(((x + 1) * image.width) / width)]
      let [r, g, b, a, n] = [0, 0, 0, 0, 0]
      for (let sy = top; sy < Math.max(bottom, top + 1); sy++)
        for (let sx = left; sx < Math.max(right, left + 1); sx++) {
          const at = (sy * image.width + sx) * 4
          const alpha = image.rgba[at + 3] ?? 0
          r += (image.rgba[at] ?? 0) * alpha
          g += (image.rgba[at + 1] ?? 0) * alpha
          b += (image.rgba[at + 2] ?? 0) * alpha
          a += alpha
          n += 1
        }
      const out = (y * width + x) * 4
      if (a > 0) {
        rgba[out] = Math.round(r / a)
        rgba[out + 1] = Math.round(g / a)
        rgba[out + 2] = Math.round(b / a)
      }
      rgba[out + 3] = Math.round(a / n)
    }
  }
  return { width, height, rgba }
}

/** A box of colours for median cut, with its widest channel (`shift` 16, 8 or 0) and that channel's range. */
interface Box {
  readonly colours: Array<number>
  readonly range: number
  readonly shift: number
}

const channel = (colour: number, shift: number) => (colour >> shift) & 255

/**
 * Reduces an image to at most `maxColours` colours: its own colours, in the order they first
 * appear, when it has no more; else median cut (the box with the widest channel split at the
 * pixel-weighted median, each box's colour the weighted mean of its colours).
 */
export const quantize = (image: Image, maxColours = 256): Indexed => {
  const { width, height, rgba } = image
  const counts = new Map<number, number>()
  const keys = new Int32Array(width * height)
  for (let i = 0; i < width * height; i++) {
    if ((rgba[4 * i + 3] ?? 0) < OPAQUE) {
      keys[i] = -1
      continue
    }
    const key = ((rgba[4 * i] ?? 0) << 16) | ((rgba[4 * i + 1] ?? 0) << 8) | (rgba[4 * i + 2] ?? 0)
    keys[i] = key
    counts.set(key, (counts.get(key) ?? 0) + 1)
  }
  const indexOf = new Map<number, number>()
  const palette: Array<readonly [number, number, number]> = []
  if (counts.size <= maxColours) {
    for (const key of counts.keys()) {
      indexOf.set(key, palette.length)
      palette.push([channel(key, 16), channel(key, 8), channel(key, 0)])
    }
  } else {
    const box = (colours: Array<number>): Box => {
      let widest: Box = { colours, range: 0, shift: 16 }
      for (const shift of [16, 8, 0]) {
        let [low, high] = [255, 0]
        for (const colour of colours) {
          const value = channel(colour, shift)
          if (value < low) low = value
          if (value > high) high = value
        }
        if (high - low > widest.range) widest = { colours, range: high - low, shift }
      }
      return widest
    }
    const boxes: Array<Box> = [box([...counts.keys()])]
    while (boxes.length < maxColours) {
      let chosen = -1
      for (const [index, candidate] of boxes.entries())
        if (candidate.range > (boxes[chosen]?.range ?? 0)) chosen = index
      const widest = boxes[chosen]
      if (widest === undefined) break
      const sorted = widest.colours.sort((a, b) => channel(a, widest.shift) - channel(b, widest.shift))
      const total = sorted.reduce((sum, colour) => sum + (counts.get(colour) ?? 0), 0)
      let [cut, seen] = [0, 0]
      while (cut < sorted.length - 1 && seen + (counts.get(sorted[cut] ?? 0) ?? 0) <= total / 2)
        seen += counts.get(sorted[cut++] ?? 0) ?? 0
      cut = Math.min(Math.max(cut, 1), sorted.length - 1)
      boxes.splice(chosen, 1, box(sorted.slice(0, cut)), box(sorted.slice(cut)))
    }
    for (const box of boxes) {
      let [r, g, b, n] = [0, 0, 0, 0]
      for (const colour of box.colours) {
        const count = counts.get(colour) ?? 0
        r += channel(colour, 16) * count
        g += channel(colour, 8) * count
        b += channel(colour, 0) * count
        n += count
        indexOf.set(colour, palette.length)
      }
      palette.push([Math.round(r / n), Math.round(g / n), Math.round(b / n)])
    }
  }
  const pixels = new Int16Array(width * height)
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] ?? -1
    pixels[i] = key === -1 ? -1 : (indexOf.get(key) ?? -1)
  }
  return { width, height, palette, pixels }
}

/** A run of `count` sixel characters `char`: `!count char` when that is shorter. */
const run = (char: string, count: number) => (count > 3 ? `!${count}${char}` : char.repeat(count))

/**
 * An indexed image as a sixel image: DCS with a transparent background (P2 = 1) and square
 * pixels at the image's size (`"1;1;W;H`), the palette in RGB percent, then each band of six
 * rows as one line per colour it uses (`#n`, run-length coded, trailing blanks dropped)
 * joined by `$`, bands by `-`; ended by ST.
 */
export const encode = (image: Indexed): string => {
  const { width, height, palette, pixels } = image
  const percent = (value: number) => Math.round((value * 100) / 255)
  let out = `${ESC}P0;1;0q"1;1;${width};${height}`
  for (const [index, [r, g, b]] of palette.entries()) out += `#${index};2;${percent(r)};${percent(g)};${percent(b)}`
  const bands: Array<string> = []
  for (let top = 0; top < height; top += 6) {
    // The sixel of each colour in this band, column by column (bit n: row top + n).
    const sixels = new Map<number, Uint8Array>()
    for (let y = top; y < Math.min(top + 6, height); y++)
      for (let x = 0; x < width; x++) {
        const colour = pixels[y * width + x] ?? -1
        if (colour < 0) continue
        const columns = sixels.get(colour) ?? new Uint8Array(width)
        columns[x] = (columns[x] ?? 0) | (1 << (y - top))
        sixels.set(colour, columns)
      }
    const lines: Array<string> = []
    for (const colour of [...sixels.keys()].sort((a, b) => a - b)) {
      const columns = sixels.get(colour) ?? new Uint8Array()
      let end = width
      while (end > 0 && columns[end - 1] === 0) end--
      let line = `#${colour}`
      for (let x = 0; x < end; ) {
        const bits = columns[x] ?? 0
        let count = 1
        while (x + count < end && columns[x + count] === bits) count++
        line += run(String.fromCharCode(63 + bits), count)
        x += count
      }
      lines.push(line)
    }
    bands.push(lines.join("$"))
  }
  return `${out}${bands.join("-")}${ESC}\\`
}

/** A PNG as a sixel image no larger than `maxWidth` × `maxHeight` pixels; why not, if it cannot be read. */
export const fromPng = (png: Uint8Array, maxWidth: number, maxHeight: number): Either.Either<string, string> =>
  Either.map(decodePng(png), (image) => encode(quantize(fit(image, maxWidth, maxHeight))))
