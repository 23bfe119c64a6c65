/**
 * The status of one server in a host, as hosts show it: connecting, ready, failed with a
 * cause, reconnecting after a crash, or stopped (disabled or removed).
 *
 * @since 0.1.0
 */
import type { McpError } from "@effect-mcp/client"
import type { McpSchema, ProtocolVersion } from "@effect-mcp/protocol"
import * as Data from "effect/Data"

/**
 * Why a server failed: its handshake's or its session's error.
 *
 * @since 0.1.0
 * @category models
 */
export type FailureCause = McpError.InitializeError

/**
 * The status of one server.
 *
 * @since 0.1.0
 * @category models
 */
export type ServerStatus = Data.TaggedEnum<{
  /** The first connection is being made. */
  Connecting: {}
  /** Connected and initialized; `pid` is the process of a stdio server. */
  Ready: {
    readonly serverInfo: McpSchema.Implementation
    readonly protocolVersion: ProtocolVersion.ProtocolVersion
    readonly pid: number | undefined
  }
  /** The server could not be started, or crashed more often than the restart schedule allows. */
  Failed: { readonly cause: FailureCause }
  /** The session died; the server is being restarted (`attempt` counts from 1). */
  Reconnecting: { readonly attempt: number; readonly cause: FailureCause }
  /** Disabled, removed, or the host is closing. */
  Stopped: {}
}>

/**
 * Constructors and matchers of {@link ServerStatus}.
 *
 * @since 0.1.0
 * @category constructors
 */
export const ServerStatus = Data.taggedEnum<ServerStatus>()

/**
 * One line for a person: `ready`, `failed: <why>`, …
 *
 * @since 0.1.0
 * @category rendering
 */
export const describe = (status: ServerStatus): string =>
  ServerStatus.$match(status, {
    Connecting: () => "connecting",
    Ready: ({ serverInfo }) => `ready (${serverInfo.name} ${serverInfo.version})`,
    Failed: ({ cause }) => `failed: ${cause.message}`,
    Reconnecting: ({ attempt, cause }) => `reconnecting (attempt ${attempt}) after: ${cause.message}`,
    Stopped: () => "stopped"
  })
