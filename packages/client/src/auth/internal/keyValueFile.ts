/**
 * A `KeyValueStore` kept in one JSON file (`{"version":2,"entries":{key: value}}`), for a
 * program that should remember a few small values between runs: read once, kept in memory,
 * and on every change written to a temporary file with mode 0600 and renamed over the file
 * (its directory made with mode 0700), so a reader never sees half a file and nobody else can
 * read it. A file that cannot be read or decoded counts as empty (unless `migrate` recognises
 * an older format); a failed write fails the change, whose value still serves this process.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as SynchronizedRef from "effect/SynchronizedRef"
import { randomToken } from "../Crypto.js"

/** The file's contents. */
const Contents = Schema.parseJson(
  Schema.Struct({
    version: Schema.Literal(2),
    entries: Schema.Record({ key: Schema.String, value: Schema.String })
  })
)

type Entries = Readonly<Record<string, string>>

/** How to read the file. */
export interface Options {
  /** The entries of a file in an older format, if `text` is one. */
  readonly migrate?: (text: string) => Option.Option<Entries>
}

/** A store in the JSON file at `file`. */
export const make = (
  file: string,
  options: Options = {}
): Effect.Effect<KeyValueStore.KeyValueStore, never, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const text = yield* Effect.option(fs.readFileString(file))
    const loaded = Option.flatMap(text, (text) =>
      Option.orElse(
        Option.map(Schema.decodeUnknownOption(Contents)(text), (contents) => contents.entries),
        () => options.migrate?.(text) ?? Option.none()
      )
    )
    const entries = yield* SynchronizedRef.make<Entries>(Option.getOrElse(loaded, () => ({})))

    const write = (next: Entries) =>
      Effect.gen(function* () {
        const encoded = yield* Schema.encode(Contents)({ version: 2, entries: next }).pipe(Effect.orDie)
        yield* fs.makeDirectory(path.dirname(file), { recursive: true, mode: 0o700 })
        const temporary = `${file}.${randomToken(6)}.tmp`
        yield* fs.writeFileString(temporary, encoded, { mode: 0o600 })
        yield* fs.chmod(temporary, 0o600)
        yield* fs.rename(temporary, file)
      })

    /** Changes the entries in memory, then writes them (writes in the order of the changes). */
    const change = (f: (current: Entries) => Entries) =>
      Effect.flatten(
        SynchronizedRef.modifyEffect(entries, (current) => {
          const next = f(current)
          return Effect.map(Effect.either(write(next)), (written) => [written, next] as const)
        })
      )

    const read = <A>(f: (current: Entries) => A) => Effect.map(SynchronizedRef.get(entries), f)

    return KeyValueStore.makeStringOnly({
      get: (key) => read((current) => Option.fromNullable(current[key])),
      set: (key, value) => change((current) => ({ ...current, [key]: value })),
      remove: (key) =>
        change((current) => Object.fromEntries(Object.entries(current).filter(([name]) => name !== key))),
      clear: change(() => ({})),
      size: read((current) => Object.keys(current).length)
    })
  })
