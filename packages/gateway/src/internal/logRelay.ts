/**
 * The servers' log messages passed on to one client, each under its server's name (`logger`
 * becomes `server` or `server/logger`). A log a server related to a call (on the call's own
 * stream, over Streamable HTTP) goes to that call's client alone, related to that call. One it did
 * not (a stdio server cannot) is related to the client's newest call to that server: a 2025-11-25
 * session hears those for as long as it lives (those of a server it is not calling too, when no one
 * is), at or above the level it set; a 2026-07-28 request that asked for logs
 * (`io.modelcontextprotocol/logLevel`) hears those of its own call only, at or above its level.
 */
import { type JsonRpc, McpSchema } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { Fanout } from "./fanout.js"
import type { InFlight } from "./inflight.js"
import { relatedTo } from "./inflight.js"

/** A log message as the client gets it. */
export type LogParams = typeof McpSchema.LoggingMessageNotificationParams.Type

/** How a client hears the servers' logs. */
export interface Options {
  /** Sends one log message to the client. */
  readonly send: (params: LogParams) => Effect.Effect<void>
  /**
   * Only the logs of the client's own call: those of a server it alone is calling (a log cannot be
   * told apart when several clients call one server: it is dropped rather than shown to a client
   * whose call it may not be). Else also those of a server no one is calling, and every caller
   * of a server hears its logs.
   */
  readonly ownCallsOnly?: boolean
  /** The least severe level passed on, as it is now (`undefined`: every level). */
  readonly level?: () => McpSchema.LoggingLevel | undefined
}

const SEVERITY = McpSchema.LoggingLevel.literals

/** Whether `level` is at least as severe as `minimum`. */
export const atLeast = (level: McpSchema.LoggingLevel, minimum: McpSchema.LoggingLevel): boolean =>
  SEVERITY.indexOf(level) >= SEVERITY.indexOf(minimum)

/** The most verbose of `levels` (what a server shared by their clients is set to). */
export const mostVerbose = (levels: Iterable<McpSchema.LoggingLevel>): McpSchema.LoggingLevel | undefined => {
  let found: McpSchema.LoggingLevel | undefined
  for (const level of levels) if (found === undefined || !atLeast(level, found)) found = level
  return found
}

/** Where the logs of a client's calls go: the client's level filter, then its connection. */
export interface Own {
  /** Sends a log message of the client's call `request` to `server` (one the server related to that call). */
  readonly send: (server: string, request: JsonRpc.RequestId) => (message: LogParams) => Effect.Effect<void>
  /** The level the client asked for, passed to a 2026-07-28 server with each of its calls. */
  readonly level: () => McpSchema.LoggingLevel | undefined
}

/** The logs of a client's own calls, at or above its level (a client that asked for none gets none). */
export const own = (options: Options & { readonly asked: boolean }): Own => ({
  send: (server, request) => (message) => (options.asked ? deliver(options, server, message, request) : Effect.void),
  level: () => options.level?.()
})

/** A log message of `server` sent to the client, at or above its level, under the server's name. */
const deliver = (
  options: Options,
  server: string,
  message: LogParams,
  related: JsonRpc.RequestId | undefined
): Effect.Effect<void> => {
  const level = options.level?.()
  if (level !== undefined && !atLeast(message.level, level)) return Effect.void
  const logger = message.logger === undefined ? server : `${server}/${message.logger}`
  return options.send({ ...message, logger }).pipe(relatedTo(related))
}

/**
 * Relays the logs the servers did not relate to a call (stdio servers' logs, those on a server's
 * own stream) to the client while the scope is open.
 */
export const relay = (fanout: Fanout, inFlight: InFlight, options: Options): Effect.Effect<void, never, Scope.Scope> =>
  fanout.listen({
    log: (server, message, callers) => {
      const related = inFlight.latest(server)
      if (options.ownCallsOnly === true && (related === undefined || callers > 1)) return Effect.void
      return deliver(options, server, message, related)
    },
    calling: (server) => inFlight.latest(server) !== undefined
  })
