/**
 * The skills extension (`io.modelcontextprotocol/skills`, SEP-2640): Agent Skills served as
 * resources. A skill is a directory of files, each a resource (conventionally
 * `skill://<skill-path>/<file-path>`), with a `SKILL.md` at its root that begins with YAML
 * frontmatter. `skills/list` enumerates a server's skills, `skills/get` returns one by the URI of
 * its `SKILL.md`; each entry carries the frontmatter rendered as JSON and every file with its
 * SHA-256 digest (and byte size), which a host checks each file against when it reads it.
 *
 * These are the wire shapes; the method table of the core protocol does not list them (they
 * exist only on servers that declare the extension in `capabilities.extensions`).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { optional } from "./internal/fields.js"
import { PaginatedRequestParams, RequestParams } from "./schema/Base.js"
import { JsonNumber, JsonObject, Meta, NonNegativeInteger, Uri } from "./schema/Json.js"

/**
 * The extension's identifier, the key under `capabilities.extensions`.
 *
 * @since 0.1.0
 * @category constants
 */
export const EXTENSION = "io.modelcontextprotocol/skills"

/**
 * The list method.
 *
 * @since 0.1.0
 * @category constants
 */
export const LIST = "skills/list"

/**
 * The method that returns one skill's entry.
 *
 * @since 0.1.0
 * @category constants
 */
export const GET = "skills/get"

/**
 * The extension's settings a server declares: whether it implements `resources/directory/read`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ServerSettings = Schema.Struct({
  directoryRead: optional(Schema.Boolean)
}).annotations({ identifier: "SkillsServerSettings" })

/**
 * The type of {@link ServerSettings}.
 *
 * @since 0.1.0
 * @category models
 */
export type ServerSettings = typeof ServerSettings.Type

/**
 * A file's digest: `sha256:` and 64 lowercase hex characters, the SHA-256 of the file's raw
 * bytes. Decoding does not enforce the format (a listing with one odd digest still lists); a
 * host refuses the file when it cannot check it.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Digest = Schema.String.annotations({
  identifier: "SkillDigest",
  arbitrary: () => (fc) => fc.stringMatching(/^[0-9a-f]{64}$/).map((hex) => `sha256:${hex}`)
})

/**
 * One file of a skill: its URI, its digest and its size in bytes.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SkillResource = Schema.Struct({
  uri: Uri,
  digest: Digest,
  /** The byte length of the file's raw bytes (absent in the SEP's first drafts). */
  size: optional(NonNegativeInteger)
}).annotations({ identifier: "SkillResource" })

/**
 * The type of {@link SkillResource}.
 *
 * @since 0.1.0
 * @category models
 */
export type SkillResource = typeof SkillResource.Type

/**
 * A skill: the URI of its `SKILL.md`, the file's frontmatter rendered as JSON (verbatim, every
 * field the author wrote; `name` and `description` at least), and every file of the skill with
 * its digest. `resources` is absent only for skills generated on demand, which cannot be verified.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SkillEntry = Schema.Struct({
  uri: Uri,
  frontmatter: JsonObject,
  resources: optional(Schema.Array(SkillResource)),
  _meta: optional(Meta)
}).annotations({ identifier: "SkillEntry" })

/**
 * The type of {@link SkillEntry}.
 *
 * @since 0.1.0
 * @category models
 */
export type SkillEntry = typeof SkillEntry.Type

/**
 * Params of `skills/list`: an optional cursor.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ListSkillsRequestParams = PaginatedRequestParams

/**
 * The answer to `skills/list`: one page of skills (a skill's files are never split across pages).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ListSkillsResult = Schema.Struct({
  _meta: optional(Meta),
  skills: Schema.Array(SkillEntry),
  nextCursor: optional(Schema.String),
  /** 2026-07-28: how long the listing stays fresh, in milliseconds. */
  ttlMs: optional(JsonNumber),
  cacheScope: optional(Schema.String)
}).annotations({ identifier: "ListSkillsResult" })

/**
 * The type of {@link ListSkillsResult}.
 *
 * @since 0.1.0
 * @category models
 */
export type ListSkillsResult = typeof ListSkillsResult.Type

/**
 * Params of `skills/get`: the URI of a skill's `SKILL.md`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const GetSkillRequestParams = Schema.Struct({
  ...RequestParams.fields,
  uri: Uri
}).annotations({ identifier: "GetSkillRequestParams" })

/**
 * The type of {@link GetSkillRequestParams}.
 *
 * @since 0.1.0
 * @category models
 */
export type GetSkillRequestParams = typeof GetSkillRequestParams.Type

/**
 * The answer to `skills/get`: the skill's entry, as `skills/list` would carry it.
 *
 * @since 0.1.0
 * @category schemas
 */
export const GetSkillResult = Schema.Struct({
  _meta: optional(Meta),
  skill: SkillEntry,
  ttlMs: optional(JsonNumber),
  cacheScope: optional(Schema.String)
}).annotations({ identifier: "GetSkillResult" })

/**
 * The type of {@link GetSkillResult}.
 *
 * @since 0.1.0
 * @category models
 */
export type GetSkillResult = typeof GetSkillResult.Type
