/**
 * Binary content a person can get at: with `--out DIR` images, audio, blobs and embedded
 * resources are saved as files (names from the URI or the kind, extensions from the MIME
 * type) and their paths printed; on a terminal that shows inline images (kitty, iTerm2 and
 * WezTerm) an image is also drawn in place.
 */
import * as Options from "@effect/cli/Options"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import type { McpSchema } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import { UsageError } from "../CliError.js"
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

/** How this terminal shows inline images, from its environment. */
export const inlineImageProtocol = (env: {
  readonly [name: string]: string | undefined
}): "kitty" | "iterm" | undefined => {
  if (env.TERM === "xterm-kitty" || env.KITTY_WINDOW_ID !== undefined) return "kitty"
  if (env.TERM_PROGRAM === "iTerm.app" || env.TERM_PROGRAM === "WezTerm" || env.LC_TERMINAL === "iTerm2") return "iterm"
  return undefined
}

const ESC = "\x1b"

/** The escape sequence that draws a PNG/JPEG/GIF image inline (this is the CLI's own output, not the server's). */
export const inlineImage = (protocol: "kitty" | "iterm", base64: string): Styled => {
  if (protocol === "iterm")
    return new Styled(`${ESC}]1337;File=inline=1;size=${Buffer.from(base64, "base64").length}:${base64}\x07`)
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

/** Whether an image can be drawn inline here (stdout is such a terminal; only well-formed base64). */
export const drawable = (block: McpSchema.ContentBlock): block is typeof McpSchema.ImageContent.Type =>
  block.type === "image" &&
  process.stdout.isTTY === true &&
  /^[A-Za-z0-9+/]+=*$/.test(block.data) &&
  (block.mimeType === "image/png" ||
    (inlineImageProtocol(process.env) === "iterm" && /^image\/(jpeg|gif)$/.test(block.mimeType)))

/**
 * Prints content blocks for a person: each as text or a one-line summary, an image drawn
 * inline where the terminal can, and with `out` binary blocks and embedded resources saved
 * (`stem-1.png`, … or the name in the URI) with their paths printed.
 */
export const printContent = (blocks: ReadonlyArray<McpSchema.ContentBlock>, out: Option.Option<string>, stem: string) =>
  Effect.gen(function* () {
    const output = yield* Output
    const protocol = inlineImageProtocol(process.env)
    for (const [index, block] of blocks.entries()) {
      yield* output.line(contentBlock(block))
      if (protocol !== undefined && drawable(block)) yield* output.line(inlineImage(protocol, block.data))
      if (out._tag === "None") continue
      const payload = payloadOf(block, `${stem}-${index + 1}`)
      if (payload === undefined) continue
      const file = yield* save(out.value, payload)
      yield* output.line(styled`  saved to ${file}`)
    }
  })
