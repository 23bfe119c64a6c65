/**
 * Skills over the session (SEP-2640): the listing (`skills/list`, paged, cached for its `ttlMs`
 * or until a resource list change), one entry by URI (`skills/get`), and loading: `SKILL.md` is
 * read when a skill is loaded and its other files when they are asked for, never before; each
 * read is checked against the entry (size, then SHA-256 digest), the `SKILL.md`'s frontmatter
 * field by field against the entry's, and nothing that fails is used. A failure drops the cached
 * listing, so that loading again works from a fresh entry (the usual cause is a stale listing).
 */
import { Methods, Skills as Wire } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Encoding from "effect/Encoding"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import {
  CapabilityNotSupported,
  type RequestError,
  type SkillError,
  SkillNotFound,
  SkillVerificationFailed
} from "../../McpError.js"
import type { LoadedSkill, Skill, SkillFile, SkillResource } from "../../Skills.js"
import { request as sessionRequest } from "../session/request.js"
import type { SessionService as Session } from "../session/types.js"
import type { CallOptions } from "./callOptions.js"
import { toRequestOptions } from "./callOptions.js"
import type { ExtensionRequest } from "./extensionRequests.js"
import * as Frontmatter from "./frontmatter.js"
import * as Lists from "./lists.js"

/** The skills part of a client. */
export interface Skills {
  readonly list: Lists.CachedList<Skill>
  readonly stream: Stream.Stream<Skill, RequestError>
  readonly get: (uri: string, options?: CallOptions) => Effect.Effect<Skill, RequestError>
  readonly load: (nameOrUri: string, options?: CallOptions) => Effect.Effect<LoadedSkill, RequestError | SkillError>
}

const SKILL_MD = "/SKILL.md"
const DIGEST = /^sha256:[0-9a-f]{64}$/i
const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:/i

/** The skill path of a `SKILL.md` URI: without the scheme and without `/SKILL.md`. */
export const skillPath = (uri: string): string => {
  const afterScheme = uri.includes("://") ? uri.slice(uri.indexOf("://") + 3) : uri.replace(HAS_SCHEME, "")
  return afterScheme.endsWith(SKILL_MD) ? afterScheme.slice(0, -SKILL_MD.length) : afterScheme
}

/** The skill's root directory URI: its `SKILL.md` URI without `/SKILL.md`. */
const rootOf = (uri: string): string =>
  uri.endsWith(SKILL_MD) ? uri.slice(0, -SKILL_MD.length) : uri.slice(0, Math.max(0, uri.lastIndexOf("/")))

/**
 * A file reference resolved against the skill's root, as a filesystem path would resolve (`.`
 * and `..` segments; none may climb above the root). A URI stays as it is. None: it escapes.
 */
export const resolve = (root: string, reference: string): string | undefined => {
  if (HAS_SCHEME.test(reference)) return reference
  const segments: Array<string> = []
  for (const segment of reference.split("/")) {
    if (segment === "" || segment === ".") continue
    if (segment === "..") {
      if (segments.pop() === undefined) return undefined
      continue
    }
    segments.push(segment)
  }
  return segments.length === 0 ? undefined : `${root}/${segments.join("/")}`
}

const relativeTo = (root: string, uri: string) => (uri.startsWith(`${root}/`) ? uri.slice(root.length + 1) : uri)

/** A listing entry as the client offers it. */
export const toSkill = (entry: Wire.SkillEntry): Skill => {
  const path = skillPath(entry.uri)
  const { name, description } = entry.frontmatter
  return {
    uri: entry.uri,
    name: typeof name === "string" ? name : (path.split("/").pop() ?? path),
    description: typeof description === "string" ? description : "",
    path,
    frontmatter: entry.frontmatter,
    ...(entry.resources === undefined ? {} : { resources: entry.resources })
  }
}

const hex = (bytes: Uint8Array) => Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("")

/** `sha256:<hex>` of the bytes. */
const sha256 = (bytes: Uint8Array): Effect.Effect<string> =>
  Effect.promise(() => globalThis.crypto.subtle.digest("SHA-256", bytes)).pipe(
    Effect.map((digest) => `sha256:${hex(new Uint8Array(digest))}`)
  )

const utf8 = new TextEncoder()
const strictUtf8 = new TextDecoder("utf-8", { fatal: true })

const decodeList = Schema.decodeUnknownEither(Wire.ListSkillsResult)
const decodeGet = Schema.decodeUnknownEither(Wire.GetSkillResult)

/** Builds the skills part over a session; extension methods go through `request`. */
export const make = (session: Session, request: ExtensionRequest): Effect.Effect<Skills, never, Scope.Scope> =>
  Effect.gen(function* () {
    /** Fails unless the server declared the extension (nothing is sent then). */
    const declared = (method: string) =>
      Methods.declares(
        session.established().serverCapabilities,
        { side: "server", path: ["extensions", Wire.EXTENSION] },
        session.established().protocolVersion
      )
        ? Effect.void
        : Effect.fail(
            new CapabilityNotSupported({ server: session.server, method, capability: `extensions.${Wire.EXTENSION}` })
          )

    // How long the last listing stays fresh: the least ttlMs of its pages; without one, at
    // 2026-07-28 not at all (as the core lists), in earlier revisions until a resource list change.
    let freshFor: Option.Option<number> = Option.none()
    const page = (cursor: string | undefined) =>
      Effect.zipRight(
        declared(Wire.LIST),
        request(Wire.LIST, cursor === undefined ? undefined : { cursor }, decodeList).pipe(
          Effect.tap((result) =>
            Effect.sync(() => {
              const ttl = result.ttlMs ?? (session.era() === "stateless" ? 0 : undefined)
              const previous = cursor === undefined ? Option.none() : freshFor
              freshFor =
                ttl === undefined
                  ? previous
                  : Option.some(Option.match(previous, { onNone: () => ttl, onSome: (least) => Math.min(least, ttl) }))
            })
          )
        )
      )
    const stream = Lists.paginate(session.server, Wire.LIST, page, (result) => result.skills.map(toSkill))
    const list = yield* Lists.cachedList(
      stream,
      Effect.sync(() => freshFor)
    )

    const get = (uri: string, options?: CallOptions) =>
      Effect.zipRight(
        declared(Wire.GET),
        request(Wire.GET, { uri }, decodeGet, toRequestOptions(options, session.established().protocolVersion)).pipe(
          Effect.map((result) => toSkill(result.skill))
        )
      )

    /** The entry of a skill named by its URI, its path or its name (which must be unambiguous). */
    const find = (nameOrUri: string, options?: CallOptions): Effect.Effect<Skill, RequestError | SkillNotFound> => {
      if (HAS_SCHEME.test(nameOrUri)) {
        // A URI: the cached listing's entry if it has one, else the server's answer to skills/get.
        return Effect.flatMap(list.peek, (cached) =>
          Option.match(
            Option.flatMap(cached, (skills) => Option.fromNullable(skills.find((skill) => skill.uri === nameOrUri))),
            { onNone: () => get(nameOrUri, options), onSome: Effect.succeed }
          )
        )
      }
      return Effect.flatMap(list.get, (skills) => {
        const byPath = skills.filter((skill) => skill.path === nameOrUri)
        const matches = byPath.length > 0 ? byPath : skills.filter((skill) => skill.name === nameOrUri)
        const [only] = matches
        return matches.length === 1 && only !== undefined
          ? Effect.succeed(only)
          : Effect.fail(
              new SkillNotFound({
                server: session.server,
                name: nameOrUri,
                candidates: matches.map((skill) => skill.uri)
              })
            )
      })
    }

    /** A verification failure of one file; the cached listing is dropped (it is likely stale). */
    const refuse = (
      skill: Skill,
      file: string,
      field: string,
      reason: string,
      values: { readonly expected?: string | undefined; readonly actual?: string | undefined } = {}
    ): Effect.Effect<never, SkillVerificationFailed> => {
      const failure = new SkillVerificationFailed({
        server: session.server,
        skill: skill.uri,
        file,
        field,
        reason,
        ...(values.expected === undefined ? {} : { expected: values.expected }),
        ...(values.actual === undefined ? {} : { actual: values.actual })
      })
      return Effect.zipRight(
        Effect.zipRight(list.invalidate, Effect.logDebug(`${failure.message}; the cached listing is dropped`)),
        Effect.fail(failure)
      )
    }

    /** Reads one listed file and checks it against its entry: nothing unverified leaves here. */
    const readVerified = (
      skill: Skill,
      listed: SkillResource,
      options?: CallOptions
    ): Effect.Effect<SkillFile, RequestError | SkillVerificationFailed> =>
      Effect.gen(function* () {
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
          return yield* refuse(skill, uri, "content", `the read returned ${result.contents.length} contents, not one`)
        }
        const bytes =
          "text" in contents
            ? utf8.encode(contents.text)
            : yield* Either.match(Encoding.decodeBase64(contents.blob), {
                onLeft: () => refuse(skill, uri, "content", "the read returned a blob that is not base64"),
                onRight: Effect.succeed
              })
        if (listed.size !== undefined && bytes.length !== listed.size) {
          return yield* refuse(skill, uri, "size", `read ${bytes.length} bytes; the listing says ${listed.size}`, {
            expected: String(listed.size),
            actual: String(bytes.length)
          })
        }
        if (!DIGEST.test(listed.digest)) {
          return yield* refuse(skill, uri, "digest", "the listing's digest is not sha256:<64 hex digits>", {
            expected: listed.digest
          })
        }
        const digest = yield* sha256(bytes)
        if (digest !== listed.digest.toLowerCase()) {
          return yield* refuse(skill, uri, "digest", "the content's SHA-256 is not the listing's digest", {
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

    const load = (nameOrUri: string, options?: CallOptions) =>
      Effect.gen(function* () {
        const skill = yield* find(nameOrUri, options)
        const resources = skill.resources
        if (resources === undefined) {
          return yield* refuse(skill, skill.uri, "resources", "the entry lists no files with digests to verify them by")
        }
        const listed = resources.find((resource) => resource.uri === skill.uri)
        if (listed === undefined) {
          return yield* refuse(skill, skill.uri, "resources", "the entry does not list its SKILL.md")
        }
        const file = yield* readVerified(skill, listed, options)
        const text =
          file.text ??
          (yield* Either.match(
            Either.try(() => strictUtf8.decode(file.bytes)),
            {
              onLeft: () => refuse(skill, skill.uri, "content", "the SKILL.md is not UTF-8 text"),
              onRight: Effect.succeed
            }
          ))
        const split = Frontmatter.split(text)
        if (Either.isLeft(split)) return yield* refuse(skill, skill.uri, "frontmatter", split.left)
        const { yaml, body } = split.right
        const parsed = yield* Frontmatter.parse(yaml)
        if (Either.isLeft(parsed)) return yield* refuse(skill, skill.uri, "frontmatter", parsed.left)
        const frontmatter = parsed.right
        const difference = Frontmatter.firstDifference(skill.frontmatter, frontmatter)
        if (difference !== undefined) {
          return yield* refuse(
            skill,
            skill.uri,
            `frontmatter.${difference.field}`,
            `the file's ${difference.field} is ${difference.actual ?? "absent"}; the listing's is ${difference.expected ?? "absent"}`,
            difference
          )
        }
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
              ? refuse(skill, uri ?? path, "resources", `${path} is not one of the skill's listed files`)
              : readVerified(skill, entry, fileOptions)
          }
        }
        return loaded
      })

    return { list, stream, get, load }
  })
