/**
 * The body of a POST's event stream, sent whole when it can be: the answers that are all there
 * within a moment (the common case: the response, after the priming event) are one body, which the
 * HTTP server writes at once; an answer still coming after that (a slow call, progress first) makes
 * the body a stream, starting with what was already there. The content is the same either way.
 */
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

/** A body: whole, or a stream. */
export type Body =
  | { readonly _tag: "Whole"; readonly bytes: Uint8Array }
  | { readonly _tag: "Stream"; readonly stream: Stream.Stream<Uint8Array> }

/** How long answers may take to count as there at once. */
const MOMENT = "5 millis"

const concat = (parts: ReadonlyArray<Uint8Array>): Uint8Array => {
  const bytes = new Uint8Array(parts.reduce((size, part) => size + part.length, 0))
  let offset = 0
  for (const part of parts) {
    bytes.set(part, offset)
    offset += part.length
  }
  return bytes
}

/** Reads `stream` for a moment: whole when it ended meanwhile, else the stream from its start. */
export const settle = (stream: Stream.Stream<Uint8Array>): Effect.Effect<Body> =>
  Effect.flatMap(Scope.make(), (scope) =>
    settleIn(stream, scope).pipe(Effect.onInterrupt(() => Scope.close(scope, Exit.void)))
  )

const settleIn = (stream: Stream.Stream<Uint8Array>, scope: Scope.CloseableScope): Effect.Effect<Body> =>
  Effect.gen(function* () {
    const pull = yield* Scope.extend(Stream.toPull(stream), scope)
    const taken: Array<Uint8Array> = []
    let ended = false
    const take = pull.pipe(
      Effect.match({
        onFailure: () => {
          ended = true
        },
        onSuccess: (chunk) => {
          taken.push(...Chunk.toReadonlyArray(chunk))
        }
      })
    )
    while (!ended) {
      // A pull interrupted while it waits has taken nothing: the stream goes on from there.
      const more = yield* Effect.timeoutOption(take, MOMENT)
      if (Option.isNone(more)) break
    }
    if (ended) {
      yield* Scope.close(scope, Exit.void)
      return { _tag: "Whole", bytes: concat(taken) } as const
    }
    const rest = Stream.repeatEffectChunkOption(pull)
    return {
      _tag: "Stream",
      stream: Stream.concat(Stream.fromIterable(taken), rest).pipe(Stream.ensuring(Scope.close(scope, Exit.void)))
    } as const
  })
