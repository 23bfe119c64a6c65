/**
 * A PNG decoder for drawing images on a terminal: every colour type and bit depth of the
 * standard (grey, RGB, palette, grey + alpha, RGBA; 1 to 16 bits), transparency (`tRNS`),
 * Adam7 interlacing and the five row filters, to 8-bit RGBA. The image data is inflated by
 * `node:zlib` (whose checksum guards it), never past the size the header announces; chunk
 * CRCs are not checked, and ancillary chunks (colour profiles, gamma, text) are ignored.
 */
import { inflateSync } from "node:zlib"
import * as Either from "effect/Either"

/** An image as 8-bit RGBA, row after row. */
export interface Image {
  readonly width: number
  readonly height: number
  /** `width * height * 4` bytes: red, green, blue, alpha. */
  readonly rgba: Uint8Array
}

/** The most pixels a PNG may have here (4096 × 4096): a server's image is not trusted. */
export const MAX_PIXELS = 4096 * 4096

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

/** Samples per pixel, and the bit depths allowed, by colour type. */
const COLOUR_TYPES: { readonly [type: number]: { readonly channels: number; readonly depths: ReadonlyArray<number> } } =
  {
    0: { channels: 1, depths: [1, 2, 4, 8, 16] },
    2: { channels: 3, depths: [8, 16] },
    3: { channels: 1, depths: [1, 2, 4, 8] },
    4: { channels: 2, depths: [8, 16] },
    6: { channels: 4, depths: [8, 16] }
  }

/** Adam7's seven passes (first column and row, steps), or one pass over everything. */
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2]
] as const
const PROGRESSIVE = [[0, 0, 1, 1]] as const

class Invalid extends Error {}

const fail = (reason: string): never => {
  throw new Invalid(reason)
}

interface Header {
  readonly width: number
  readonly height: number
  readonly depth: number
  readonly colourType: number
  readonly interlaced: boolean
}

const readHeader = (data: Uint8Array): Header => {
  if (data.length !== 13) fail("IHDR is not 13 bytes")
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength)
  const header = {
    width: view.getUint32(0),
    height: view.getUint32(4),
    depth: data[8] ?? 0,
    colourType: data[9] ?? 0,
    interlaced: data[12] === 1
  }
  const type = COLOUR_TYPES[header.colourType]
  if (type === undefined) fail(`colour type ${header.colourType} is not PNG's`)
  if (!type?.depths.includes(header.depth)) fail(`bit depth ${header.depth} with colour type ${header.colourType}`)
  if (data[10] !== 0 || data[11] !== 0 || (data[12] ?? 0) > 1) fail("unknown compression, filter or interlace method")
  if (header.width === 0 || header.height === 0) fail("an empty image")
  if (header.width * header.height > MAX_PIXELS) fail(`${header.width}×${header.height} is too large`)
  return header
}

/** The number of bytes of inflated image data the header announces (a filter byte per row). */
const dataSize = (header: Header, bitsPerPixel: number): number => {
  const passes = header.interlaced ? ADAM7 : PROGRESSIVE
  let size = 0
  for (const [x0, y0, dx, dy] of passes) {
    const width = Math.ceil((header.width - x0) / dx)
    const height = Math.ceil((header.height - y0) / dy)
    if (width > 0 && height > 0) size += height * (1 + Math.ceil((width * bitsPerPixel) / 8))
  }
  return size
}

const paeth = (a: number, b: number, c: number): number => {
  const p = a + b - c
  const pa = Math.abs(p - a)
  const pb = Math.abs(p - b)
  const pc = Math.abs(p - c)
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c
}

/** Undoes a row's filter in place; `previous` is the row above, unfiltered (zeros for the first). */
const unfilter = (filter: number, row: Uint8Array, previous: Uint8Array, bytesPerPixel: number): void => {
  if (filter === 0) return
  if (filter > 4) fail(`row filter ${filter} is not PNG's`)
  for (let i = 0; i < row.length; i++) {
    const left = i >= bytesPerPixel ? (row[i - bytesPerPixel] ?? 0) : 0
    const up = previous[i] ?? 0
    const upLeft = i >= bytesPerPixel ? (previous[i - bytesPerPixel] ?? 0) : 0
    const value = row[i] ?? 0
    // A Uint8Array keeps the sums modulo 256, as the filters want.
    row[i] =
      filter === 1
        ? value + left
        : filter === 2
          ? value + up
          : filter === 3
            ? value + ((left + up) >> 1)
            : value + paeth(left, up, upLeft)
  }
}

const decode = (bytes: Uint8Array): Image => {
  if (bytes.length < 8 || SIGNATURE.some((byte, index) => bytes[index] !== byte)) fail("not a PNG")
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  let header: Header | undefined
  let palette: Uint8Array | undefined
  let transparency: Uint8Array | undefined
  const data: Array<Uint8Array> = []
  let at = 8
  for (;;) {
    if (at + 12 > bytes.length) fail("cut short before IEND")
    const length = view.getUint32(at)
    const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8))
    if (at + 12 + length > bytes.length) fail(`the ${type} chunk is cut short`)
    const body = bytes.subarray(at + 8, at + 8 + length)
    at += 12 + length
    if (header === undefined && type !== "IHDR") fail("the first chunk is not IHDR")
    if (type === "IEND") break
    if (type === "IHDR") header = readHeader(body)
    else if (type === "PLTE") palette = body
    else if (type === "tRNS") transparency = body
    else if (type === "IDAT") data.push(body)
  }
  if (header === undefined) return fail("no IHDR")
  const { width, height, depth, colourType } = header
  const channels = COLOUR_TYPES[colourType]?.channels ?? 1
  if (colourType === 3 && (palette === undefined || palette.length % 3 !== 0 || palette.length === 0))
    fail("a palette image without a usable PLTE")
  const bitsPerPixel = channels * depth
  const bytesPerPixel = Math.max(1, bitsPerPixel >> 3)
  const expected = dataSize(header, bitsPerPixel)
  let inflated: Uint8Array
  try {
    inflated = inflateSync(Buffer.concat(data), { maxOutputLength: expected })
  } catch (cause) {
    return fail(`the image data does not inflate to ${expected} bytes (${String(cause)})`)
  }
  if (inflated.length < expected) fail("the image data is cut short")

  const maximum = (1 << depth) - 1
  const sample = (row: Uint8Array, index: number): number => {
    if (depth === 8) return row[index] ?? 0
    if (depth === 16) return ((row[2 * index] ?? 0) << 8) | (row[2 * index + 1] ?? 0)
    const bit = index * depth
    return ((row[bit >> 3] ?? 0) >> (8 - depth - (bit & 7))) & maximum
  }
  /** A sample scaled to 8 bits. */
  const level = (value: number): number =>
    depth === 16 ? value >> 8 : depth === 8 ? value : Math.round((value * 255) / maximum)
  const keyed = (index: number) =>
    transparency === undefined ? undefined : ((transparency[2 * index] ?? 0) << 8) | (transparency[2 * index + 1] ?? 0)
  const [greyKey, redKey, greenKey, blueKey] = [keyed(0), keyed(0), keyed(1), keyed(2)]
  const paletteSize = (palette?.length ?? 0) / 3

  const rgba = new Uint8Array(width * height * 4)
  let offset = 0
  for (const [x0, y0, dx, dy] of header.interlaced ? ADAM7 : PROGRESSIVE) {
    const passWidth = Math.ceil((width - x0) / dx)
    const passHeight = Math.ceil((height - y0) / dy)
    if (passWidth <= 0 || passHeight <= 0) continue
    const stride = Math.ceil((passWidth * bitsPerPixel) / 8)
    let previous: Uint8Array = new Uint8Array(stride)
    for (let y = 0; y < passHeight; y++) {
      const filter = inflated[offset] ?? 0
      const row = inflated.subarray(offset + 1, offset + 1 + stride)
      offset += 1 + stride
      unfilter(filter, row, previous, bytesPerPixel)
      for (let x = 0; x < passWidth; x++) {
        const out = ((y0 + y * dy) * width + x0 + x * dx) * 4
        let [r, g, b, a] = [0, 0, 0, 255]
        switch (colourType) {
          case 0: {
            const grey = sample(row, x)
            r = g = b = level(grey)
            if (grey === greyKey) a = 0
            break
          }
          case 2: {
            const [red, green, blue] = [sample(row, 3 * x), sample(row, 3 * x + 1), sample(row, 3 * x + 2)]
            ;[r, g, b] = [level(red), level(green), level(blue)]
            if (red === redKey && green === greenKey && blue === blueKey) a = 0
            break
          }
          case 3: {
            const index = sample(row, x)
            if (index >= paletteSize) fail(`palette index ${index} past the palette's ${paletteSize} colours`)
            ;[r, g, b] = [palette?.[3 * index] ?? 0, palette?.[3 * index + 1] ?? 0, palette?.[3 * index + 2] ?? 0]
            a = transparency?.[index] ?? 255
            break
          }
          case 4:
            r = g = b = level(sample(row, 2 * x))
            a = level(sample(row, 2 * x + 1))
            break
          default:
            r = level(sample(row, 4 * x))
            g = level(sample(row, 4 * x + 1))
            b = level(sample(row, 4 * x + 2))
            a = level(sample(row, 4 * x + 3))
        }
        rgba[out] = r
        rgba[out + 1] = g
        rgba[out + 2] = b
        rgba[out + 3] = a
      }
      previous = row
    }
  }
  return { width, height, rgba }
}

/** Decodes a PNG to 8-bit RGBA; the reason it cannot, for a malformed or too large one. */
export const decodePng = (bytes: Uint8Array): Either.Either<Image, string> =>
  Either.try({
    try: () => decode(bytes),
    catch: (error) => (error instanceof Invalid ? error.message : `not a PNG this can read (${String(error)})`)
  })
