/**
 * Protocol revisions: which ones this client speaks, their order, and the client's side
 * of version negotiation.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"

/**
 * The revisions this client speaks, newest first.
 *
 * @since 0.1.0
 * @category constants
 */
export const SUPPORTED = ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const

/**
 * The newest revision.
 *
 * @since 0.1.0
 * @category constants
 */
export const LATEST = SUPPORTED[0]

/**
 * The stateful revisions (an `initialize` handshake opens a session), newest first.
 *
 * @since 0.1.0
 * @category constants
 */
export const STATEFUL = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const

/**
 * The newest stateful revision; the client offers it in `initialize`.
 *
 * @since 0.1.0
 * @category constants
 */
export const LATEST_STATEFUL = STATEFUL[0]

/**
 * The stateless revisions (no handshake: every request carries the version and capabilities).
 *
 * @since 0.1.0
 * @category constants
 */
export const STATELESS = ["2026-07-28"] as const

/**
 * A supported revision.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ProtocolVersion = Schema.Literal(...SUPPORTED).annotations({ identifier: "ProtocolVersion" })

/**
 * The type of {@link ProtocolVersion}.
 *
 * @since 0.1.0
 * @category models
 */
export type ProtocolVersion = typeof ProtocolVersion.Type

/**
 * Is this revision string one the client speaks?
 *
 * @since 0.1.0
 * @category guards
 */
export const isSupported = (version: string): version is ProtocolVersion =>
  (SUPPORTED as ReadonlyArray<string>).includes(version)

/**
 * A stateful revision.
 *
 * @since 0.1.0
 * @category models
 */
export type StatefulVersion = (typeof STATEFUL)[number]

/**
 * A stateless revision.
 *
 * @since 0.1.0
 * @category models
 */
export type StatelessVersion = (typeof STATELESS)[number]

/**
 * Is this a stateful revision this client speaks?
 *
 * @since 0.1.0
 * @category guards
 */
export const isStateful = (version: string): version is StatefulVersion =>
  (STATEFUL as ReadonlyArray<string>).includes(version)

/**
 * Is this revision stateless (2026-07-28 and later)?
 *
 * @since 0.1.0
 * @category guards
 */
export const isStateless = (version: string): version is StatelessVersion =>
  (STATELESS as ReadonlyArray<string>).includes(version)

/**
 * Is `version` the same as or newer than `minimum`? (Revisions are ISO dates, so they order as strings.)
 *
 * @since 0.1.0
 * @category guards
 */
export const isAtLeast = (version: ProtocolVersion, minimum: ProtocolVersion): boolean => version >= minimum

/**
 * The brand every error of effect-mcp's packages carries (the same global symbol as
 * `@effect-mcp/jsonrpc/PeerError`'s `TypeId`).
 *
 * @since 0.1.0
 * @category type ids
 */
export const ErrorTypeId: unique symbol = Symbol.for("@effect-mcp/McpError")

/**
 * The type of {@link ErrorTypeId}.
 *
 * @since 0.1.0
 * @category type ids
 */
export type ErrorTypeId = typeof ErrorTypeId

/**
 * The server answered `initialize` with a revision this client does not speak; or (`why` set) the
 * client insisted on a revision the server does not speak, and `received` is what the server
 * offers instead (empty when it did not say); or it listed in `server/discover` only revisions
 * this client does not speak (`serverSupports`: then both sides' lists are said).
 *
 * @since 0.1.0
 * @category errors
 */
export class UnsupportedProtocolVersion extends Data.TaggedError("UnsupportedProtocolVersion")<{
  readonly requested: ProtocolVersion
  readonly received: string
  /** How it showed that the server does not speak the revision the client insisted on. */
  readonly why?: string
  /** The revisions the server says it supports (its `server/discover` result), when it said. */
  readonly serverSupports?: ReadonlyArray<string>
}> {
  /** The brand of effect-mcp's errors, under a global symbol: recognised in any copy of the packages (the client's `isMcpError`). */
  get [ErrorTypeId](): ErrorTypeId {
    return ErrorTypeId
  }

  override get message(): string {
    if (this.serverSupports !== undefined) {
      const listed = this.serverSupports.length === 0 ? "none" : this.serverSupports.join(", ")
      return `The server supports protocol versions ${listed} (server/discover), none of which this client speaks (it supports ${SUPPORTED.join(", ")})`
    }
    if (this.why !== undefined) {
      const offers = this.received === "" ? "it did not say which it speaks" : `it offers ${this.received}`
      return `The server does not speak protocol version ${this.requested} (${this.why}); ${offers}`
    }
    return `The server answered with protocol version ${this.received}, which this client does not support (it requested ${this.requested}; it supports ${SUPPORTED.join(", ")})`
  }
}

/**
 * The handshake's negotiation rule: the client requests a stateful revision; the server answers
 * with that revision or another one it supports; the client proceeds only if it speaks the
 * answer as a stateful revision (a stateless one has no handshake to answer).
 *
 * @since 0.1.0
 * @category negotiation
 */
export const negotiate = (
  requested: ProtocolVersion,
  received: string
): Either.Either<StatefulVersion, UnsupportedProtocolVersion> =>
  isStateful(received) ? Either.right(received) : Either.left(new UnsupportedProtocolVersion({ requested, received }))
