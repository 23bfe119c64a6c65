/**
 * Requests of an extension's methods (`skills/list`, `skills/get`), which the method table, and
 * so the session's `request`, does not hold. They take the session's one request path
 * (`prepareExtension`, then its executor: ready check, the dialect's envelope at 2026-07-28,
 * recovery, the bound, retries); a result that is not `complete` is refused; the result is
 * decoded with the extension's Schema.
 */

import type * as Peer from "@effect-mcp/jsonrpc/Peer"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import { DecodeError, type RequestError } from "../../McpError.js"
import type { SessionService as Session } from "../session/types.js"

/** A result decoder (compiled once by the caller: `Schema.decodeUnknownEither(schema)`). */
export type Decode<A> = (input: unknown) => Either.Either<A, ParseResult.ParseError>

/** Sends one extension request and decodes its result. */
export type ExtensionRequest = <A>(
  method: string,
  params: Peer.WireObject | undefined,
  decode: Decode<A>,
  options?: Peer.RequestOptions
) => Effect.Effect<A, RequestError>

/** Extension requests over a session. */
export const make =
  (session: Session): ExtensionRequest =>
  <A>(
    method: string,
    params: Peer.WireObject | undefined,
    decode: Decode<A>,
    options: Peer.RequestOptions = {}
  ): Effect.Effect<A, RequestError> =>
    Effect.gen(function* () {
      const prepared = yield* session.prepareExtension(method, params, options)
      const raw = yield* session.execute(prepared)
      if (raw.resultType !== undefined && raw.resultType !== "complete") {
        return yield* new DecodeError({
          server: session.server,
          method,
          issue: `unknown resultType ${JSON.stringify(raw.resultType)}`
        })
      }
      const decoded = decode(raw)
      if (Either.isLeft(decoded)) {
        return yield* new DecodeError({
          server: session.server,
          method,
          issue: ParseResult.TreeFormatter.formatErrorSync(decoded.left)
        })
      }
      return decoded.right
    })
