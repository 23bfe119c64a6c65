/**
 * What the generated module and the standalone program share: where the server came from, and
 * each tool's names in the module.
 */
import type { McpClient } from "@effect-mcp/client"
import type { ServerEntry } from "@effect-mcp/host"

/** The server a module is generated from, as the header and the standalone program need it. */
export interface Origin {
  readonly serverInfo: { readonly name: string; readonly version: string }
  readonly protocolVersion: string
  /** How to reach it again (a command and its arguments, or a URL; never an environment or header value). */
  readonly target: ServerEntry.Target
  /** Where the header says it came from: the command line or URL, unless they must not be written. */
  readonly where: string
}

/** One tool as the module declares it. */
export interface Entry {
  readonly tool: McpClient.Tool
  readonly functionName: string
  readonly inputName: string
  readonly outputName: string | undefined
}
