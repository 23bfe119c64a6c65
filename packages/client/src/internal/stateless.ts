/**
 * The stateless dialect (2026-07-28): no handshake; every request carries the revision, the
 * client's capabilities and identity in `_meta` (and the log level, once one is set); a result
 * may ask for input (`resultType: "input_required"`), which the handlers the host provided
 * answer before the request is sent again under a new id with `inputResponses` and the exact
 * `requestState`, a bounded number of rounds within one deadline. `ping` is a `server/discover`;
 * `logging/setLevel` is local (the level travels with each request).
 */
import { McpSchema, type ProtocolVersion } from "@effect-mcp/protocol"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { CapabilityNotSupported, DecodeError, InvalidInput, RequestTimeout } from "../McpError.js"
import type * as Peer from "../Peer.js"
import type { Dialect, WireError } from "./dialect.js"
import type { Answer } from "./serverRequests.js"

/** What the stateless dialect needs. */
export interface StatelessOptions {
  readonly server: () => string
  readonly peer: Peer.Peer
  readonly version: ProtocolVersion.StatelessVersion
  readonly capabilities: McpSchema.ClientCapabilities
  readonly clientInfo: McpSchema.Implementation
  /** Answers the input a result asks for, with the host's handlers. */
  readonly answer: Answer
  /** The most rounds of one request. */
  readonly maxRounds: number
  /** The default deadline of a request, across all its rounds. */
  readonly requestTimeout: Duration.Duration
}

/** The methods whose results may ask for input. */
const MULTI_ROUND = new Set(["tools/call", "prompts/get", "resources/read"])

const decodeInputRequired = Schema.decodeUnknownEither(McpSchema.InputRequiredResult)

/** The `_meta` every request of this revision carries. */
export const envelope = (
  version: ProtocolVersion.StatelessVersion,
  capabilities: McpSchema.ClientCapabilities,
  clientInfo: McpSchema.Implementation,
  logLevel: McpSchema.LoggingLevel | undefined
): Peer.WireObject => ({
  [McpSchema.MetaKey.protocolVersion]: version,
  [McpSchema.MetaKey.clientCapabilities]: capabilities,
  [McpSchema.MetaKey.clientInfo]: clientInfo,
  ...(logLevel === undefined ? {} : { [McpSchema.MetaKey.logLevel]: logLevel })
})

/** The stateless dialect over a peer. */
export const make = (options: StatelessOptions): Dialect => {
  const { peer } = options
  let logLevel: McpSchema.LoggingLevel | undefined
  const meta = () => envelope(options.version, options.capabilities, options.clientInfo, logLevel)

  /** The answers to one round's input requests, keyed as the server keyed them. */
  const inputsFor = (method: string, requests: { readonly [key: string]: McpSchema.InputRequest }) =>
    Effect.forEach(
      Object.entries(requests),
      ([key, request]) =>
        options
          .answer(
            request.method,
            request.params,
            { server: options.server(), requestId: key, relatedTaskId: undefined },
            options.version
          )
          .pipe(
            Effect.map((response) => [key, response] as const),
            Effect.mapError(
              (failure) =>
                new InvalidInput({
                  server: options.server(),
                  method,
                  reason: `the server asked for ${request.method} (${key}), which this client could not give: ${failure.errorMessage}`
                })
            )
          ),
      { concurrency: "unbounded" }
    ).pipe(Effect.map((entries) => Object.fromEntries(entries)))

  const rounds = (
    method: string,
    wire: Peer.WireObject | undefined,
    requestOptions: Peer.RequestOptions,
    deadline: number,
    timeout: Duration.Duration,
    round: number,
    retry: Peer.WireObject
  ): Effect.Effect<Peer.WireObject, WireError> =>
    Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      if (now >= deadline) {
        return yield* new RequestTimeout({ server: options.server(), method, timeout, kind: "total" })
      }
      const raw = yield* peer.request(
        method,
        { ...wire, ...retry },
        {
          ...requestOptions,
          maxTotalTimeout: Duration.millis(deadline - now),
          meta: { ...requestOptions.meta, ...meta() }
        }
      )
      const resultType = raw.resultType
      if (resultType === undefined || resultType === "complete") return raw
      if (resultType !== "input_required" || !MULTI_ROUND.has(method)) {
        return yield* new DecodeError({
          server: options.server(),
          method,
          issue: `unknown resultType ${JSON.stringify(resultType)}`
        })
      }
      const interim = decodeInputRequired(raw)
      if (Either.isLeft(interim)) {
        return yield* new DecodeError({
          server: options.server(),
          method,
          issue: ParseResult.TreeFormatter.formatErrorSync(interim.left)
        })
      }
      if (round >= options.maxRounds) {
        return yield* new DecodeError({
          server: options.server(),
          method,
          issue: `the server asked for input ${round} times; the limit is ${options.maxRounds} rounds`
        })
      }
      const { inputRequests, requestState } = interim.right
      const inputResponses = inputRequests === undefined ? undefined : yield* inputsFor(method, inputRequests)
      // Each round carries exactly this round's answers and state, nothing of earlier rounds.
      return yield* rounds(method, wire, requestOptions, deadline, timeout, round + 1, {
        ...(inputResponses === undefined ? {} : { inputResponses }),
        ...(requestState === undefined ? {} : { requestState })
      })
    })

  return {
    era: "stateless",
    exchange: (method, wire, requestOptions) => {
      switch (method) {
        case "ping":
          // No ping in this revision: discovery is the cheapest request every server answers.
          return Effect.as(peer.request("server/discover", undefined, { ...requestOptions, meta: meta() }), {})
        case "logging/setLevel":
          return Effect.sync(() => {
            const level = wire?.level
            logLevel = Schema.is(McpSchema.LoggingLevel)(level) ? level : logLevel
            return {}
          })
        case "resources/subscribe":
        case "resources/unsubscribe":
          return Effect.fail(
            new CapabilityNotSupported({
              server: options.server(),
              method,
              capability: "subscriptions/listen (not implemented for 2026-07-28 yet)"
            })
          )
      }
      const timeout = Duration.decode(
        requestOptions.maxTotalTimeout ?? requestOptions.timeout ?? options.requestTimeout
      )
      return Effect.flatMap(Clock.currentTimeMillis, (now) =>
        rounds(method, wire, requestOptions, now + Duration.toMillis(timeout), timeout, 1, {})
      )
    },
    // The revision's only client notification is notifications/cancelled (stdio), which the peer sends itself.
    notify: (method) => Effect.logDebug(`${options.server()}: ${method} does not exist in ${options.version}; not sent`)
  }
}
