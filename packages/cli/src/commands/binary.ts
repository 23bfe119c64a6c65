/**
 * Binary content a person can get at: with `--out DIR` images, audio, blobs and embedded
 * resources are saved as files (names from the URI or the kind, extensions from the MIME
 * type) and their paths printed; on a terminal that shows inline images an image is also
 * drawn in place: kitty's graphics protocol, iTerm2's (iTerm2, WezTerm), or sixel (a terminal
 * named by its environment or whose device attributes say so, see `internal/sixel.ts`).
 */
import * as Options from "@effect/cli/Options"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import type { McpSchema } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { UsageError } from "../CliError.js"
import * as Sixel from "../internal/sixel.js"
import { Output, Styled, styled } from "../Output.js"
import { contentBlock } from "./render.js"

/** `--out DIR`. */
export const outOption: Options.Options<Option.Option<string>> = Options.directory("out").pipe(
  Options.withDescription("Save images, audio, blobs and embedded resources into this directory and print their paths"),
  Options.optional
)

const EXTENSIONS: { readonly [mime: string]: string } = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
  "image/svg+xml": "svg",
  "audio/wav": "wav",
  "audio/x-wav": "wav",
  "audio/mpeg": "mp3",
  "audio/ogg": "ogg",
  "application/pdf": "pdf",
  "application/json": "json",
  "application/gzip": "gz",
  "application/zip": "zip",
  "text/plain": "txt",
  "text/markdown": "md",
  "text/html": "html"
}

/** A file extension for a MIME type (`bin` when unknown). */
export const extensionOf = (mime: string | undefined): string =>
  mime === undefined ? "bin" : (EXTENSIONS[mime.split(";")[0]?.trim().toLowerCase() ?? ""] ?? "bin")

/** A safe file name (no directories, no dot files, no control characters). */
export const safeName = (name: string): string =>
  name
    .replace(/[^A-Za-z0-9._-]+/g, "_")
    .replace(/^[._]+/, "")
    .slice(0, 80) || "content"

/** What one content block holds as a file, if it is binary or an embedded resource. */
export interface Payload {
  readonly name: string
  readonly bytes: Uint8Array
}

const fromUri = (uri: string, fallback: string, mime: string | undefined) => {
  const last = uri
    .split(/[/?#]/)
    .filter((part) => part !== "")
    .at(-1)
  const name = last === undefined ? fallback : safeName(last)
  return name.includes(".") ? name : `${name}.${extensionOf(mime)}`
}

/** The file a block becomes, `undefined` for text and links; `stem` names files without a URI. */
export const payloadOf = (block: McpSchema.ContentBlock, stem: string): Payload | undefined => {
  switch (block.type) {
    case "image":
    case "audio":
      return { name: `${safeName(stem)}.${extensionOf(block.mimeType)}`, bytes: Buffer.from(block.data, "base64") }
    case "resource":
      return "blob" in block.resource
        ? {
            name: fromUri(block.resource.uri, stem, block.resource.mimeType),
            bytes: Buffer.from(block.resource.blob, "base64")
          }
        : {
            name: fromUri(block.resource.uri, stem, block.resource.mimeType ?? "text/plain"),
            bytes: Buffer.from(block.resource.text, "utf8")
          }
    default:
      return undefined
  }
}

/** Writes a payload into `dir` without overwriting (`name-2.ext`, …); the path written. */
export const save = (dir: string, payload: Payload) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    yield* fs.makeDirectory(dir, { recursive: true })
    const dot = payload.name.lastIndexOf(".")
    const [base, ext] = dot <= 0 ? [payload.name, ""] : [payload.name.slice(0, dot), payload.name.slice(dot)]
    for (let attempt = 1; ; attempt++) {
      const file = path.join(dir, attempt === 1 ? payload.name : `${base}-${attempt}${ext}`)
      if (yield* fs.exists(file)) continue
      yield* fs.writeFile(file, payload.bytes)
      return file
    }
  }).pipe(Effect.mapError((error) => new UsageError({ reason: `--out ${dir}: cannot write there (${error.message})` })))

/** A way of drawing images on a terminal. */
export type ImageProtocol = "kitty" | "iterm" | "sixel"

/** How this terminal shows inline images, as far as its environment tells. */
export const inlineImageProtocol = (env: {
  readonly [name: string]: string | undefined
}): ImageProtocol | undefined => {
  if (env.TERM === "xterm-kitty" || env.KITTY_WINDOW_ID !== undefined) return "kitty"
  if (env.TERM_PROGRAM === "iTerm.app" || env.TERM_PROGRAM === "WezTerm" || env.LC_TERMINAL === "iTerm2") return "iterm"
  if (Sixel.sixelByEnvironment(env)) return "sixel"
  return undefined
}

/** How images are drawn here: the protocol, and the size of a character cell in pixels (for sixel). */
export interface ImageDrawing {
  readonly protocol: ImageProtocol
  readonly cell: Sixel.Cell
}

/**
 * How this process's stdout draws images, `undefined` when it does not (not a terminal, a
 * dumb one, or a terminal that shows none). kitty and iTerm2 are known by their environment;
 * otherwise the terminal is asked (once: the answer is kept) whether it draws sixel and how
 * large its cells are, unless stdin is not a terminal, where only the environment counts.
 */
export const imageDrawing: Effect.Effect<ImageDrawing | undefined> = Effect.runSync(
  Effect.cached(
    Effect.suspend(() => {
      if (process.stdout.isTTY !== true || process.env.TERM === "dumb") return Effect.succeed(undefined)
      const named = inlineImageProtocol(process.env)
      if (named === "kitty" || named === "iterm")
        return Effect.succeed<ImageDrawing>({ protocol: named, cell: Sixel.DEFAULT_CELL })
      return Effect.map(Sixel.askTerminal(process.stdin, process.stdout), (reply) =>
        named === "sixel" || Option.exists(reply, ({ attributes }) => attributes.includes(4))
          ? {
              protocol: "sixel" as const,
              cell: Option.getOrUndefined(Option.flatMapNullable(reply, ({ cell }) => cell)) ?? Sixel.DEFAULT_CELL
            }
          : undefined
      )
    })
  )
)

const ESC = "\x1b"

/**
 * The escape sequence that draws an image inline (this is the CLI's own output, not the
 * server's); `undefined` when it cannot be drawn (a PNG that does not decode, for sixel).
 * A sixel image is scaled down to the terminal's width and to its height less two lines.
 */
export const inlineImage = (drawing: ImageDrawing, base64: string): Styled | undefined => {
  if (drawing.protocol === "iterm")
    return new Styled(`${ESC}]1337;File=inline=1;size=${Buffer.from(base64, "base64").length}:${base64}\x07`)
  if (drawing.protocol === "sixel") {
    const columns = (process.stdout.columns ?? 0) > 0 ? process.stdout.columns : 80
    const rows = (process.stdout.rows ?? 0) > 0 ? process.stdout.rows : 24
    return Either.match(
      Sixel.fromPng(
        Buffer.from(base64, "base64"),
        columns * drawing.cell.width,
        Math.max(1, rows - 2) * drawing.cell.height
      ),
      { onLeft: () => undefined, onRight: (sixel) => new Styled(sixel) }
    )
  }
  // kitty: PNG data (f=100), sent in chunks of at most 4096 base64 characters.
  const chunks = base64.match(/.{1,4096}/g) ?? []
  return new Styled(
    chunks
      .map(
        (chunk, index) =>
          `${ESC}_G${index === 0 ? "a=T,f=100," : ""}m=${index === chunks.length - 1 ? 0 : 1};${chunk}${ESC}\\`
      )
      .join("")
  )
}

/** Whether an image may be drawn with a protocol (PNG everywhere, JPEG and GIF on iTerm2; well-formed base64 only). */
export const drawable = (
  block: McpSchema.ContentBlock,
  protocol: ImageProtocol | undefined
): block is typeof McpSchema.ImageContent.Type =>
  block.type === "image" &&
  protocol !== undefined &&
  /^[A-Za-z0-9+/]+=*$/.test(block.data) &&
  (block.mimeType === "image/png" || (protocol === "iterm" && /^image\/(jpeg|gif)$/.test(block.mimeType)))

/**
 * Prints content blocks for a person: each as text or a one-line summary, an image drawn
 * inline where the terminal can, and with `out` binary blocks and embedded resources saved
 * (`stem.png`, `stem-2.png`, … or the name in the URI) with their paths printed.
 */
export const printContent = (blocks: ReadonlyArray<McpSchema.ContentBlock>, out: Option.Option<string>, stem: string) =>
  Effect.gen(function* () {
    const output = yield* Output
    for (const block of blocks) {
      yield* output.line(contentBlock(block))
      // The terminal is asked only for an image it might draw; its reply is read here, not kept as
      // keys typed (the guard steps aside while paused).
      const drawing = drawable(block, inlineImageProtocol(process.env) ?? "sixel")
        ? yield* output.paused(imageDrawing)
        : undefined
      const image =
        drawing !== undefined && drawable(block, drawing.protocol) ? inlineImage(drawing, block.data) : undefined
      if (image !== undefined) yield* output.line(image)
      if (out._tag === "None") continue
      // Every file of a result is named after it; `save` numbers the second and later (`stem-2.png`).
      const payload = payloadOf(block, stem)
      if (payload === undefined) continue
      const file = yield* save(out.value, payload)
      yield* output.line(styled`  saved to ${file}`)
    }
  })
