/**
 * A server as a config file describes it, whatever the format: a command to spawn or a URL
 * to connect to. An entry remembers its file and format; its strings are kept as written
 * until {@link ./Expand} resolves them for use.
 */
import type { OAuth } from "@effect-mcp/client"

/** The config formats people already have. */
export type ConfigFormat =
  | "mcpServers"
  | "claude-desktop"
  | "claude-code"
  | "cursor"
  | "windsurf"
  | "gemini"
  | "vscode"
  | "zed"
  | "codex"

/** A server started as a child process. */
export interface StdioTarget {
  readonly _tag: "Stdio"
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env: { readonly [name: string]: string }
  readonly cwd?: string
  readonly envFile?: string
}

/** How to authorize with a server's OAuth authorization server (the entry's `oauth` object). */
export interface OAuthSettings {
  /** A client registered with the authorization server beforehand. */
  readonly clientId?: string
  readonly clientSecret?: string
  /** The scopes to ask for, instead of the server's. */
  readonly scope?: string
  /** This client's metadata document URL (Client ID Metadata Documents). */
  readonly clientMetadataUrl?: string
}

/** A server reached over HTTP; `auto` tries Streamable HTTP, then legacy SSE. */
export interface HttpTarget {
  readonly _tag: "Http"
  readonly url: string
  readonly transport: "auto" | "http" | "sse"
  readonly headers: { readonly [name: string]: string }
  readonly oauth?: OAuthSettings
}

/** Where to find a server. */
export type Target = StdioTarget | HttpTarget

/** A VS Code `inputs` entry: a value asked of the user when first needed. */
export interface Input {
  readonly id: string
  readonly description?: string
  readonly password: boolean
  readonly default?: string
}

/** One configured server. */
export interface ServerEntry {
  readonly name: string
  /** The file it came from (absolute). */
  readonly file: string
  readonly format: ConfigFormat
  readonly target: Target
  /** The file's VS Code inputs, for `${input:id}`. */
  readonly inputs: ReadonlyArray<Input>
  /** effect-mcp's `"retry": N` key: retry transient failures of reads and repeatable tools up to N times. */
  readonly retry?: number
  /** effect-mcp's `"keepAlive": S` key: ping the server every S seconds (a dead session is restarted). */
  readonly keepAlive?: number
  /** effect-mcp's `"allowTools": [names]` key: only these of the server's tools are shown and callable. */
  readonly allowTools?: ReadonlyArray<string>
  /** effect-mcp's `"denyTools": [names]` key: these of the server's tools are hidden and refused. */
  readonly denyTools?: ReadonlyArray<string>
  /** effect-mcp's `"concurrency": N` key: at most N requests in flight to the server at once. */
  readonly concurrency?: number
  /** effect-mcp's `"maxResultBytes": N` key: a tool result larger than N bytes is cut, and says so. */
  readonly maxResultBytes?: number
}

/**
 * effect-mcp's own keys of an entry, in any format (other clients ignore them).
 */
export type OwnKeys = Pick<
  ServerEntry,
  "retry" | "keepAlive" | "allowTools" | "denyTools" | "concurrency" | "maxResultBytes"
>

/** The transport a target uses, for listings: `stdio`, `http`, `sse` or `auto`. */
export const transportOf = (target: Target): string => (target._tag === "Stdio" ? "stdio" : target.transport)

/** The client's OAuth options for an entry's `oauth` settings. */
export const oauthOptions = (settings: OAuthSettings | undefined): OAuth.OAuthOptions => ({
  ...(settings?.clientId === undefined
    ? {}
    : {
        client: {
          clientId: settings.clientId,
          ...(settings.clientSecret === undefined ? {} : { clientSecret: settings.clientSecret })
        }
      }),
  ...(settings?.scope === undefined ? {} : { scope: settings.scope }),
  ...(settings?.clientMetadataUrl === undefined ? {} : { clientMetadataUrl: settings.clientMetadataUrl })
})
