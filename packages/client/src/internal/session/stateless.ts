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
import * as HashSet from "effect/HashSet"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type { Dialect } from "./dialect.js"
import * as Listen from "./listen.js"
import * as ReadCache from "./readCache.js"
import * as Rounds from "./rounds.js"
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

    // Reads that said how long they stay fresh (readCache.ts).
    const reads = yield* ReadCache.make(peer)

    // Change notifications over one subscriptions/listen request (listen.ts).
    const listening = yield* Listen.make({
      server: options.server,
      peer,
      meta,
      capabilities: options.serverCapabilities
    })
    const { resubscribe } = listening
    const rounds = Rounds.make({
      server: options.server,
      peer,
      version: options.version,
      serve: options.serve,
      maxRounds: options.maxRounds,
      meta,
      store: reads.store
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
          const cached = method === "resources/read" ? reads.fresh(String(wire?.uri), now) : undefined
          if (cached !== undefined) return Effect.succeed(cached)
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
