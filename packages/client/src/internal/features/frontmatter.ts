/**
 * A `SKILL.md`'s YAML frontmatter: split from the body, parsed as YAML 1.2 (core schema, the
 * typing the listing's JSON rendering is made with), and compared field by field with the
 * frontmatter a listing entry carries. Parsing uses the `yaml` package: the Agent Skills format
 * allows any YAML in frontmatter (nested `metadata` maps, lists), so no key: value subset will do.
 */
import { McpSchema } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as OnFirstUse from "../onFirstUse.js"

/** A `SKILL.md` split into its frontmatter source and its body. */
export interface Split {
  /** The YAML between the opening and closing `---` lines. */
  readonly yaml: string
  /** Everything after the closing `---` line. */
  readonly body: string
}

const FENCE = /^---[ \t]*$/

/**
 * Splits a `SKILL.md`: it must begin (after an optional byte order mark) with a `---` line, and
 * the frontmatter ends at the next `---` line. Line ends may be `\n` or `\r\n`.
 */
export const split = (text: string): Either.Either<Split, string> => {
  const lines = text.replace(/^\uFEFF/, "").split("\n")
  const line = (index: number) => (lines[index] ?? "").replace(/\r$/, "")
  if (!FENCE.test(line(0))) return Either.left("the file does not begin with a --- line (no YAML frontmatter)")
  for (let index = 1; index < lines.length; index++) {
    if (FENCE.test(line(index))) {
      return Either.right({
        yaml: lines
          .slice(1, index)
          .map((_, offset) => line(offset + 1))
          .join("\n"),
        body: lines.slice(index + 1).join("\n")
      })
    }
  }
  return Either.left("the frontmatter has no closing --- line")
}

const decodeObject = Schema.decodeUnknownEither(McpSchema.JsonObject)

// The YAML parser is imported by the first skill loaded, not when the program starts.
const parser = OnFirstUse.make(async () => (await import("./yamlDocument.js")).parseDocument)

/** Parses frontmatter YAML into a JSON object (a YAML mapping at the top, no duplicate keys, bounded aliases). */
export const parse = (yaml: string): Effect.Effect<Either.Either<McpSchema.JsonObject, string>> =>
  parser.use((parseDocument) =>
    Effect.sync(() => {
      const document = parseDocument(yaml, { schema: "core", uniqueKeys: true, prettyErrors: false })
      const error = document.errors[0]
      if (error !== undefined) return Either.left(`the frontmatter is not valid YAML: ${error.message}`)
      return Either.try({
        try: (): unknown => document.toJS({ maxAliasCount: 100 }),
        catch: (cause) => `the frontmatter cannot be read: ${cause instanceof Error ? cause.message : String(cause)}`
      }).pipe(
        Either.flatMap((value) =>
          Either.mapLeft(decodeObject(value), () => "the frontmatter is not a YAML mapping of fields")
        )
      )
    })
  )

/** Deep equality of JSON values; member order does not matter. */
export const sameJson = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => sameJson(item, b[i]))
  if (McpSchema.isJsonObject(a) && McpSchema.isJsonObject(b)) {
    const keys = Object.keys(a)
    return (
      keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && sameJson(a[key], b[key]))
    )
  }
  return false
}

/** One field on which a file's frontmatter and a listing's differ. */
export interface Difference {
  readonly field: string
  /** The listing's value as JSON; none when the listing lacks the field. */
  readonly expected: string | undefined
  /** The file's value as JSON; none when the file lacks the field. */
  readonly actual: string | undefined
}

const shown = (object: McpSchema.JsonObject, key: string) =>
  Object.hasOwn(object, key) ? JSON.stringify(object[key]) : undefined

/**
 * The first field on which the file's frontmatter differs from the listing's (the listing's
 * fields first, then any only the file has); none when they are identical in content. A field
 * one side lacks differs even when the other holds `null`.
 */
export const firstDifference = (listed: McpSchema.JsonObject, file: McpSchema.JsonObject): Difference | undefined => {
  const keys = [...new Set([...Object.keys(listed), ...Object.keys(file)])]
  const field = keys.find(
    (key) => Object.hasOwn(listed, key) !== Object.hasOwn(file, key) || !sameJson(listed[key], file[key])
  )
  return field === undefined ? undefined : { field, expected: shown(listed, field), actual: shown(file, field) }
}
