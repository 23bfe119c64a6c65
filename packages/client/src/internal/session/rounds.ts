/**
 * A stateless request's rounds (2026-07-28): sent with the envelope and what is left of its one
 * deadline; a result that asks for input (`input_required`) is answered with the host's handlers
 * and the request sent again under a new id with exactly that round's `inputResponses` and
 * `requestState`, at most `maxRounds` times; a result that is a task (the tasks extension) is
 * followed to its end; a response stream that broke sends the request again, at most twice.
 *
 * At most `maxInputRounds` (10) rounds; beyond, or an input request no handler answers:
 * `InputNotGiven`. All rounds share the request's one deadline, and a timeout names the caller's
 * timeout, not what a round had left. `CallOptions.answering` starts a call at a round answered
 * elsewhere (the gateway does so for its clients).
 */
import type * as Peer from "@effect-mcp/jsonrpc/Peer"
import { McpSchema, type ProtocolVersion } from "@effect-mcp/protocol"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { OnBehalfOf } from "../../Capabilities.js"
import { DecodeError, InputNotGiven, RequestTimeout } from "../../McpError.js"
import type { ExchangeOptions, WireError } from "./dialect.js"
import type { ReadCache } from "./readCache.js"
import * as TaskExtension from "./taskExtension.js"
import type { ServerRequestHandler } from "./types.js"

/** What the rounds need of the dialect. */
export interface RoundsContext {
  readonly server: () => string
  readonly peer: Peer.Peer
  readonly version: ProtocolVersion.StatelessVersion
  /** Answers the input a result asks for, with the host's handlers. */
  readonly serve: ServerRequestHandler
  /** The most rounds of one request. */
  readonly maxRounds: number
  /** The envelope of a request: for whom (the client's capabilities by default), at which log level. */
  readonly meta: (onBehalfOf?: McpSchema.ClientCapabilities, level?: McpSchema.LoggingLevel) => Peer.WireObject
  /** Keeps a read answered at once for its `ttlMs`. */
  readonly store: ReadCache["store"]
}

/**
 * Sends a request from round `round` (its `retry` members: the answers it carries) until its
 * final result, all within `deadline` (`timeout`: the deadline as the caller set it, for the error).
 */
export type Rounds = (
  method: string,
  wire: Peer.WireObject | undefined,
  exchangeOptions: Omit<ExchangeOptions, "answering">,
  deadline: number,
  timeout: Duration.Duration,
  round: number,
  retry: Peer.WireObject
) => Effect.Effect<Peer.WireObject, WireError>

/** The methods whose results may ask for input. */
const MULTI_ROUND = new Set(["tools/call", "prompts/get", "resources/read"])

const decodeInputRequired = Schema.decodeUnknownEither(McpSchema.InputRequiredResult)
const decodeInputRequest = Schema.decodeUnknownOption(McpSchema.InputRequest)

/** The rounds of the dialect's requests. */
export const make = (context: RoundsContext): Rounds => {
  const { peer, meta } = context
  /** The answers to one round's input requests, keyed as the server keyed them. */
  const inputsFor = (
    method: string,
    requests: ReadonlyArray<readonly [string, McpSchema.InputRequest]>,
    requestState?: string
  ) =>
    Effect.forEach(
      requests,
      ([key, request]) =>
        context
          .serve(
            request.method,
            request.params,
            { server: context.server(), requestId: key, relatedTaskId: undefined, requestState },
            context.version
          )
          .pipe(
            Effect.map((response) => [key, response] as const),
            Effect.mapError(
              (failure) =>
                new InputNotGiven({
                  server: context.server(),
                  method,
                  request: request.method,
                  reason: `the server asked for ${request.method} (${key}), which this client could not give: ${failure.errorMessage}`
                })
            )
          ),
      { concurrency: "unbounded" }
    ).pipe(Effect.map((entries) => Object.fromEntries(entries)))

  const tasks: TaskExtension.TaskContext = {
    server: context.server,
    peer,
    meta,
    inputs: (requests) => inputsFor("tools/call", requests),
    decodeInputRequest: (value) => Option.toArray(decodeInputRequest(value))
  }

  const rounds: Rounds = (method, wire, exchangeOptions, deadline, timeout, round, retry) =>
    Effect.gen(function* () {
      const { logLevel: level, ...requestOptions } = exchangeOptions
      // The one deadline is the caller's: a timeout reads as the one the caller set (the
      // request timeout, or the maximum total time), not as what was left of it for a round.
      const timedOut = () =>
        new RequestTimeout({
          server: context.server(),
          method,
          timeout,
          kind: requestOptions.maxTotalTimeout === undefined ? "idle" : "total"
        })
      const now = yield* Clock.currentTimeMillis
      if (now >= deadline) return yield* timedOut()
      // Each attempt gets what is left of the deadline.
      const onBehalfOf = yield* OnBehalfOf
      const send = Effect.flatMap(Clock.currentTimeMillis, (at) =>
        at >= deadline
          ? Effect.fail(timedOut())
          : peer
              .request(
                method,
                { ...wire, ...retry },
                {
                  ...requestOptions,
                  maxTotalTimeout: Duration.millis(deadline - at),
                  meta: { ...requestOptions.meta, ...meta(onBehalfOf, level) }
                }
              )
              .pipe(
                Effect.catchIf(
                  (error): error is RequestTimeout => error._tag === "RequestTimeout" && error.kind === "total",
                  () => Effect.fail(timedOut())
                )
              )
      )
      // A response stream that broke lost the request: send it again under a new id (the spec's
      // rule; the request may have run, so this may repeat its effects), at most twice.
      const raw = yield* Effect.retry(send, { while: (error) => error._tag === "StreamBroken", times: 2 }).pipe(
        Effect.tapErrorTag("StreamBroken", (broken) =>
          Effect.logWarning(`${context.server()}: ${method}: ${broken.reason}; gave up after sending it 3 times`)
        )
      )
      const resultType = raw.resultType
      if (resultType === undefined || resultType === "complete") {
        // A read answered at once may be reused for its ttlMs; one that took rounds never is.
        if (round === 1) yield* context.store(method, wire, raw)
        return raw
      }
      // The tasks extension: the server chose to run the call as a task; follow it to its result.
      if (resultType === "task" && method === "tools/call") {
        // Followed until it is final, or until the caller's maximum total time (which cancels it).
        const followed = TaskExtension.follow(tasks, raw)
        return yield* requestOptions.maxTotalTimeout === undefined
          ? followed
          : Effect.timeoutFail(followed, {
              duration: Duration.millis(Math.max(0, deadline - (yield* Clock.currentTimeMillis))),
              onTimeout: timedOut
            })
      }
      if (resultType !== "input_required" || !MULTI_ROUND.has(method)) {
        return yield* new DecodeError({
          server: context.server(),
          method,
          issue: `unknown resultType ${JSON.stringify(resultType)}`
        })
      }
      const interim = decodeInputRequired(raw)
      if (Either.isLeft(interim)) {
        return yield* new DecodeError({
          server: context.server(),
          method,
          issue: ParseResult.TreeFormatter.formatErrorSync(interim.left)
        })
      }
      if (round >= context.maxRounds) {
        return yield* new InputNotGiven({
          server: context.server(),
          method,
          rounds: round,
          reason: `the server asked for input ${round} times; the limit is ${context.maxRounds} rounds (maxInputRounds)`
        })
      }
      const { requestState } = interim.right
      // The keys as the server sent them (a decoded record would drop one named "__proto__").
      const requests = McpSchema.isJsonObject(raw.inputRequests)
        ? Object.entries(raw.inputRequests).flatMap(([key, value]) =>
            Option.toArray(Option.map(decodeInputRequest(value), (request) => [key, request] as const))
          )
        : undefined
      const inputResponses = requests === undefined ? undefined : yield* inputsFor(method, requests, requestState)
      // Each round carries exactly this round's answers and state, nothing of earlier rounds.
      return yield* rounds(method, wire, exchangeOptions, deadline, timeout, round + 1, {
        ...(inputResponses === undefined ? {} : { inputResponses }),
        ...(requestState === undefined ? {} : { requestState })
      })
    })
  return rounds
}
