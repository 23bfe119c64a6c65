/**
 * Lists: paging through a list method as a `Stream` (refusing repeated cursors and runaway
 * paging), and a cached array of a list that list-changed notifications invalidate.
 *
 * Paging refuses a repeated cursor and more than `MAX_PAGES` (10,000) pages. Readers of a fetch
 * under way await one `Deferred`, which wakes them in the order they came, so a bounded client stays
 * first come, first served. Serving stale lists (opt-in) answers with the last list when a refresh fails.
 */
import * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import * as HashSet from "effect/HashSet"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as SynchronizedRef from "effect/SynchronizedRef"
import { DecodeError, type RequestError } from "../../McpError.js"

/** The paginated list methods. */
export type ListMethod = "tools/list" | "resources/list" | "resources/templates/list" | "prompts/list" | "tasks/list"

/** The most pages one listing may take. */
export const MAX_PAGES = 10_000

/** A page of a list method: its items and the cursor of the next page. */
export interface Page {
  readonly nextCursor?: string
}

/**
 * Every item of a list method (of the table, or an extension's such as `skills/list`), page by
 * page, through the given request function. Each run starts afresh.
 */
export const paginate = <R extends Page, A>(
  server: string,
  method: ListMethod | (string & {}),
  request: (cursor: string | undefined) => Effect.Effect<R, RequestError>,
  items: (result: R) => ReadonlyArray<A>
): Stream.Stream<A, RequestError> =>
  Stream.paginateChunkEffect(
    { cursor: undefined as string | undefined, seen: HashSet.empty<string>(), pages: 0 },
    ({ cursor, seen, pages }) =>
      Effect.flatMap(request(cursor), (result) => {
        const next = result.nextCursor
        const chunk = Chunk.fromIterable(items(result))
        if (next === undefined) return Effect.succeed([chunk, Option.none()] as const)
        if (HashSet.has(seen, next) || pages + 1 >= MAX_PAGES) {
          return Effect.fail(
            new DecodeError({
              server,
              method,
              issue: HashSet.has(seen, next)
                ? `the server repeated the cursor ${JSON.stringify(next)}`
                : `more than ${MAX_PAGES} pages`
            })
          )
        }
        return Effect.succeed([
          chunk,
          Option.some({ cursor: next, seen: HashSet.add(seen, next), pages: pages + 1 })
        ] as const)
      })
  )

/** A cached list. */
export interface CachedList<A> {
  /** The cached array, fetched all pages on first use or after an invalidation; concurrent readers share one fetch. */
  readonly get: Effect.Effect<ReadonlyArray<A>, RequestError>
  /** Forgets the cached array; a fetch already under way does not repopulate it. */
  readonly invalidate: Effect.Effect<void>
  /** The cached array, if there is one, without fetching. */
  readonly peek: Effect.Effect<Option.Option<ReadonlyArray<A>>>
  /** The same, read without an effect (the hot path of a tool call checks against it). */
  readonly known: () => ReadonlyArray<A> | undefined
}

interface Cache<A> {
  readonly generation: number
  readonly value: Option.Option<ReadonlyArray<A>>
  /** When the value stops being fresh (the server's `ttlMs`, 2026-07-28); none: until invalidated. */
  readonly expiresAt: Option.Option<number>
  /**
   * The outcome of the fetch under way for this generation, which every reader awaits. A `Deferred`
   * rather than the fetch's fiber: a fiber wakes those who join it last first, a `Deferred` wakes
   * them in the order they came, so the readers go on (to a request limiter, say) first come, first served.
   */
  readonly fetching: Option.Option<Deferred.Deferred<ReadonlyArray<A>, RequestError>>
}

/**
 * Caches a list stream's items. The first reader starts one fetch in the cache's scope and every
 * reader joins it (interrupting a reader does not stop it); a generation counter keeps a fetch
 * that an invalidation overtook from repopulating the cache.
 */
export const cachedList = <A>(
  stream: Stream.Stream<A, RequestError>,
  /** How long a fetched value stays fresh, read after each fetch (none: until invalidated). */
  freshFor: Effect.Effect<Option.Option<number>> = Effect.succeed(Option.none())
): Effect.Effect<CachedList<A>, never, Scope.Scope> =>
  Effect.gen(function* () {
    const scope = yield* Effect.scope
    const cache = yield* SynchronizedRef.make<Cache<A>>({
      generation: 0,
      value: Option.none(),
      expiresAt: Option.none(),
      fetching: Option.none()
    })
    // The cache's value, mirrored for reads without an effect; set wherever the value changes.
    let known: ReadonlyArray<A> | undefined
    const settle = (generation: number, exit: Exit.Exit<ReadonlyArray<A>, RequestError>) =>
      Effect.flatMap(Effect.zip(freshFor, Clock.currentTimeMillis), ([fresh, now]) =>
        SynchronizedRef.update(cache, (current) => {
          if (current.generation !== generation) return current
          // A failed refetch keeps the last value for peek; it is not fresh.
          const value = Exit.isSuccess(exit) ? Option.some(exit.value) : current.value
          known = Option.getOrUndefined(value)
          return {
            generation,
            value,
            expiresAt: Exit.isSuccess(exit) ? Option.map(fresh, (ms) => now + ms) : Option.some(0),
            fetching: Option.none()
          }
        })
      )
    const isFresh = (current: Cache<A>, now: number) =>
      Option.isSome(current.value) && Option.match(current.expiresAt, { onNone: () => true, onSome: (at) => now < at })
    const get = Effect.flatten(
      SynchronizedRef.modifyEffect(cache, (current) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => {
          if (Option.isSome(current.value) && isFresh(current, now))
            return Effect.succeed([Effect.succeed(current.value.value), current] as const)
          if (Option.isSome(current.fetching))
            return Effect.succeed([Deferred.await(current.fetching.value), current] as const)
          const { generation } = current
          const outcome = Deferred.unsafeMake<ReadonlyArray<A>, RequestError>(FiberId.none)
          return Stream.runCollect(stream).pipe(
            Effect.map(Chunk.toReadonlyArray),
            Effect.onExit((exit) => settle(generation, exit)),
            Effect.intoDeferred(outcome),
            Effect.forkIn(scope),
            Effect.as([Deferred.await(outcome), { ...current, fetching: Option.some(outcome) }] as const)
          )
        })
      )
    )
    const invalidate = SynchronizedRef.update(cache, ({ generation }) => {
      known = undefined
      return { generation: generation + 1, value: Option.none(), expiresAt: Option.none(), fetching: Option.none() }
    })
    return {
      get,
      invalidate,
      peek: Effect.sync(() => Option.fromNullable(known)),
      known: () => known
    }
  })

/** A service with a list that may be served stale: its `list`. */
export interface Listing<A> {
  readonly list: Effect.Effect<ReadonlyArray<A>, RequestError>
}

/**
 * The service with its `list` answered from the last list it gave when a later one fails (even one
 * a change notification invalidated since), with a warning naming the server and the list; a
 * failure before any list was given stays a failure. `what` names the list ("tools").
 */
export const servingStale =
  (server: () => string, what: string) =>
  <A, S extends Listing<A>>(service: S & Listing<A>): Effect.Effect<S> =>
    Effect.map(Ref.make(Option.none<ReadonlyArray<A>>()), (lastGood) => ({
      ...service,
      list: service.list.pipe(
        Effect.tap((items) => Ref.set(lastGood, Option.some(items))),
        Effect.catchAll((error) =>
          Effect.flatMap(
            Ref.get(lastGood),
            Option.match({
              onNone: () => Effect.fail(error),
              onSome: (last) =>
                Effect.as(
                  Effect.logWarning(
                    `${server()}: serving the last ${what} list fetched (stale): refreshing it failed: ${error.message}`
                  ),
                  last
                )
            })
          )
        )
      )
    }))
