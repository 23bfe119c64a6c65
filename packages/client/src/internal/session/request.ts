/**
 * A request of the method table over a session service: its `prepare`, its `execute`, its
 * `decode`. Taken from the service it is given, so a decorated session's steps are the ones run.
 */
import type { Methods } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type { RequestError } from "../../McpError.js"
import type { RequestOptions, SessionService } from "./types.js"

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
