/**
 * Writing servers into a JSON (or JSONC) config file: adding, replacing and removing entries of
 * its server map while every other byte stays as it was (other keys, comments, indentation), the
 * result checked by parsing it again before anything is written, and written atomically (a
 * temporary file beside it, then a rename) with the file's permissions kept. A server's strings
 * are written as configured: references (`${VAR}`, `${env:VAR}`, `${input:id}`) stay references,
 * in the form the file's format reads, and the VS Code inputs an entry refers to are declared in
 * the file's `inputs`. Codex's TOML and YAML files are read, never written.
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { ConfigError } from "../HostError.js"
import { appendElement, removeMember, setMember } from "../internal/jsonEdit.js"
import { detectFormat } from "./ConfigFormats.js"
import * as Jsonc from "./Jsonc.js"
import type { ConfigFormat, Input, ServerEntry, Target } from "./ServerEntry.js"

/**
 * One server to write: its name, its entry as the file will hold it, and the inputs it refers to.
 *
 * @since 0.1.0
 * @category models
 */
export interface Change {
  readonly name: string
  readonly value: { readonly [key: string]: unknown }
  readonly inputs: ReadonlyArray<Input>
}

/**
 * What writing a server did: `added`, `replaced` (with `force`), `unchanged` (the file already
 * holds the same entry) or `clash` (another entry of that name is there; left as it was).
 *
 * @since 0.1.0
 * @category models
 */
export type Outcome = "added" | "replaced" | "unchanged" | "clash"

const isRecord = (value: unknown): value is { readonly [key: string]: unknown } =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** Formats that read `${VAR}` (not `${env:VAR}`): references are written that way for them. */
const posixFormats: ReadonlyArray<ConfigFormat> = ["claude-code", "mcpServers", "gemini"]

/** A value's references in the form `format` reads (`${env:X}` → `${X}`, `${userHome}` → `${HOME}`). */
const reference = (value: string, format: ConfigFormat): string =>
  posixFormats.includes(format)
    ? value
        .replace(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => `\${${name}}`)
        .replaceAll(`\${userHome}`, `\${HOME}`)
    : value

const referenceMap = (map: { readonly [name: string]: string }, format: ConfigFormat) =>
  Object.fromEntries(Object.entries(map).map(([key, value]) => [key, reference(value, format)]))

const nonEmpty = <K extends string>(key: K, map: { readonly [name: string]: string }, format: ConfigFormat) =>
  Object.keys(map).length === 0 ? {} : { [key]: referenceMap(map, format) }

/**
 * A server's address as the program that reads a file of `format` expects it. Claude Code (and
 * Claude Desktop beside it) and VS Code take a URL only with its `type`: `auto` (Streamable HTTP,
 * then legacy SSE) is their `http`, which falls back to SSE itself. Gemini reads `httpUrl` as
 * Streamable HTTP and `url` as SSE; Windsurf reads `serverUrl`; Zed takes no type; Cursor and a
 * file of no known program take the URL alone for `auto`, as effect-mcp reads it.
 */
const addressOf = (
  transport: "auto" | "http" | "sse",
  url: string,
  format: ConfigFormat
): { readonly [key: string]: string } => {
  switch (format) {
    case "claude-code":
    case "claude-desktop":
    case "vscode":
      return { type: transport === "auto" ? "http" : transport, url }
    case "gemini":
      return transport === "sse" ? { url } : { httpUrl: url }
    case "windsurf":
      return transport === "sse" ? { type: "sse", url } : { serverUrl: url }
    case "zed":
      return { url }
    case "cursor":
    case "mcpServers":
    case "codex":
      return transport === "auto" ? { url } : { type: transport, url }
  }
}

/**
 * A server's entry as a file of `format` holds it (`mcpServers`, VS Code's `servers`, Zed's
 * `context_servers` all take this shape): its values as configured, references in the format's form.
 *
 * @since 0.1.0
 * @category constructors
 */
export const entryJson = (
  server: { readonly target: Target; readonly retry?: number; readonly keepAlive?: number },
  format: ConfigFormat
): { readonly [key: string]: unknown } => {
  const target = server.target
  const own = {
    ...(server.retry === undefined ? {} : { retry: server.retry }),
    ...(server.keepAlive === undefined ? {} : { keepAlive: server.keepAlive })
  }
  if (target._tag === "Stdio")
    return {
      command: reference(target.command, format),
      ...(target.args.length === 0 ? {} : { args: target.args.map((arg) => reference(arg, format)) }),
      ...nonEmpty("env", target.env, format),
      ...(target.cwd === undefined ? {} : { cwd: reference(target.cwd, format) }),
      ...(target.envFile === undefined ? {} : { envFile: reference(target.envFile, format) }),
      ...own
    }
  return {
    ...addressOf(target.transport, reference(target.url, format), format),
    ...nonEmpty("headers", target.headers, format),
    ...(target.oauth === undefined ? {} : { oauth: target.oauth }),
    ...own
  }
}

const strings = (value: unknown): ReadonlyArray<string> =>
  typeof value === "string"
    ? [value]
    : Array.isArray(value)
      ? value.flatMap(strings)
      : isRecord(value)
        ? Object.values(value).flatMap(strings)
        : []

/**
 * The change that writes `entry` (read from any file) into a file of `format`: its entry, and
 * the declarations of the VS Code inputs it refers to (`${input:id}`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const changeOf = (entry: ServerEntry, format: ConfigFormat): Change => {
  const value = entryJson(entry, format)
  const used = new Set(strings(value).flatMap((text) => [...text.matchAll(/\$\{input:([^}]*)\}/g)].map((m) => m[1])))
  return { name: entry.name, value, inputs: entry.inputs.filter((input) => used.has(input.id)) }
}

const inputJson = (input: Input) => ({
  type: "promptString",
  id: input.id,
  ...(input.description === undefined ? {} : { description: input.description }),
  ...(input.password ? { password: true } : {}),
  ...(input.default === undefined ? {} : { default: input.default })
})

/** The same JSON value, whatever the order of object keys. */
const sameJson = (a: unknown, b: unknown): boolean => {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => sameJson(item, b[i]))
  if (isRecord(a) && isRecord(b)) {
    const keys = Object.keys(a)
    return keys.length === Object.keys(b).length && keys.every((key) => key in b && sameJson(a[key], b[key]))
  }
  return a === b
}

/** A file as an editor holds it: its text (no BOM), the parsed value, its format and server map key. */
interface Opened {
  readonly file: string
  readonly text: string
  readonly bom: boolean
  readonly json: { readonly [key: string]: unknown }
  readonly format: ConfigFormat
  readonly mapKey: string
  readonly exists: boolean
}

const open = (file: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const lower = file.toLowerCase()
    if (lower.endsWith(".toml") || lower.endsWith(".yaml") || lower.endsWith(".yml"))
      return yield* new ConfigError({
        file,
        reason: "effect-mcp writes JSON config files only (it reads Codex's config.toml, it does not write it)"
      })
    const exists = yield* fs.exists(file).pipe(Effect.orElseSucceed(() => false))
    const raw = exists
      ? yield* fs
          .readFileString(file)
          .pipe(Effect.mapError((cause) => new ConfigError({ file, reason: `cannot be read: ${cause.message}` })))
      : "{\n}\n"
    const bom = raw.charCodeAt(0) === 0xfeff
    const text = bom ? raw.slice(1) : raw
    const json = yield* Either.mapLeft(Jsonc.parse(text), (reason) => new ConfigError({ file, reason }))
    if (!isRecord(json)) return yield* new ConfigError({ file, reason: "the file is not a JSON object" })
    const hasMap = "mcpServers" in json || "servers" in json || "context_servers" in json
    const format = detectFormat(file, hasMap ? json : { ...json, mcpServers: {} }) ?? "mcpServers"
    const mapKey =
      format === "zed" ? "context_servers" : format === "vscode" && !("mcpServers" in json) ? "servers" : "mcpServers"
    const map = json[mapKey]
    if (map !== undefined && !isRecord(map))
      return yield* new ConfigError({ file, field: mapKey, reason: "must be an object of servers" })
    return { file, text, bom, json, format, mapKey, exists } satisfies Opened
  })

/**
 * The format a file is written in (`mcpServers` for a new file, or by its path: Claude Code's for
 * `.mcp.json`); fails when the file cannot be written (TOML, YAML, not a JSON object).
 *
 * @since 0.1.0
 * @category accessors
 */
export const formatOf = (file: string) => Effect.map(open(file), (opened) => opened.format)

/** What the file's server map holds under `name`, if anything. */
const existing = (opened: Opened, name: string): Option.Option<unknown> => {
  const map = opened.json[opened.mapKey]
  return isRecord(map) && name in map ? Option.some(map[name]) : Option.none()
}

const outcomeOf = (opened: Opened, change: Change, force: boolean): Outcome =>
  Option.match(existing(opened, change.name), {
    onNone: () => "added",
    onSome: (value) => (sameJson(value, change.value) ? "unchanged" : force ? "replaced" : "clash")
  })

/**
 * What writing `changes` into `file` would do to each (nothing is written).
 *
 * @since 0.1.0
 * @category writing
 */
export const plan = (file: string, changes: ReadonlyArray<Change>, force: boolean) =>
  Effect.map(open(file), (opened) =>
    changes.map((change) => ({ name: change.name, outcome: outcomeOf(opened, change, force) }))
  )

/** Writes `text` in place of `file`: a temporary file beside it, its permissions, then a rename. */
const writeAtomically = (opened: Opened, text: string, mode: number) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    // A symbolic link (a dotfiles checkout) keeps pointing at the file, which is replaced.
    const target = opened.exists ? yield* fs.realPath(opened.file) : opened.file
    const keep = opened.exists ? (yield* fs.stat(target)).mode & 0o7777 : mode
    yield* fs.makeDirectory(path.dirname(target), { recursive: true })
    const temporary = yield* fs.makeTempFile({ directory: path.dirname(target), prefix: `.${path.basename(target)}.` })
    yield* Effect.gen(function* () {
      yield* fs.writeFileString(temporary, `${opened.bom ? "\uFEFF" : ""}${text}`)
      yield* fs.chmod(temporary, keep)
      yield* fs.rename(temporary, target)
    }).pipe(Effect.tapError(() => fs.remove(temporary).pipe(Effect.ignore)))
  }).pipe(
    Effect.mapError((cause) => new ConfigError({ file: opened.file, reason: `cannot be written: ${cause.message}` }))
  )

/** The edited text, checked: parsed again it must be the expected value, or nothing is written. */
const checked = (opened: Opened, text: string, expected: unknown) =>
  Either.match(Jsonc.parse(text), {
    onLeft: () => false,
    onRight: (json) => sameJson(json, expected)
  })
    ? Effect.succeed(text)
    : Effect.fail(
        new ConfigError({
          file: opened.file,
          reason: "cannot be edited without changing the rest of it (its layout is unusual); nothing was written"
        })
      )

const withMember = (json: { readonly [key: string]: unknown }, key: string, name: string, value: unknown) => {
  const map = json[key]
  return { ...json, [key]: { ...(isRecord(map) ? map : {}), [name]: value } }
}

/**
 * Writes `changes` into `file`'s server map (created with the file when missing; `mode` for a new
 * file): a clash is left as it was unless `force`. The inputs the written entries refer to are
 * added to the file's `inputs` when it declares none of that id.
 *
 * @since 0.1.0
 * @category writing
 */
export const write = (
  file: string,
  changes: ReadonlyArray<Change>,
  options: { readonly force: boolean; readonly mode?: number }
) =>
  Effect.gen(function* () {
    const opened = yield* open(file)
    const results = changes.map((change) => ({ name: change.name, outcome: outcomeOf(opened, change, options.force) }))
    const applied = changes.filter((_, index) => {
      const outcome = results[index]?.outcome
      return outcome === "added" || outcome === "replaced"
    })
    if (applied.length === 0) return results
    let text = opened.text
    let expected: { readonly [key: string]: unknown } = opened.json
    for (const change of applied) {
      text = setMember(text, [opened.mapKey], change.name, change.value)
      expected = withMember(expected, opened.mapKey, change.name, change.value)
    }
    const declared = Array.isArray(opened.json.inputs) ? opened.json.inputs : []
    const known = new Set(
      declared.flatMap((input) => (isRecord(input) && typeof input.id === "string" ? [input.id] : []))
    )
    for (const input of applied.flatMap((change) => change.inputs)) {
      if (known.has(input.id)) continue
      known.add(input.id)
      text = appendElement(text, ["inputs"], inputJson(input))
      expected = { ...expected, inputs: [...(Array.isArray(expected.inputs) ? expected.inputs : []), inputJson(input)] }
    }
    yield* writeAtomically(opened, yield* checked(opened, text, expected), options.mode ?? 0o644)
    return results
  })

/**
 * Removes the server `name` from `file`'s server map; `false` when the file has no such entry
 * (nothing is written).
 *
 * @since 0.1.0
 * @category writing
 */
export const remove = (file: string, name: string) =>
  Effect.gen(function* () {
    const opened = yield* open(file)
    if (!opened.exists || Option.isNone(existing(opened, name))) return false
    const map = opened.json[opened.mapKey]
    const rest = isRecord(map) ? Object.fromEntries(Object.entries(map).filter(([key]) => key !== name)) : {}
    const text = removeMember(opened.text, [opened.mapKey], name)
    yield* writeAtomically(opened, yield* checked(opened, text, { ...opened.json, [opened.mapKey]: rest }), 0o644)
    return true
  })
