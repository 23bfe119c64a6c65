/**
 * Loading a skill (SEP-2640) from its listing entry, verified: the `SKILL.md` is read when the
 * skill is loaded and its other files when they are asked for, never before. Each read is checked
 * against the entry (one contents, the size, then the SHA-256 digest) and the `SKILL.md`'s
 * frontmatter field by field against the entry's; nothing that fails is used. A failure is a
 * `SkillVerificationFailed` and drops the cached listing (the usual cause is a stale one), so that
 * loading again works from a fresh entry.
 */
import type { McpSchema } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Encoding from "effect/Encoding"
import { type RequestError, SkillVerificationFailed } from "../../McpError.js"
import type { LoadedSkill, Skill, SkillFile, SkillResource } from "../../Skills.js"
import { request as sessionRequest } from "../session/request.js"
import type { SessionService as Session } from "../session/types.js"
import type { CallOptions } from "./callOptions.js"
import { toRequestOptions } from "./callOptions.js"
import * as Frontmatter from "./frontmatter.js"
import { relativeTo, resolve, rootOf } from "./skillPaths.js"

/** What loading reads through, and what it drops when a check fails. */
export interface Loader {
  readonly session: Session
  /** Drops the cached listing. */
  readonly invalidate: Effect.Effect<void>
}

const DIGEST = /^sha256:[0-9a-f]{64}$/i

const hex = (bytes: Uint8Array) => Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("")

/** `sha256:<hex>` of the bytes. */
const sha256 = (bytes: Uint8Array): Effect.Effect<string> =>
  Effect.promise(() => globalThis.crypto.subtle.digest("SHA-256", bytes)).pipe(
    Effect.map((digest) => `sha256:${hex(new Uint8Array(digest))}`)
  )

const utf8 = new TextEncoder()
const strictUtf8 = new TextDecoder("utf-8", { fatal: true })

/** A verification failure of one file; the cached listing is dropped (it is likely stale). */
const refuse = (
  loader: Loader,
  skill: Skill,
  file: string,
  field: string,
  reason: string,
  values: { readonly expected?: string | undefined; readonly actual?: string | undefined } = {}
): Effect.Effect<never, SkillVerificationFailed> => {
  const failure = new SkillVerificationFailed({
    server: loader.session.server,
    skill: skill.uri,
    file,
    field,
    reason,
    ...(values.expected === undefined ? {} : { expected: values.expected }),
    ...(values.actual === undefined ? {} : { actual: values.actual })
  })
  return Effect.zipRight(
    Effect.zipRight(loader.invalidate, Effect.logDebug(`${failure.message}; the cached listing is dropped`)),
    Effect.fail(failure)
  )
}

/** Reads one listed file and checks it against its entry: nothing unverified leaves here. */
const readVerified = (
  loader: Loader,
  skill: Skill,
  listed: SkillResource,
  options?: CallOptions
): Effect.Effect<SkillFile, RequestError | SkillVerificationFailed> =>
  Effect.gen(function* () {
    const { session } = loader
    const { uri } = listed
    const result = yield* sessionRequest(
      session,
      "resources/read",
      { uri },
      toRequestOptions(options, session.established().protocolVersion)
    )
    const matching = result.contents.filter((contents) => contents.uri === uri)
    const candidates = matching.length > 0 ? matching : result.contents
    const [contents] = candidates
    if (candidates.length !== 1 || contents === undefined) {
      return yield* refuse(
        loader,
        skill,
        uri,
        "content",
        `the read returned ${result.contents.length} contents, not one`
      )
    }
    const bytes =
      "text" in contents
        ? utf8.encode(contents.text)
        : yield* Either.match(Encoding.decodeBase64(contents.blob), {
            onLeft: () => refuse(loader, skill, uri, "content", "the read returned a blob that is not base64"),
            onRight: Effect.succeed
          })
    if (listed.size !== undefined && bytes.length !== listed.size) {
      return yield* refuse(loader, skill, uri, "size", `read ${bytes.length} bytes; the listing says ${listed.size}`, {
        expected: String(listed.size),
        actual: String(bytes.length)
      })
    }
    if (!DIGEST.test(listed.digest)) {
      return yield* refuse(loader, skill, uri, "digest", "the listing's digest is not sha256:<64 hex digits>", {
        expected: listed.digest
      })
    }
    const digest = yield* sha256(bytes)
    if (digest !== listed.digest.toLowerCase()) {
      return yield* refuse(loader, skill, uri, "digest", "the content's SHA-256 is not the listing's digest", {
        expected: listed.digest,
        actual: digest
      })
    }
    return {
      uri,
      path: relativeTo(rootOf(skill.uri), uri),
      bytes,
      ...(contents.mimeType === undefined ? {} : { mimeType: contents.mimeType }),
      ...("text" in contents ? { text: contents.text } : {})
    }
  })

/** A verified `SKILL.md`: its whole text, its body, and its frontmatter (the same as the entry's). */
interface SkillMd {
  readonly text: string
  readonly body: string
  readonly frontmatter: McpSchema.JsonObject
}

/**
 * Checks the skill's `SKILL.md`, already read and verified as any file: it must be UTF-8 text
 * whose frontmatter parses and matches the entry's field by field.
 */
const checkSkillMd = (loader: Loader, skill: Skill, file: SkillFile): Effect.Effect<SkillMd, SkillVerificationFailed> =>
  Effect.gen(function* () {
    const text =
      file.text ??
      (yield* Either.match(
        Either.try(() => strictUtf8.decode(file.bytes)),
        {
          onLeft: () => refuse(loader, skill, skill.uri, "content", "the SKILL.md is not UTF-8 text"),
          onRight: Effect.succeed
        }
      ))
    const split = Frontmatter.split(text)
    if (Either.isLeft(split)) return yield* refuse(loader, skill, skill.uri, "frontmatter", split.left)
    const { yaml, body } = split.right
    const parsed = yield* Frontmatter.parse(yaml)
    if (Either.isLeft(parsed)) return yield* refuse(loader, skill, skill.uri, "frontmatter", parsed.left)
    const frontmatter = parsed.right
    const difference = Frontmatter.firstDifference(skill.frontmatter, frontmatter)
    if (difference !== undefined) {
      return yield* refuse(
        loader,
        skill,
        skill.uri,
        `frontmatter.${difference.field}`,
        `the file's ${difference.field} is ${difference.actual ?? "absent"}; the listing's is ${difference.expected ?? "absent"}`,
        difference
      )
    }
    return { text, body, frontmatter }
  })

/**
 * Loads a skill from its entry: its `SKILL.md` read and verified now, its other files offered by
 * path and read (each verified) only when asked for. An entry that lists no files, or not its
 * `SKILL.md`, is refused: there is nothing to verify the file by.
 */
export const load = (
  loader: Loader,
  skill: Skill,
  options?: CallOptions
): Effect.Effect<LoadedSkill, RequestError | SkillVerificationFailed> =>
  Effect.gen(function* () {
    const resources = skill.resources
    if (resources === undefined) {
      return yield* refuse(
        loader,
        skill,
        skill.uri,
        "resources",
        "the entry lists no files with digests to verify them by"
      )
    }
    const listed = resources.find((resource) => resource.uri === skill.uri)
    if (listed === undefined) {
      return yield* refuse(loader, skill, skill.uri, "resources", "the entry does not list its SKILL.md")
    }
    const file = yield* readVerified(loader, skill, listed, options)
    const { text, body, frontmatter } = yield* checkSkillMd(loader, skill, file)
    const root = rootOf(skill.uri)
    const loaded: LoadedSkill = {
      skill,
      text,
      instructions: body.replace(/^(\r?\n)+/, ""),
      frontmatter,
      files: resources
        .filter((resource) => resource.uri !== skill.uri)
        .map((resource) => relativeTo(root, resource.uri)),
      readFile: (path, fileOptions) => {
        const uri = resolve(root, path)
        const entry = uri === undefined ? undefined : resources.find((resource) => resource.uri === uri)
        return entry === undefined
          ? refuse(loader, skill, uri ?? path, "resources", `${path} is not one of the skill's listed files`)
          : readVerified(loader, skill, entry, fileOptions)
      }
    }
    return loaded
  })
