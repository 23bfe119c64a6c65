/**
 * The CLI's own failures and how every failure becomes an exit code and one or two
 * readable lines: 0 success, 1 the server reported an error (a tool's `isError`, or a request it
 * refused with a JSON-RPC error), 2 usage or config error (a server asked to authorize that
 * needs no authorization too), 3 connection or protocol failure, 4 authorization failed (not
 * authorized, or a revocation not confirmed, too), 130 interrupted.
 *
 * @since 0.1.0
 */
import type { AuthError, McpError } from "@effect-mcp/client"
import { ConfigError, type HostError } from "@effect-mcp/host"
import type { ProtocolVersion, Revision } from "@effect-mcp/protocol"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"

export {
  /**
   * A config file cannot be used (the host package reads config files).
   *
   * @since 0.1.0
   * @category errors
   */
  ConfigError
}

/**
 * Exit codes of `effect-mcp`.
 *
 * @since 0.1.0
 * @category constants
 */
export const ExitCode = {
  ok: 0,
  toolError: 1,
  usage: 2,
  connection: 3,
  authorization: 4,
  interrupted: 130
} as const

/**
 * The command line asks for something impossible (bad flag value, missing server, bad arguments).
 *
 * @since 0.1.0
 * @category errors
 */
export class UsageError extends Data.TaggedError("UsageError")<{
  readonly reason: string
  readonly server?: string
  readonly method?: string
}> {
  override get message() {
    return this.reason
  }
}

/**
 * The server's command is not on the PATH (or not an executable file).
 *
 * @since 0.1.0
 * @category errors
 */
export class CommandNotFound extends Data.TaggedError("CommandNotFound")<{
  readonly server: string
  readonly command: string
  readonly searched: ReadonlyArray<string>
}> {
  override get message() {
    return this.command.includes("/")
      ? `command not found: ${this.command} (no executable file at that path)`
      : `command not found: ${this.command}\nsearched PATH: ${this.searched.length === 0 ? "(empty)" : this.searched.join(":")}`
  }
}

/**
 * The tool ran and reported `isError: true`. `detail` is the text of its content (this error is
 * where it is printed); its other content has been printed as a result.
 *
 * @since 0.1.0
 * @category errors
 */
export class ToolReportedError extends Data.TaggedError("ToolReportedError")<{
  readonly server: string
  readonly tool: string
  readonly detail: string
}> {
  override get message() {
    const head = `tool ${this.tool} reported an error`
    if (this.detail === "") return head
    // Words of more than one line go below, indented.
    return this.detail.includes("\n")
      ? `${head}:\n${this.detail
          .split("\n")
          .map((line) => `  ${line}`)
          .join("\n")}`
      : `${head}: ${this.detail}`
  }
}

/**
 * `host status`, `host tools`: some configured servers could not be connected. Each one's reason
 * is in the message unless `listed` says the command has shown it already (host status's table).
 *
 * @since 0.1.0
 * @category errors
 */
export class ServersFailed extends Data.TaggedError("ServersFailed")<{
  readonly failed: ReadonlyArray<{ readonly server: string; readonly reason: string }>
  readonly total: number
  readonly listed: boolean
}> {
  override get message() {
    const head = `${this.failed.length} of ${this.total} servers failed: ${this.failed.map((entry) => entry.server).join(", ")}`
    return this.listed ? head : [head, ...this.failed.map((entry) => `  ${entry.reason}`)].join("\n")
  }
}

/**
 * `auth status <server>`: no stored tokens the server would accept (none, or only expired ones
 * that cannot be refreshed).
 *
 * @since 0.1.0
 * @category errors
 */
export class NotAuthorized extends Data.TaggedError("NotAuthorized")<{
  readonly server: string
  readonly url: string
  readonly reason: string
  /** The command that authorizes it. */
  readonly login: string
}> {
  override get message() {
    return `${this.server} is not authorized: ${this.reason} (${this.login} authorizes it)`
  }
}

/**
 * `auth logout`: the tokens were removed here, but the authorization server did not confirm
 * their revocation, so they may still be valid there.
 *
 * @since 0.1.0
 * @category errors
 */
export class RevocationFailed extends Data.TaggedError("RevocationFailed")<{
  readonly failed: ReadonlyArray<{ readonly resource: string; readonly reason: string }>
}> {
  override get message() {
    const head = `revocation failed for ${[...new Set(this.failed.map((entry) => entry.resource))].join(", ")}; the tokens were removed here, but may still be valid at the authorization server`
    return [head, ...this.failed.map((entry) => `  ${entry.resource}: ${entry.reason}`)].join("\n")
  }
}

/**
 * Every failure a command can end with.
 *
 * @since 0.1.0
 * @category errors
 */
export type CliFailure =
  | UsageError
  | ConfigError
  | HostError.UnknownServer
  | HostError.NotFound
  | HostError.ServerUnavailable
  | HostError.ToolNotAllowed
  | CommandNotFound
  | ToolReportedError
  | ServersFailed
  | NotAuthorized
  | RevocationFailed
  | AuthError.AuthorizationNotRequired
  | McpError.TransportError
  | McpError.Overloaded
  | AuthError.AuthorizationError
  | McpError.RpcError
  | McpError.RequestTimeout
  | McpError.CapabilityNotSupported
  | McpError.DecodeError
  | McpError.InvalidInput
  | McpError.InputNotGiven
  | McpError.ToolOutputInvalid
  | McpError.SessionUnavailable
  | McpError.TaskRequired
  | McpError.TaskNotAllowed
  | McpError.SkillVerificationFailed
  | McpError.SkillNotFound
  | Revision.UnrepresentableMessage
  | ProtocolVersion.UnsupportedProtocolVersion

/**
 * The exit code a failure ends the process with.
 *
 * @since 0.1.0
 * @category accessors
 */
export const exitCodeOf = (failure: CliFailure): number => {
  switch (failure._tag) {
    case "UsageError":
    case "ConfigError":
    case "UnknownServer":
    case "NotFound":
    case "ToolNotAllowed":
    case "TaskRequired":
    case "TaskNotAllowed":
    case "SkillNotFound":
    case "InvalidInput":
    case "UnrepresentableMessage":
    case "AuthorizationNotRequired":
      return ExitCode.usage
    case "ToolReportedError":
    case "RpcError":
    // The server is there and answers; it does not offer what was asked.
    case "CapabilityNotSupported":
      return ExitCode.toolError
    case "AuthorizationError":
    case "NotAuthorized":
    case "RevocationFailed":
      return ExitCode.authorization
    default:
      return ExitCode.connection
  }
}

/**
 * The server a failure names, if any.
 *
 * @since 0.1.0
 * @category accessors
 */
export const serverOf = (failure: CliFailure): string | undefined => ("server" in failure ? failure.server : undefined)
const methodOf = (failure: CliFailure): string | undefined =>
  "method" in failure ? failure.method : failure._tag === "ToolReportedError" ? "tools/call" : undefined

// `server`: the name to print for the failure's server (see ServerNames).
const headline = (failure: CliFailure, server = serverOf(failure)): string => {
  switch (failure._tag) {
    // The reason already says how a server process ended (its exit code or signal).
    case "TransportError":
      return `${server}: ${failure.reason}`
    case "RpcError":
      return `${server}: ${failure.method} failed: ${failure.errorMessage} (code ${failure.code})`
    case "RequestTimeout":
      return `${server}: ${failure.method} timed out after ${Duration.format(failure.timeout)}`
    case "CapabilityNotSupported":
      return `${server} does not support ${failure.method} (it did not declare the "${failure.capability}" capability)`
    case "DecodeError":
      return `${server}: ${failure.method} answered something that is not valid MCP: ${failure.issue}`
    case "InvalidInput":
      return `${failure.method}: ${failure.reason}`
    case "ToolOutputInvalid":
      return `${server}: tool ${failure.tool} returned structured content that does not match its output schema: ${failure.reason}`
    case "SessionUnavailable":
      return `${server}: ${failure.reason}`
    case "TaskRequired":
      return `${failure.message} (add --task)`
    case "SkillVerificationFailed":
      return `${server}: skill ${failure.skill} refused: ${failure.file} failed verification (${failure.field}): ${failure.reason}`
    case "SkillNotFound":
      return failure.candidates.length === 0
        ? `${server} has no skill named ${failure.name} (see skills list)`
        : `${server} has ${failure.candidates.length} skills named ${failure.name}; name one by its path or URI: ${failure.candidates.join(", ")}`
    default:
      return failure.message
  }
}

/** What to do when no server is configured at all: a minimal `.mcp.json`, or a server on the command line. */
const firstConfig = (server: string): ReadonlyArray<string> => [
  `  to configure it, write a .mcp.json here, for example:`,
  `    {"mcpServers": {${JSON.stringify(server)}: {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"]}}}`,
  `  or name a server on the command line: --stdio "COMMAND ARGS", --http URL, or -- COMMAND ARGS`
]

/** A line that says what went wrong (`Error: …`, `TypeError: …`, `error: …`, `fatal: …`, `panic: …`), not a frame. */
const ERROR_LINE = /^\s*(Uncaught\s+)?([\w.]*(Error|Exception)\b|error\b|fatal\b|panic\b|Traceback\b|npm ERR!)/i

/**
 * What a server's stderr says, briefly: its first error line (a crash's stack frames and the
 * runtime's version come after it, so the last lines alone miss it), then its last three lines.
 */
const excerpt = (lines: ReadonlyArray<string>): ReadonlyArray<string> => {
  const said = lines.filter((line) => line.trim() !== "")
  const tail = said.slice(-3)
  const first = said.findIndex((line) => ERROR_LINE.test(line))
  if (first === -1 || first >= said.length - 3) return tail
  return [said[first] ?? "", ...(first < said.length - 4 ? ["…"] : []), ...tail]
}

/**
 * One or two lines for a person; with `verbose`, the stderr tail and the cause too. `server`
 * is the name to print for the failure's server (default: the name it carries).
 *
 * @since 0.1.0
 * @category rendering
 */
export const describe = (failure: CliFailure, verbose: boolean, server = serverOf(failure)): string => {
  const lines = [`error: ${headline(failure, server)}`]
  if (failure._tag === "TransportError" && failure.stderr !== undefined && failure.stderr.trim() !== "") {
    const all = failure.stderr.trimEnd().split("\n")
    lines.push(...(verbose ? all : excerpt(all)).map((line) => `  stderr: ${line}`))
  }
  if (failure._tag === "UnknownServer" && failure.known.length === 0) lines.push(...firstConfig(failure.server))
  if (verbose && "cause" in failure && failure.cause !== undefined) lines.push(`  cause: ${String(failure.cause)}`)
  return lines.join("\n")
}

/**
 * The error as one JSON object for `--json`: kind, message, server (its name to print), method.
 *
 * @since 0.1.0
 * @category encoding
 */
export const toJson = (failure: CliFailure, server = serverOf(failure)) => ({
  kind: failure._tag,
  message: headline(failure, server),
  ...(server === undefined ? {} : { server }),
  ...(methodOf(failure) === undefined ? {} : { method: methodOf(failure) }),
  exitCode: exitCodeOf(failure)
})

/**
 * Ends the process with this code; the failure has already been reported.
 *
 * @since 0.1.0
 * @category errors
 */
export class Exit extends Data.TaggedError("Exit")<{ readonly code: number }> {}
