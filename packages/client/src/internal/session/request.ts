/**
 * A request of the method table over a session service: its `prepare`, its `execute`, its
 * `decode`. Taken from the service it is given, so a decorated session's steps are the ones run.
 */
import type { Methods } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import type { RequestError } from "../../McpError.js"
import type { Prepared, RequestOptions, SessionService, StartExecute, WireObject } from "./types.js"

/** Sends a request of the method table through the session's one request path. */
export const request = <M extends Methods.RequestMethodName>(
  session: Pick<SessionService, "prepare" | "execute" | "decode">,
  method: M,
  params: Methods.RequestParamsOf<M> | undefined,
  options?: RequestOptions
): Effect.Effect<Methods.ResultOf<M>, RequestError> =>
  Effect.suspend(() =>
    Either.match(session.prepare(method, params, options), {
      onLeft: Effect.fail,
      onRight: (prepared) => Effect.flatMap(session.execute(prepared), (raw) => session.decode(method, raw))
    })
  )

const noop = () => {}

/**
 * A prepared request started with `start` (the plain form of a session's `execute`), its result
 * decoded by `decode` (a decoder that throws is the request's defect). A refused preparation goes
 * to `onDone` at once. `undefined`: `start` cannot start it now.
 */
export const startPrepared = <P extends { readonly request: Prepared }, A, E>(
  start: StartExecute,
  prepared: Either.Either<P, E>,
  decode: (prepared: P, raw: WireObject) => Either.Either<A, E>,
  onDone: (outcome: Exit.Exit<NoInfer<A>, NoInfer<E> | RequestError>) => void
): (() => void) | undefined => {
  if (Either.isLeft(prepared)) {
    onDone(Exit.fail(prepared.left))
    return noop
  }
  const call = prepared.right
  return start(call.request, (outcome) => {
    if (Exit.isFailure(outcome)) return onDone(Exit.failCause(outcome.cause))
    let decoded: Either.Either<A, E>
    try {
      decoded = decode(call, outcome.value)
    } catch (defect) {
      return onDone(Exit.die(defect))
    }
    onDone(Either.isRight(decoded) ? Exit.succeed(decoded.right) : Exit.fail(decoded.left))
  })
}
