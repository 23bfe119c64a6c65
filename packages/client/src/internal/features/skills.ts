/**
 * Skills over the session (SEP-2640): the listing (`skills/list`, paged, cached for its `ttlMs`
 * or until a resource list change), one entry by URI (`skills/get`), finding an entry by URI,
 * path or name, and loading the entry found. Loading and its checks (each read against the entry,
 * the `SKILL.md`'s frontmatter against the entry's, a failure dropping the cached listing) are
 * `skillLoading.ts`'s; where a skill's files are is `skillPaths.ts`'s.
 */
import { Methods, Skills as Wire } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import { CapabilityNotSupported, type RequestError, type SkillError, SkillNotFound } from "../../McpError.js"
import type { LoadedSkill, Skill } from "../../Skills.js"
import type { SessionService as Session } from "../session/types.js"
import type { CallOptions } from "./callOptions.js"
import { toRequestOptions } from "./callOptions.js"
import type { ExtensionRequest } from "./extensionRequests.js"
import * as Lists from "./lists.js"
import * as Loading from "./skillLoading.js"
import { hasScheme, skillPath } from "./skillPaths.js"

/** The skill path of a `SKILL.md` URI; a file reference resolved against a skill's root. */
export { resolve, skillPath } from "./skillPaths.js"

/** The skills part of a client. */
export interface Skills {
  readonly list: Lists.CachedList<Skill>
  readonly stream: Stream.Stream<Skill, RequestError>
  readonly get: (uri: string, options?: CallOptions) => Effect.Effect<Skill, RequestError>
  readonly load: (nameOrUri: string, options?: CallOptions) => Effect.Effect<LoadedSkill, RequestError | SkillError>
}

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
      if (hasScheme(nameOrUri)) {
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

    const loader: Loading.Loader = { session, invalidate: list.invalidate }
    const load = (nameOrUri: string, options?: CallOptions) =>
      Effect.flatMap(find(nameOrUri, options), (skill) => Loading.load(loader, skill, options))

    return { list, stream, get, load }
  })
