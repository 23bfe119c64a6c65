/** What a session's handshake established (or a saved session brings back). */
import type { McpSchema, ProtocolVersion } from "@effect-mcp/protocol"
import type * as Option from "effect/Option"

/** What a handshake or discovery established; replaced as a whole when the session is re-established. */
export interface Established {
  readonly protocolVersion: ProtocolVersion.ProtocolVersion
  readonly serverInfo: McpSchema.Implementation
  readonly serverCapabilities: McpSchema.ServerCapabilities
  readonly instructions: Option.Option<string>
}
