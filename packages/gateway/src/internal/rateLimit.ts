/**
 * Rate limits and quotas by key (a principal's requests, a principal's calls of a tool), on the
 * `Clock`: a rate is a token bucket (`limit` at once, refilled evenly over `per`); a quota is `limit`
 * uses in a window of `per` that starts with the first use and, once over, starts again with the
 * next. A refusal says how long until the next use would pass. The state is one immutable map in a
 * `Ref`, changed in one step per use.
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"

/** One limit: `limit` uses per `per`, as a token bucket (`rate`) or a fixed window (`quota`). */
export interface Limit {
  readonly kind: "rate" | "quota"
  readonly limit: number
  readonly per: Duration.Duration
}

type State =
  | { readonly _tag: "Bucket"; readonly tokens: number; readonly at: number }
  | { readonly _tag: "Window"; readonly used: number; readonly start: number }

/** The keys kept before those whose limit has recovered are forgotten. */
const KEPT = 10_000

/** The limiter: `take` uses one of `limit` under `key`; `Some(wait)` when it may not, for that long. */
export interface Limiter {
  readonly take: (key: string, limit: Limit) => Effect.Effect<Option.Option<Duration.Duration>>
}

/** What one use does to a key's state at `now`: the next state, and the wait when refused. */
const use = (
  state: State | undefined,
  limit: Limit,
  now: number
): readonly [Option.Option<Duration.Duration>, State] => {
  const per = Math.max(1, Duration.toMillis(limit.per))
  if (limit.kind === "quota") {
    const current =
      state?._tag === "Window" && now - state.start < per ? state : { _tag: "Window" as const, used: 0, start: now }
    if (current.used >= limit.limit) return [Option.some(Duration.millis(current.start + per - now)), current]
    return [Option.none(), { ...current, used: current.used + 1 }]
  }
  const rate = limit.limit / per
  const tokens = state?._tag === "Bucket" ? Math.min(limit.limit, state.tokens + (now - state.at) * rate) : limit.limit
  if (tokens >= 1) return [Option.none(), { _tag: "Bucket", tokens: tokens - 1, at: now }]
  return [Option.some(Duration.millis(Math.ceil((1 - tokens) / rate))), { _tag: "Bucket", tokens, at: now }]
}

/** Whether a key's state is as if it had never been used (nothing lost by forgetting it). */
const recovered = (state: State, now: number, longest: number): boolean =>
  state._tag === "Window" ? now - state.start >= longest : now - state.at >= longest

/** A limiter with no use yet. */
export const make: Effect.Effect<Limiter> = Effect.map(
  Ref.make({ states: HashMap.empty<string, State>(), longest: 0 }),
  (ref) => ({
    take: (key, limit) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Ref.modify(ref, ({ states, longest }) => {
          const [wait, next] = use(Option.getOrUndefined(HashMap.get(states, key)), limit, now)
          const span = Math.max(longest, Duration.toMillis(limit.per))
          const kept = HashMap.size(states) < KEPT ? states : HashMap.filter(states, (s) => !recovered(s, now, span))
          return [wait, { states: HashMap.set(kept, key, next), longest: span }]
        })
      )
  })
)

/** A wait as whole seconds, at least one (`Retry-After`). */
export const seconds = (wait: Duration.Duration): number => Math.max(1, Math.ceil(Duration.toMillis(wait) / 1000))
