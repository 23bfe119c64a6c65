/**
 * The stateless dialect (2026-07-28): no handshake; every request carries the revision, the
 * client's capabilities and identity in `_meta` (and the log level, once one is set); a result
 * may ask for input (`resultType: "input_required"`), which the handlers the host provided
 * answer before the request is sent again under a new id with `inputResponses` and the exact
 * `requestState`, a bounded number of rounds within one deadline. `ping` is a `server/discover`;
 * `logging/setLevel` is local (the level travels with each request).
 */

import type * as Peer from "@effect-mcp/jsonrpc/Peer"
import { McpSchema, type ProtocolVersion, Revision } from "@effect-mcp/protocol"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as HashSet from "effect/HashSet"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { OnBehalfOf } from "../../Capabilities.js"
import { DecodeError, InputNotGiven, RequestTimeout } from "../../McpError.js"
import type { Dialect, ExchangeOptions, WireError } from "./dialect.js"
import * as Listen from "./listen.js"
import * as TaskExtension from "./taskExtension.js"
import type { ServerRequestHandler } from "./types.js"

/** What the stateless dialect needs. */
export interface StatelessOptions {
  readonly server: () => string
  readonly peer: Peer.Peer
  readonly version: ProtocolVersion.StatelessVersion
  readonly capabilities: McpSchema.ClientCapabilities
  readonly clientInfo: McpSchema.Implementation
  /** Answers the input a result asks for, with the host's handlers. */
  readonly serve: ServerRequestHandler
  /** The most rounds of one request. */
  readonly maxRounds: number
  /** The default deadline of a request, across all its rounds. */
  readonly requestTimeout: Duration.Duration
  /** What the server declared: which change notifications it can send. */
  readonly serverCapabilities: McpSchema.ServerCapabilities
}

/** The list methods whose results say how long they stay fresh. */
const LISTS = new Set(["tools/list", "resources/list", "resources/templates/list", "prompts/list"])

/** The methods whose results may ask for input. */
const MULTI_ROUND = new Set(["tools/call", "prompts/get", "resources/read"])

const decodeInputRequired = Schema.decodeUnknownEither(McpSchema.InputRequiredResult)
const decodeInputRequest = Schema.decodeUnknownOption(McpSchema.InputRequest)

/** The `_meta` every request of this revision carries. */
export const envelope = (
  version: ProtocolVersion.StatelessVersion,
  capabilities: McpSchema.ClientCapabilities,
  clientInfo: McpSchema.Implementation,
  logLevel: McpSchema.LoggingLevel | undefined
): Peer.WireObject => ({
  [McpSchema.MetaKey.protocolVersion]: version,
  // The tasks extension is always supported (a task answer is followed to its result), beside
  // the extensions the client declares (skills).
  [McpSchema.MetaKey.clientCapabilities]: {
    ...Revision.clientCapabilities(version, capabilities),
    extensions: { ...capabilities.extensions, [TaskExtension.EXTENSION]: {} }
  },
  [McpSchema.MetaKey.clientInfo]: clientInfo,
  ...(logLevel === undefined ? {} : { [McpSchema.MetaKey.logLevel]: logLevel })
})

/**
 * The stateless dialect over a peer. Change notifications come over one `subscriptions/listen`
 * request, opened at once for the lists the server says can change and opened again (the old one
 * cancelled) whenever the resource subscriptions change; it lives in the scope.
 */
export const make = (options: StatelessOptions): Effect.Effect<Dialect, never, Scope.Scope> =>
  Effect.gen(function* () {
    const { peer } = options
    let logLevel: McpSchema.LoggingLevel | undefined
    const meta = (onBehalfOf?: McpSchema.ClientCapabilities, level?: McpSchema.LoggingLevel) =>
      envelope(options.version, onBehalfOf ?? options.capabilities, options.clientInfo, level ?? logLevel)

    // How long each list stays fresh: the least ttlMs of the pages of its last listing (absent: 0).
    const ttls = new Map<string, number>()
    const record = (method: string, wire: Peer.WireObject | undefined, raw: Peer.WireObject) => {
      const ttl = typeof raw.ttlMs === "number" && raw.ttlMs >= 0 ? raw.ttlMs : 0
      const first = wire?.cursor === undefined
      ttls.set(method, first ? ttl : Math.min(ttls.get(method) ?? ttl, ttl))
    }

    // Reads that said how long they stay fresh (ttlMs > 0), by URI; an update of the resource ends it.
    const reads = new Map<string, { readonly raw: Peer.WireObject; readonly expiresAt: number }>()
    const cacheRead = (method: string, wire: Peer.WireObject | undefined, raw: Peer.WireObject) =>
      method !== "resources/read" || typeof wire?.uri !== "string" || typeof raw.ttlMs !== "number" || raw.ttlMs <= 0
        ? Effect.void
        : Effect.map(Clock.currentTimeMillis, (now) => {
            reads.set(String(wire.uri), { raw, expiresAt: now + Number(raw.ttlMs) })
          })

    // Change notifications over one subscriptions/listen request (listen.ts).
    const listening = yield* Listen.make({
      server: options.server,
      peer,
      meta,
      capabilities: options.serverCapabilities
    })
    const { resubscribe } = listening
    // A read's cached result ends with an update of its resource, or a changed resource list.
    const updates = yield* peer.subscribe
    yield* Stream.fromQueue(updates).pipe(
      Stream.runForEach((notification) =>
        Effect.sync(() => {
          if (notification.method === "notifications/resources/updated") reads.delete(String(notification.params?.uri))
          if (notification.method === "notifications/resources/list_changed") reads.clear()
        })
      ),
      Effect.forkScoped
    )
    /** The answers to one round's input requests, keyed as the server keyed them. */
    const inputsFor = (
      method: string,
      requests: ReadonlyArray<readonly [string, McpSchema.InputRequest]>,
      requestState?: string
    ) =>
      Effect.forEach(
        requests,
        ([key, request]) =>
          options
            .serve(
              request.method,
              request.params,
              { server: options.server(), requestId: key, relatedTaskId: undefined, requestState },
              options.version
            )
            .pipe(
              Effect.map((response) => [key, response] as const),
              Effect.mapError(
                (failure) =>
                  new InputNotGiven({
                    server: options.server(),
                    method,
                    request: request.method,
                    reason: `the server asked for ${request.method} (${key}), which this client could not give: ${failure.errorMessage}`
                  })
              )
            ),
        { concurrency: "unbounded" }
      ).pipe(Effect.map((entries) => Object.fromEntries(entries)))

    const tasks: TaskExtension.TaskContext = {
      server: options.server,
      peer,
      meta,
      inputs: (requests) => inputsFor("tools/call", requests),
      decodeInputRequest: (value) => Option.toArray(decodeInputRequest(value))
    }

    const rounds = (
      method: string,
      wire: Peer.WireObject | undefined,
      exchangeOptions: Omit<ExchangeOptions, "answering">,
      deadline: number,
      timeout: Duration.Duration,
      round: number,
      retry: Peer.WireObject
    ): Effect.Effect<Peer.WireObject, WireError> =>
      Effect.gen(function* () {
        const { logLevel: level, ...requestOptions } = exchangeOptions
        // The one deadline is the caller's: a timeout reads as the one the caller set (the
        // request timeout, or the maximum total time), not as what was left of it for a round.
        const timedOut = () =>
          new RequestTimeout({
            server: options.server(),
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
            Effect.logWarning(`${options.server()}: ${method}: ${broken.reason}; gave up after sending it 3 times`)
          )
        )
        const resultType = raw.resultType
        if (resultType === undefined || resultType === "complete") {
          // A read answered at once may be reused for its ttlMs; one that took rounds never is.
          if (round === 1) yield* cacheRead(method, wire, raw)
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
          return yield* new InputNotGiven({
            server: options.server(),
            method,
            rounds: round,
            reason: `the server asked for input ${round} times; the limit is ${options.maxRounds} rounds (maxInputRounds)`
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

    return {
      era: "stateless",
      exchange: (method, wire, { answering, ...requestOptions }) => {
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
          case "resources/unsubscribe": {
            // No such requests in this revision: the subscription request is opened again with the new set.
            const uri = wire?.uri
            if (typeof uri !== "string") return Effect.succeed({})
            return resubscribe(method === "resources/subscribe" ? HashSet.add(uri) : HashSet.remove(uri))
          }
        }
        // One deadline across all rounds: the maximum total time, else the timeout (unless progress
        // resets it, when the peer's idle timeout alone bounds each round).
        const timeout =
          requestOptions.maxTotalTimeout === undefined && requestOptions.resetTimeoutOnProgress === true
            ? Duration.infinity
            : Duration.decode(requestOptions.maxTotalTimeout ?? requestOptions.timeout ?? options.requestTimeout)
        return Effect.flatMap(Clock.currentTimeMillis, (now) => {
          const deadline = now + Duration.toMillis(timeout)
          // An answer to an earlier round continues the server's exchange at its next round.
          if (answering !== undefined) {
            const { inputResponses, requestState } = answering
            return rounds(method, wire, requestOptions, deadline, timeout, 2, {
              inputResponses,
              ...(requestState === undefined ? {} : { requestState })
            })
          }
          const uri = String(wire?.uri)
          const cached = method === "resources/read" ? reads.get(uri) : undefined
          if (cached !== undefined && now >= cached.expiresAt) reads.delete(uri)
          if (cached !== undefined && now < cached.expiresAt) return Effect.succeed(cached.raw)
          return rounds(method, wire, requestOptions, deadline, timeout, 1, {})
        }).pipe(Effect.tap((raw) => (LISTS.has(method) ? Effect.sync(() => record(method, wire, raw)) : Effect.void)))
      },
      // The revision's only client notification is notifications/cancelled (stdio), which the peer sends itself.
      freshness: (method) => Option.fromNullable(ttls.get(method)),
      accepts: listening.accepts,
      notify: (method) =>
        Effect.logDebug(`${options.server()}: ${method} does not exist in ${options.version}; not sent`)
    }
  })
