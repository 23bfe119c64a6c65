/**
 * The lifecycle of a session as a typed state. Only the transitions in {@link canMove}
 * are legal; the session enforces them and hosts watch the state as a `Stream`.
 *
 * @since 0.1.0
 */
import type { McpSchema, ProtocolVersion } from "@effect-mcp/protocol"
import * as Data from "effect/Data"
import type { InitializeError, RequestError } from "./McpError.js"

/**
 * The state of a session.
 *
 * @since 0.1.0
 * @category models
 */
export type SessionState = Data.TaggedEnum<{
  /** Not started. */
  Disconnected: {}
  /** The transport is being set up. */
  Connecting: {}
  /** `initialize` was sent; nothing else may go out until it completes. */
  Initializing: {}
  /** The handshake completed: requests may flow. */
  Ready: { readonly version: ProtocolVersion.ProtocolVersion; readonly serverInfo: McpSchema.Implementation }
  /** The client is shutting down. */
  Closing: {}
  /** Closed cleanly. */
  Closed: {}
  /** Failed; `cause` says why. Terminal. */
  Failed: { readonly cause: InitializeError | RequestError }
}>

/**
 * Constructors and matchers of {@link SessionState}.
 *
 * @since 0.1.0
 * @category constructors
 */
export const SessionState = Data.taggedEnum<SessionState>()

/** The legal next states of each state. */
const legal: Record<SessionState["_tag"], ReadonlyArray<SessionState["_tag"]>> = {
  Disconnected: ["Connecting", "Closing", "Failed"],
  Connecting: ["Initializing", "Closing", "Failed"],
  Initializing: ["Ready", "Closing", "Failed"],
  // Ready to Ready: the session was re-established (an HTTP server forgot it) with what the new handshake says.
  Ready: ["Ready", "Closing", "Failed"],
  Closing: ["Closed", "Failed"],
  Closed: [],
  Failed: []
}

/**
 * Is moving from one state to the other legal?
 *
 * @since 0.1.0
 * @category guards
 */
export const canMove = (from: SessionState, to: SessionState): boolean => legal[from._tag].includes(to._tag)

/**
 * Is this state terminal?
 *
 * @since 0.1.0
 * @category guards
 */
export const isTerminal = (state: SessionState): boolean => legal[state._tag].length === 0
