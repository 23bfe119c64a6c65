/**
 * The session's innermost executor: the exchange of the dialect it speaks, inside recovery when
 * the transport's sessions may expire, its failures as the client's request errors; and its plain
 * form, the peer's, while the session speaks the stateful dialect and never recovers.
 */
import type * as Peer from "@effect-mcp/jsonrpc/Peer"
import * as PlainForm from "@effect-mcp/jsonrpc/PlainForm"
import { McpSchema } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { RequestError } from "../../McpError.js"
import * as Dialect from "./dialect.js"
import type { Lifecycle } from "./lifecycle.js"
import type { Execute, Executor, StartExecute } from "./types.js"

const decodeImplementation = Schema.decodeUnknownOption(McpSchema.Implementation)

/**
 * The exchange of the dialect the session speaks now. 2026-07-28 results may say who answered
 * (`_meta` serverInfo): the session keeps the latest.
 */
export const exchangeOf = (lifecycle: Lifecycle): Executor<Dialect.WireError> => {
  const learnServerInfo = (raw: Peer.WireObject) =>
    Effect.suspend(() => {
      const meta = raw._meta
      if (!McpSchema.isJsonObject(meta) || meta[McpSchema.MetaKey.serverInfo] === undefined) return Effect.void
      const info = decodeImplementation(meta[McpSchema.MetaKey.serverInfo])
      return Option.isSome(info) ? lifecycle.answeredBy(info.value) : Effect.void
    })
  return (request) => {
    const { dialect } = lifecycle.speaking()
    const exchanged = dialect.exchange(request.method, request.wire, request.options)
    return dialect.era === "stateless" ? Effect.tap(exchanged, learnServerInfo) : exchanged
  }
}

/** What the executor is made of. */
export interface AnsweredOptions {
  /** The dialect's exchange, as the session speaks now. */
  readonly exchange: Executor<Dialect.WireError>
  /** Recovery of an expired session around an executor, when the transport's sessions may expire. */
  readonly recovering: ((inner: Executor<Dialect.WireError>) => Executor<Dialect.WireError>) | undefined
  /** The plain form of the peer's `request`, when it has one. */
  readonly startRequest: Peer.StartRequest | undefined
  /** Whether the session speaks a stateful dialect now. */
  readonly stateful: () => boolean
}

/** The executor, with its plain form when nothing stands between it and the peer's exchange. */
export const make = (options: AnsweredOptions): Execute => {
  const { exchange, recovering, startRequest } = options
  const inner = recovering === undefined ? exchange : recovering(exchange)
  const answered: Executor<RequestError> = (request) => Effect.mapError(inner(request), Dialect.asRequestError)
  if (startRequest === undefined || recovering !== undefined) return answered
  // A transport's signal is the request's transport failure, as `answered` makes it.
  const start: StartExecute = (request, onDone) =>
    options.stateful()
      ? startRequest(request.method, request.wire, request.options, (outcome) =>
          onDone(
            // An answer passes as it is (`Exit.mapError` makes a new one on every call); a
            // success holds no error, so it is one of any error type.
            Exit.isSuccess(outcome)
              ? (outcome as Exit.Exit<Peer.WireObject, never>)
              : Exit.mapError(outcome, Dialect.asRequestError)
          )
        )
      : undefined
  return PlainForm.attach(answered, start)
}
