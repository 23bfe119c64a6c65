/**
 * Protocol revisions: which ones this client speaks, their order, and the client's side
 * of version negotiation.
 */
import * as Data from "effect/Data"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"

/** The revisions this client speaks, newest first. */
export const SUPPORTED = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const

/** The newest revision; the client offers it in `initialize`. */
export const LATEST = SUPPORTED[0]

/** A supported revision. */
export const ProtocolVersion = Schema.Literal(...SUPPORTED).annotations({ identifier: "ProtocolVersion" })

/** The type of {@link ProtocolVersion}. */
export type ProtocolVersion = typeof ProtocolVersion.Type

/** Is this revision string one the client speaks? */
export const isSupported = (version: string): version is ProtocolVersion =>
  (SUPPORTED as ReadonlyArray<string>).includes(version)

/** Is `version` the same as or newer than `minimum`? (Revisions are ISO dates, so they order as strings.) */
export const isAtLeast = (version: ProtocolVersion, minimum: ProtocolVersion): boolean => version >= minimum

/** The server answered `initialize` with a revision this client does not speak. */
export class UnsupportedProtocolVersion extends Data.TaggedError("UnsupportedProtocolVersion")<{
  readonly requested: ProtocolVersion
  readonly received: string
}> {
  override get message(): string {
    return `The server answered with protocol version ${this.received}, which this client does not support (it requested ${this.requested}; it supports ${SUPPORTED.join(", ")})`
  }
}

/**
 * The client's negotiation rule: it requests a revision; the server answers with that
 * revision or another one it supports; the client proceeds only if it speaks the answer.
 */
export const negotiate = (
  requested: ProtocolVersion,
  received: string
): Either.Either<ProtocolVersion, UnsupportedProtocolVersion> =>
  isSupported(received) ? Either.right(received) : Either.left(new UnsupportedProtocolVersion({ requested, received }))
