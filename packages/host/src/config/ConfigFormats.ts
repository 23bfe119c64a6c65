/**
 * Reading the formats of MCP config files into {@link ServerEntry} values:
 * `mcpServers` (Claude Desktop, Claude Code, Cursor, Windsurf, Gemini CLI), VS Code's
 * `servers` with `inputs`, Zed's `context_servers` (both command forms) and Codex's
 * `[mcp_servers.NAME]` tables. Every entry goes through a Schema; a broken one is left out as
 * a {@link ConfigError} naming the file, the entry and the field (the others still work), and
 * a field that will be ignored is a warning.
 */
import * as Arr from "effect/Array"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Struct from "effect/Struct"
import { ConfigError } from "../HostError.js"
import type { ConfigFormat, Input, OAuthSettings, OwnKeys, ServerEntry, Target } from "./ServerEntry.js"

const StringMap = Schema.Record({ key: Schema.String, value: Schema.String })

/** The `oauth` object of an HTTP entry (Claude Code writes `clientId`; the rest is ours). */
const OAuthEntry = Schema.Struct({
  clientId: Schema.optional(Schema.String),
  clientSecret: Schema.optional(Schema.String),
  scope: Schema.optional(Schema.String),
  clientMetadataUrl: Schema.optional(Schema.String),
  callbackPort: Schema.optional(Schema.Number)
})

const oauthOf = (entry: typeof OAuthEntry.Type | undefined): { readonly oauth?: OAuthSettings } => {
  if (entry === undefined) return {}
  // callbackPort is accepted and not used: the CLI listens on a free port per authorization.
  const settings: OAuthSettings = Object.fromEntries(
    (["clientId", "clientSecret", "scope", "clientMetadataUrl"] as const).flatMap((field) =>
      entry[field] === undefined ? [] : [[field, entry[field]]]
    )
  )
  return { oauth: settings }
}

/**
 * effect-mcp's own key, in an entry of any format: `"retry": N` retries transient failures of
 * reads and of tools that say they may be repeated, up to N times (other clients ignore it).
 */
const Retry = Schema.Int.pipe(Schema.between(0, 20))

/**
 * effect-mcp's own key, in an entry of any format: `"keepAlive": S` pings the server every S
 * seconds; one that goes unanswered (or finds the session forgotten) restarts or re-initializes it.
 */
const KeepAlive = Schema.Number.pipe(Schema.greaterThan(0), Schema.lessThanOrEqualTo(86_400))

/** Tool names, each as the server gives it (not host-wide). */
const ToolNames = Schema.Array(Schema.NonEmptyString)

/**
 * effect-mcp's own keys, in an entry of any format (other clients ignore them): `retry`,
 * `keepAlive`; `allowTools` and `denyTools`, the server's tools shown and callable (by the
 * server's own names); `concurrency`, at most this many requests in flight to the server;
 * `maxResultBytes`, a tool result larger than this is cut (at least 1 KiB).
 */
const ownKeys = {
  retry: Schema.optionalWith(Retry, { exact: true }),
  keepAlive: Schema.optionalWith(KeepAlive, { exact: true }),
  allowTools: Schema.optionalWith(ToolNames, { exact: true }),
  denyTools: Schema.optionalWith(ToolNames, { exact: true }),
  concurrency: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 1_000)), { exact: true }),
  maxResultBytes: Schema.optionalWith(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1_024)), { exact: true })
}

/** The own keys an entry gives (those it leaves out stay absent). */
const ownOf = (entry: OwnKeys): OwnKeys =>
  Struct.pick(entry, "retry", "keepAlive", "allowTools", "denyTools", "concurrency", "maxResultBytes")

/** An `mcpServers` entry, as all its formats together write it. */
const McpServersEntry = Schema.Struct({
  command: Schema.optional(Schema.String),
  args: Schema.optional(Schema.Array(Schema.String)),
  env: Schema.optional(StringMap),
  cwd: Schema.optional(Schema.String),
  type: Schema.optional(Schema.Literal("stdio", "http", "sse", "streamable-http", "streamableHttp")),
  url: Schema.optional(Schema.String),
  headers: Schema.optional(StringMap),
  envFile: Schema.optional(Schema.String),
  serverUrl: Schema.optional(Schema.String),
  httpUrl: Schema.optional(Schema.String),
  oauth: Schema.optional(OAuthEntry),
  ...ownKeys
})

/** Zed's `context_servers` entry: `command` as a string, or the older `{ path, args, env }`. */
const ZedEntry = Schema.Struct({
  command: Schema.optional(
    Schema.Union(
      Schema.String,
      Schema.Struct({
        path: Schema.String,
        args: Schema.optional(Schema.Array(Schema.String)),
        env: Schema.optional(StringMap)
      })
    )
  ),
  args: Schema.optional(Schema.Array(Schema.String)),
  env: Schema.optional(StringMap),
  url: Schema.optional(Schema.String),
  headers: Schema.optional(StringMap),
  // Zed documents `"source": "custom"` for servers the user runs themselves.
  source: Schema.optional(Schema.Literal("custom", "extension")),
  ...ownKeys
})

/** A Codex `[mcp_servers.NAME]` table (`~/.codex/config.toml`). */
const CodexEntry = Schema.Struct({
  command: Schema.optional(Schema.String),
  args: Schema.optional(Schema.Array(Schema.String)),
  env: Schema.optional(StringMap),
  cwd: Schema.optional(Schema.String),
  url: Schema.optional(Schema.String),
  bearer_token_env_var: Schema.optional(Schema.String),
  http_headers: Schema.optional(StringMap),
  env_http_headers: Schema.optional(StringMap),
  ...ownKeys
})

const VsCodeInput = Schema.Struct({
  id: Schema.String,
  type: Schema.optional(Schema.String),
  description: Schema.optional(Schema.String),
  password: Schema.optional(Schema.Boolean),
  default: Schema.optional(Schema.String)
})

/** Fields each format knows but this client does not use: ignored, with a warning. */
const knownButIgnored = new Set([
  "disabled",
  "autoApprove",
  "alwaysAllow",
  "timeout",
  "trust",
  "description",
  "includeTools",
  "excludeTools",
  "authProviderType",
  "dev",
  "source",
  "settings",
  "enabled",
  "disabledTools",
  // Codex
  "startup_timeout_sec",
  "startup_timeout_ms",
  "tool_timeout_sec",
  "enabled_tools",
  "disabled_tools",
  "env_vars",
  "required"
])

/** The result of reading one file: its entries, its warnings, and the entries left out as broken. */
export interface Parsed {
  readonly entries: ReadonlyArray<ServerEntry>
  readonly warnings: ReadonlyArray<string>
  /** One per broken entry (file, server, field and reason); the other entries are usable. */
  readonly problems: ReadonlyArray<ConfigError>
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const fieldOf = (issue: ParseResult.ParseIssue): { field: string; reason: string } => {
  const [first] = ParseResult.ArrayFormatter.formatIssueSync(issue)
  return {
    field: first === undefined || first.path.length === 0 ? "" : first.path.map(String).join("."),
    reason: first?.message ?? "invalid"
  }
}

const decodeEntry = <A, I>(
  schema: Schema.Schema<A, I>,
  file: string,
  name: string,
  raw: unknown
): Either.Either<A, ConfigError> =>
  Either.mapLeft(ParseResult.decodeUnknownEither(schema, { errors: "first" })(raw), (issue) => {
    const { field, reason } = fieldOf(issue)
    return new ConfigError({ file, entry: name, ...(field === "" ? {} : { field }), reason })
  })

const unusedFields = (raw: object, used: ReadonlyArray<string>, file: string, name: string) =>
  Object.keys(raw)
    .filter((key) => !used.includes(key))
    .map((key) =>
      knownButIgnored.has(key)
        ? `${file}: server "${name}": field "${key}" is ignored by effect-mcp`
        : `${file}: server "${name}": unknown field "${key}" is ignored`
    )

const stdio = (
  command: string,
  args: ReadonlyArray<string> | undefined,
  env: { readonly [name: string]: string } | undefined,
  cwd: string | undefined,
  envFile: string | undefined
): Target => ({
  _tag: "Stdio",
  command,
  args: args ?? [],
  env: env ?? {},
  ...(cwd === undefined ? {} : { cwd }),
  ...(envFile === undefined ? {} : { envFile })
})

const httpTransport = (type: string | undefined, format: ConfigFormat): "auto" | "http" | "sse" =>
  type === "sse"
    ? "sse"
    : type === "http" || type === "streamable-http" || type === "streamableHttp"
      ? "http"
      : format === "gemini"
        ? "sse"
        : "auto"

const mcpServersTarget = (
  entry: typeof McpServersEntry.Type,
  format: ConfigFormat,
  file: string,
  name: string
): Either.Either<Target, ConfigError> => {
  const fail = (field: string, reason: string) => Either.left(new ConfigError({ file, entry: name, field, reason }))
  const url = entry.httpUrl ?? entry.serverUrl ?? entry.url
  if (entry.command !== undefined && url !== undefined)
    return fail("command", "an entry has either a command or a URL, not both")
  if (entry.type === "stdio" || (entry.type === undefined && entry.command !== undefined)) {
    if (entry.command === undefined) return fail("command", 'is required for a "stdio" server')
    return Either.right(stdio(entry.command, entry.args, entry.env, entry.cwd, entry.envFile))
  }
  if (url === undefined) return fail("url", "is required (or give a command to run)")
  const transport =
    entry.httpUrl !== undefined || entry.serverUrl !== undefined ? "http" : httpTransport(entry.type, format)
  return Either.right({ _tag: "Http", url, transport, headers: entry.headers ?? {}, ...oauthOf(entry.oauth) })
}

const zedTarget = (entry: typeof ZedEntry.Type, file: string, name: string): Either.Either<Target, ConfigError> => {
  if (entry.source === "extension" && entry.command === undefined && entry.url === undefined)
    return Either.left(
      new ConfigError({
        file,
        entry: name,
        field: "source",
        reason: "a Zed extension's server cannot be run outside Zed"
      })
    )
  if (entry.url !== undefined)
    return Either.right({ _tag: "Http", url: entry.url, transport: "auto", headers: entry.headers ?? {} })
  if (entry.command === undefined)
    return Either.left(new ConfigError({ file, entry: name, field: "command", reason: "is required (or give a url)" }))
  return typeof entry.command === "string"
    ? Either.right(stdio(entry.command, entry.args, entry.env, undefined, undefined))
    : Either.right(
        stdio(
          entry.command.path,
          entry.command.args ?? entry.args,
          entry.command.env ?? entry.env,
          undefined,
          undefined
        )
      )
}

const codexTarget = (entry: typeof CodexEntry.Type, file: string, name: string): Either.Either<Target, ConfigError> => {
  if (entry.command !== undefined && entry.url !== undefined)
    return Either.left(
      new ConfigError({
        file,
        entry: name,
        field: "command",
        reason: "an entry has either a command or a url, not both"
      })
    )
  if (entry.command !== undefined)
    return Either.right(stdio(entry.command, entry.args, entry.env, entry.cwd, undefined))
  if (entry.url === undefined)
    return Either.left(new ConfigError({ file, entry: name, field: "command", reason: "is required (or give a url)" }))
  // Values named by environment variable are read when the entry is resolved (`${env:…}`).
  const fromEnv = Object.fromEntries(
    Object.entries(entry.env_http_headers ?? {}).map(([header, variable]) => [header, `\${env:${variable}}`])
  )
  const bearer =
    entry.bearer_token_env_var === undefined ? {} : { Authorization: `Bearer \${env:${entry.bearer_token_env_var}}` }
  return Either.right({
    _tag: "Http",
    url: entry.url,
    transport: "http",
    headers: { ...entry.http_headers, ...fromEnv, ...bearer }
  })
}

const mcpServersFields = Object.keys(McpServersEntry.fields)
const codexFields = Object.keys(CodexEntry.fields)
const zedFields = Object.keys(ZedEntry.fields)

/** Reads one entry of a server map into a {@link ServerEntry}, or the problem that leaves it out. */
const readEntry = (
  format: ConfigFormat,
  file: string,
  name: string,
  raw: unknown,
  inputs: ReadonlyArray<Input>
): Either.Either<{ readonly entry: ServerEntry; readonly warnings: ReadonlyArray<string> }, ConfigError> => {
  if (!isRecord(raw)) return Either.left(new ConfigError({ file, entry: name, reason: "must be an object" }))
  const withOwnKeys = (entry: OwnKeys) => (target: Target) => ({ target, own: ownOf(entry) })
  const read =
    format === "zed"
      ? Either.flatMap(decodeEntry(ZedEntry, file, name, raw), (entry) =>
          Either.map(zedTarget(entry, file, name), withOwnKeys(entry))
        )
      : format === "codex"
        ? Either.flatMap(decodeEntry(CodexEntry, file, name, raw), (entry) =>
            Either.map(codexTarget(entry, file, name), withOwnKeys(entry))
          )
        : Either.flatMap(decodeEntry(McpServersEntry, file, name, raw), (entry) =>
            Either.map(mcpServersTarget(entry, format, file, name), withOwnKeys(entry))
          )
  const fields = format === "zed" ? zedFields : format === "codex" ? codexFields : mcpServersFields
  return Either.map(read, ({ target, own }) => ({
    entry: { name, file, format, target, inputs, ...own },
    warnings: unusedFields(raw, fields, file, name)
  }))
}

/** Reads every entry of a server map; broken entries become problems, the others entries. */
const readEntries = (
  map: Record<string, unknown>,
  format: ConfigFormat,
  file: string,
  inputs: ReadonlyArray<Input>
): Parsed => {
  const results = Object.entries(map).map(([name, raw]) => readEntry(format, file, name, raw, inputs))
  const [problems, read] = Arr.partitionMap(results, (result) => result)
  return {
    entries: read.map(({ entry }) => entry),
    warnings: Arr.dedupe(read.flatMap(({ warnings }) => warnings)),
    problems
  }
}

/** Which format a file speaks, from its path and its top-level keys. */
export const detectFormat = (file: string, json: Record<string, unknown>): ConfigFormat | undefined => {
  const path = file.replaceAll("\\", "/")
  if ("context_servers" in json) return "zed"
  if ("servers" in json && !("mcpServers" in json)) return "vscode"
  if (!("mcpServers" in json) && !("projects" in json)) return undefined
  if (path.endsWith("/.cursor/mcp.json")) return "cursor"
  if (path.endsWith("/.vscode/mcp.json")) return "vscode"
  if (path.endsWith("/.mcp.json") || path.endsWith("/.claude.json")) return "claude-code"
  if (path.endsWith("claude_desktop_config.json")) return "claude-desktop"
  if (path.endsWith("/windsurf/mcp_config.json")) return "windsurf"
  if (path.endsWith("/.gemini/settings.json")) return "gemini"
  return "mcpServers"
}

const readInputs = (json: Record<string, unknown>, file: string): Either.Either<ReadonlyArray<Input>, ConfigError> => {
  if (json.inputs === undefined) return Either.right([])
  return Either.mapBoth(ParseResult.decodeUnknownEither(Schema.Array(VsCodeInput), { errors: "first" })(json.inputs), {
    onLeft: (issue) => {
      const { field, reason } = fieldOf(issue)
      return new ConfigError({ file, field: `inputs${field === "" ? "" : `.${field}`}`, reason })
    },
    onRight: (inputs) =>
      inputs.map((input) => ({
        id: input.id,
        password: input.password ?? false,
        ...(input.description === undefined ? {} : { description: input.description }),
        ...(input.default === undefined ? {} : { default: input.default })
      }))
  })
}

/**
 * The server map of a parsed file: `mcpServers`, `servers` or `context_servers`; for Claude
 * Code's `~/.claude.json`, also the map of the project at `cwd`.
 */
const serverMap = (json: Record<string, unknown>, format: ConfigFormat, cwd: string): unknown => {
  if (format === "zed") return json.context_servers
  if (format === "vscode") return json.servers ?? json.mcpServers
  const project = isRecord(json.projects) && isRecord(json.projects[cwd]) ? json.projects[cwd].mcpServers : undefined
  return isRecord(project) ? { ...(isRecord(json.mcpServers) ? json.mcpServers : {}), ...project } : json.mcpServers
}

const none: Parsed = { entries: [], warnings: [], problems: [] }

/**
 * Reads the servers of one parsed config file. `required`: a file with no server map is an error
 * (else it has no servers: an editor's settings file that configures none). A top-level VS Code
 * `inputs` array is read in every JSON format (effect-mcp's own files keep imported ones).
 */
export const read = (file: string, json: unknown, cwd: string, required = true): Either.Either<Parsed, ConfigError> => {
  if (!isRecord(json)) return Either.left(new ConfigError({ file, reason: "the file is not a JSON object" }))
  const format = detectFormat(file, json)
  if (format === undefined && !required) return Either.right(none)
  if (format === undefined)
    return Either.left(
      new ConfigError({
        file,
        reason:
          isRecord(json.experimental) && "modelContextProtocolServers" in json.experimental
            ? "is Continue's config (experimental.modelContextProtocolServers), a format effect-mcp does not read"
            : 'no "mcpServers", "servers" or "context_servers" map found'
      })
    )
  const map = serverMap(json, format, cwd) ?? {}
  const mapField = format === "zed" ? "context_servers" : format === "vscode" ? "servers" : "mcpServers"
  if (!isRecord(map))
    return Either.left(new ConfigError({ file, field: mapField, reason: "must be an object of servers" }))
  return Either.map(readInputs(json, file), (inputs) => readEntries(map, format, file, inputs))
}

/** Reads the servers of a Codex `config.toml` (already parsed): its `[mcp_servers.NAME]` tables. */
export const readCodex = (file: string, toml: unknown, required = true): Either.Either<Parsed, ConfigError> => {
  if (!isRecord(toml)) return Either.left(new ConfigError({ file, reason: "the file is not a TOML table" }))
  if (toml.mcp_servers === undefined && !required) return Either.right(none)
  if (toml.mcp_servers === undefined)
    return Either.left(new ConfigError({ file, reason: "no [mcp_servers.NAME] table found (Codex's config.toml)" }))
  if (!isRecord(toml.mcp_servers))
    return Either.left(new ConfigError({ file, field: "mcp_servers", reason: "must be a table of servers" }))
  return Either.right(readEntries(toml.mcp_servers, "codex", file, []))
}
