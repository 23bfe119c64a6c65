/**
 * Lists: paging through a list method as a `Stream` (refusing repeated cursors and runaway
 * paging), and a cached array of a list that list-changed notifications invalidate.
 */
import type { Methods } from "@effect-mcp/protocol"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"
import { DecodeError, type RequestError } from "../McpError.js"

/** The paginated list methods. */
export type ListMethod = "tools/list" | "resources/list" | "resources/templates/list" | "prompts/list" | "tasks/list"

/** The most pages one listing may take. */
export const MAX_PAGES = 10_000

/** Every item of a list method, page by page, through the given request function. */
export const paginate = <M extends ListMethod, A>(
  server: string,
  method: M,
  request: (cursor: string | undefined) => Effect.Effect<Methods.ResultOf<M>, RequestError>,
  items: (result: Methods.ResultOf<M>) => ReadonlyArray<A>
): Stream.Stream<A, RequestError> =>
  Stream.paginateChunkEffect(
    { cursor: undefined as string | undefined, seen: new Set<string>(), pages: 0 },
    ({ cursor, seen, pages }) =>
      Effect.gen(function* () {
        const result = yield* request(cursor)
        const next = result.nextCursor
        if (next !== undefined && (seen.has(next) || pages + 1 >= MAX_PAGES)) {
          return yield* new DecodeError({
            server,
            method,
            issue: seen.has(next)
              ? `the server repeated the cursor ${JSON.stringify(next)}`
              : `more than ${MAX_PAGES} pages`
          })
        }
        if (next !== undefined) seen.add(next)
        const rest = next === undefined ? Option.none() : Option.some({ cursor: next, seen, pages: pages + 1 })
        return [Chunk.fromIterable(items(result)), rest] as const
      })
  )

/** A cached list. */
export interface CachedList<A> {
  /** The cached array, fetched all pages on first use or after an invalidation. */
  readonly get: Effect.Effect<ReadonlyArray<A>, RequestError>
  /** Forgets the cached array; a fetch already under way does not repopulate it. */
  readonly invalidate: Effect.Effect<void>
  /** The cached array, if there is one, without fetching. */
  readonly peek: Effect.Effect<Option.Option<ReadonlyArray<A>>>
}

/** Caches a list stream's items; a generation counter keeps a stale fetch from repopulating. */
export const cachedList = <A>(stream: Stream.Stream<A, RequestError>): Effect.Effect<CachedList<A>> =>
  Effect.gen(function* () {
    const cache = yield* Ref.make<{ readonly generation: number; readonly value: Option.Option<ReadonlyArray<A>> }>({
      generation: 0,
      value: Option.none()
    })
    const get = Effect.gen(function* () {
      const { generation, value } = yield* Ref.get(cache)
      if (Option.isSome(value)) return value.value
      const fresh = Chunk.toReadonlyArray(yield* Stream.runCollect(stream))
      yield* Ref.update(cache, (current) =>
        current.generation === generation ? { generation, value: Option.some(fresh) } : current
      )
      return fresh
    })
    const invalidate = Ref.update(cache, ({ generation }) => ({ generation: generation + 1, value: Option.none() }))
    return { get, invalidate, peek: Effect.map(Ref.get(cache), ({ value }) => value) }
  })
