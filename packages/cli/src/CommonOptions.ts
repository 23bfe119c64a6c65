/**
 * The options every server command shares: which server (inline `--stdio`/`--url`, or
 * `--server` from a config file), how to print, and how to answer the server's requests.
 *
 * @since 0.1.0
 */
import * as Options from "@effect/cli/Options"
import { ProtocolVersion } from "@effect-mcp/protocol"
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"

/**
 * The server-choosing options.
 *
 * @since 0.1.0
 * @category options
 */
export const server: Options.Options<ServerOptions> = Options.all({
  stdio: Options.text("stdio").pipe(
    Options.withDescription('Run a server over stdio: "<command> <args…>" (quoted like a shell), or put it after --'),
    Options.optional
  ),
  url: Options.text("url").pipe(Options.withDescription("Connect to a server over HTTP"), Options.optional),
  transport: Options.choice("transport", ["auto", "http", "sse"]).pipe(
    Options.withDescription("HTTP transport: auto (Streamable HTTP, falling back to legacy SSE), http or sse"),
    Options.withDefault("auto" as const)
  ),
  headers: Options.text("header").pipe(
    Options.withDescription('An HTTP header "Name: value" (repeatable); values never appear in output'),
    Options.repeated
  ),
  env: Options.text("env").pipe(
    Options.withDescription("A variable K=V for the stdio server (repeatable); values never appear in output"),
    Options.repeated
  ),
  inheritEnv: Options.boolean("inherit-env").pipe(
    Options.withDescription("Give the stdio server this shell's whole environment (default: a safe subset)")
  ),
  cwd: Options.directory("cwd").pipe(
    Options.withDescription("Working directory of the stdio server"),
    Options.optional
  ),
  name: Options.text("server").pipe(Options.withDescription("A server by name from a config file"), Options.optional),
  config: Options.file("config").pipe(
    Options.withDescription(
      "The config file (default: every file effect-mcp config list shows: the project's ./.mcp.json, ./mcp.json, ./.vscode/mcp.json, ./.cursor/mcp.json, then the user's: effect-mcp's, Cursor's, Windsurf's, VS Code's, Gemini's, Codex's, Zed's, Claude's)"
    ),
    Options.optional
  ),
  persist: Options.text("persist").pipe(
    Options.withDescription(
      "Save the inline server under this name in ./.mcp.json (or the --config file) once it has connected"
    ),
    Options.optional
  ),
  protocolVersion: Options.choice("protocol-version", ["auto", ...ProtocolVersion.SUPPORTED]).pipe(
    Options.withDescription(
      "The protocol revision: auto (ask the server with server/discover: 2026-07-28 if it speaks it, else the handshake), or one to insist on"
    ),
    Options.withDefault("auto" as const)
  )
})

/**
 * `--json`.
 *
 * @since 0.1.0
 * @category options
 */
export const json = Options.boolean("json").pipe(
  Options.withDescription("Print exact JSON (results on stdout, errors on stderr)")
)

/**
 * `--verbose`.
 *
 * @since 0.1.0
 * @category options
 */
export const verbose = Options.boolean("verbose").pipe(Options.withDescription("More detail in errors and logs"))

/**
 * `--client-id`.
 *
 * @since 0.1.0
 * @category options
 */
export const clientId = Options.text("client-id").pipe(
  Options.withDescription("OAuth: a client id registered with the server's authorization server"),
  Options.optional
)

/**
 * `--client-secret`.
 *
 * @since 0.1.0
 * @category options
 */
export const clientSecret = Options.redacted("client-secret").pipe(
  Options.withPseudoName("SECRET"),
  Options.withDescription("OAuth: that client's secret (never printed)"),
  Options.optional
)

/**
 * The printing and interaction options.
 *
 * @since 0.1.0
 * @category options
 */
export const run: Options.Options<RunOptions> = Options.all({
  json,
  verbose,
  timeout: Options.float("timeout").pipe(
    Options.withPseudoName("SECONDS"),
    Options.withDescription(
      "Seconds to wait for each request (default 60); a tool call that reports progress waits this long between reports"
    ),
    Options.optional
  ),
  maxTime: Options.float("max-time").pipe(
    Options.withPseudoName("SECONDS"),
    Options.withDescription("The longest a tool call may take, however often it reports progress (default: no limit)"),
    Options.optional
  ),
  retry: Options.integer("retry").pipe(
    Options.withDescription(
      "Retry transient failures (429, 502-504, refused or reset connections, -32603, time-outs) up to N times: reads always, tool calls only of tools marked read-only or idempotent"
    ),
    Options.optional
  ),
  acceptDefaults: Options.boolean("accept-defaults").pipe(
    Options.withDescription("Off a terminal, accept the server's input requests with their defaults")
  ),
  samplingCommand: Options.text("sampling-command").pipe(
    Options.withDescription(
      "A shell command that answers sampling: the request as JSON on stdin, the result on stdout"
    ),
    Options.optional
  ),
  roots: Options.directory("root").pipe(
    Options.withDescription("A root directory offered to the server (repeatable)"),
    Options.repeated
  ),
  clientId,
  clientSecret,
  open: Options.boolean("open").pipe(
    Options.withDescription("OAuth: open the authorization page in a browser (it is printed either way)")
  ),
  record: Options.file("record").pipe(
    Options.withDescription(
      "Write the session's JSON-RPC traffic to this file (secrets masked), to replay it with effect-mcp replay"
    ),
    Options.optional
  )
})

/**
 * The options of every command that talks to a server.
 *
 * @since 0.1.0
 * @category options
 */
export const connection = { server, run }

/**
 * The server options, as parsed.
 *
 * @since 0.1.0
 * @category options
 */
export interface ServerOptions {
  readonly stdio: Option.Option<string>
  readonly url: Option.Option<string>
  readonly transport: "auto" | "http" | "sse"
  readonly headers: ReadonlyArray<string>
  readonly env: ReadonlyArray<string>
  readonly inheritEnv: boolean
  readonly cwd: Option.Option<string>
  readonly name: Option.Option<string>
  readonly config: Option.Option<string>
  /** `--persist NAME`: save the inline server under NAME once it has connected. */
  readonly persist: Option.Option<string>
  /** `auto`, or the revision to insist on. */
  readonly protocolVersion: "auto" | ProtocolVersion.ProtocolVersion
}

/**
 * The printing and interaction options, as parsed.
 *
 * @since 0.1.0
 * @category options
 */
export interface RunOptions {
  readonly json: boolean
  readonly verbose: boolean
  readonly timeout: Option.Option<number>
  /** `--max-time SECONDS`: the longest a tool call may take, progress or not. */
  readonly maxTime: Option.Option<number>
  readonly retry: Option.Option<number>
  readonly acceptDefaults: boolean
  readonly samplingCommand: Option.Option<string>
  readonly roots: ReadonlyArray<string>
  readonly clientId: Option.Option<string>
  readonly clientSecret: Option.Option<Redacted.Redacted>
  readonly open: boolean
  /** `--record FILE`: where the session's traffic is written. */
  readonly record: Option.Option<string>
}

/**
 * The words after `--` on the command line: a stdio server to run.
 *
 * @since 0.1.0
 * @category services
 */
export class TrailingCommand extends Context.Tag("@effect-mcp/cli/TrailingCommand")<
  TrailingCommand,
  ReadonlyArray<string>
>() {}

/**
 * `--max-time`: the longest a tool call of this run may take, however often it reports progress
 * (none: progress keeps a call alive as long as it comes within the timeout).
 *
 * @since 0.1.0
 * @category services
 */
export class MaxCallTime extends Context.Reference<MaxCallTime>()("@effect-mcp/cli/MaxCallTime", {
  defaultValue: (): Option.Option<Duration.Duration> => Option.none()
}) {}
