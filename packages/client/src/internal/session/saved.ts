/**
 * A saved session: what a caller keeps to reattach to a Streamable HTTP session from another
 * process (the server's session id and what `initialize` negotiated), as a Schema, since it is
 * stored and read back from outside. Only stateful revisions have sessions.
 *
 * Decoding the stored value is where a bad one fails (`ParseError`). None exists before `Ready`, at 2026-07-28, or over
 * stdio and HTTP+SSE; a transport without `reattach` fails the start with `SessionUnavailable`; a
 * server that forgot the session refuses the first request (`SessionExpired`) and recovery
 * initializes as after a restart.
 */
import { McpSchema, ProtocolVersion } from "@effect-mcp/protocol"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { Established } from "./established.js"

/** The session id a server gave, and what the handshake established. */
export class SavedSession extends Schema.Class<SavedSession>("SavedSession")({
  /** The server's `Mcp-Session-Id`. */
  sessionId: Schema.NonEmptyString,
  /** The negotiated revision (a stateful one: 2026-07-28 has no sessions). */
  protocolVersion: Schema.Literal(...ProtocolVersion.STATEFUL),
  serverInfo: McpSchema.Implementation,
  serverCapabilities: McpSchema.ServerCapabilities,
  instructions: Schema.optional(Schema.String)
}) {}

/** What `established` says, under the session id `sessionId`; none at a stateless revision. */
export const save = (sessionId: string, established: Established): Option.Option<SavedSession> => {
  const version = established.protocolVersion
  if (!ProtocolVersion.isStateful(version) || sessionId === "") return Option.none()
  const instructions = Option.getOrUndefined(established.instructions)
  return Option.some(
    new SavedSession({
      sessionId,
      protocolVersion: version,
      serverInfo: established.serverInfo,
      serverCapabilities: established.serverCapabilities,
      ...(instructions === undefined ? {} : { instructions })
    })
  )
}

/** What a saved session established (the session uses it as its handshake's). */
export const establishedOf = (saved: SavedSession): Established => ({
  protocolVersion: saved.protocolVersion,
  serverInfo: saved.serverInfo,
  serverCapabilities: saved.serverCapabilities,
  instructions: Option.fromNullable(saved.instructions)
})
