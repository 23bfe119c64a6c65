/**
 * Skills: the `io.modelcontextprotocol/skills` extension (SEP-2640) as the client offers it.
 * A server that declares the extension lists its skills (`McpClientService.skills`: names,
 * descriptions and frontmatter from the listing alone, nothing read); loading one
 * (`loadSkill`) reads its `SKILL.md` then, and only then, checks the bytes against the listing
 * (size, SHA-256 digest) and the file's YAML frontmatter against the listing's field by field,
 * and refuses the skill on any mismatch (`SkillVerificationFailed`). A loaded skill's other
 * files are read one at a time when asked for (`readFile`), each checked the same way; a file
 * the listing does not name is refused.
 *
 * To offer skills to a model: put each `Skill`'s `name` and `description` in context, and give
 * it a tool that calls `loadSkill(name)` and returns `instructions` (or `text`, the whole file).
 *
 * @since 0.1.0
 */
import type { McpSchema } from "@effect-mcp/protocol"
import { Skills as Wire } from "@effect-mcp/protocol"
import type * as Effect from "effect/Effect"
import type { CallOptions } from "./internal/features/callOptions.js"
import type { RequestError, SkillVerificationFailed } from "./McpError.js"

/**
 * The extension's identifier; the client declares it under `capabilities.extensions`.
 *
 * @since 0.1.0
 * @category constants
 */
export const EXTENSION: typeof Wire.EXTENSION = Wire.EXTENSION

/**
 * One file of a skill as the listing gives it: URI, digest and (when given) byte size.
 *
 * @since 0.1.0
 * @category models
 */
export type SkillResource = Wire.SkillResource

/**
 * A skill as the server lists it (nothing of it has been read).
 *
 * @since 0.1.0
 * @category models
 */
export interface Skill {
  /** The URI of its `SKILL.md`: the skill's identity on this server. */
  readonly uri: string
  /** The frontmatter's `name` (else the last segment of `path`). Not unique: two paths may share it. */
  readonly name: string
  /** The frontmatter's `description` (empty when it has none). */
  readonly description: string
  /** The skill path: the URI without its scheme and `/SKILL.md` (`acme/billing/refunds`). */
  readonly path: string
  /** The frontmatter as the listing renders it (every field the author wrote). */
  readonly frontmatter: McpSchema.JsonObject
  /** Every file of the skill, `SKILL.md` included, with digests; absent for a skill that cannot be verified. */
  readonly resources?: ReadonlyArray<SkillResource>
}

/**
 * A verified file of a loaded skill.
 *
 * @since 0.1.0
 * @category models
 */
export interface SkillFile {
  readonly uri: string
  /** Its path within the skill (`references/FORMS.md`). */
  readonly path: string
  readonly mimeType?: string
  /** The file's bytes, as verified. */
  readonly bytes: Uint8Array
  /** The file as text, when the server sent it as text. */
  readonly text?: string
}

/**
 * A loaded skill: its `SKILL.md`, verified, and its other files on demand.
 *
 * @since 0.1.0
 * @category models
 */
export interface LoadedSkill {
  /** The entry the skill was loaded from; its files are checked against it. */
  readonly skill: Skill
  /** The whole `SKILL.md`, frontmatter included. */
  readonly text: string
  /** The `SKILL.md` after its frontmatter: the instructions for the model. */
  readonly instructions: string
  /** The frontmatter parsed from the file (identical in content to the listing's). */
  readonly frontmatter: McpSchema.JsonObject
  /** The skill's other files, by their paths within the skill; none is read until asked for. */
  readonly files: ReadonlyArray<string>
  /**
   * Reads one of the skill's files, by its path within the skill (`references/FORMS.md`,
   * resolved against the skill's root) or its URI, and checks it against the entry. Fails with
   * `SkillVerificationFailed` when the file is not listed or does not match.
   */
  readonly readFile: (
    path: string,
    options?: CallOptions
  ) => Effect.Effect<SkillFile, RequestError | SkillVerificationFailed>
}
