/**
 * The one mapping from a configured server to its transport: a stdio target becomes a
 * `StdioTransport` (and its `StdioProcess`), an HTTP target an `HttpTransport` (Streamable HTTP,
 * legacy SSE or auto, authorizing with the entry's OAuth settings and the caller's). The host and
 * the CLI both connect through it. The platform (a `CommandExecutor`, an `HttpClient`) comes from
 * the layer's context, and so do the optional `TokenStore` and `Authorizer`, and the
 * `StdioLauncher` (which stdio transport: the generic one unless a program provides Node's).
 */
import type * as CommandExecutor from "@effect/platform/CommandExecutor"
import type * as HttpClient from "@effect/platform/HttpClient"
import { HttpTransport, type McpError, type OAuth, StdioTransport, type Transport } from "@effect-mcp/client"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { oauthOptions, type Target } from "./config/ServerEntry.js"

/**
 * The stdio transport servers are started with: the generic `StdioTransport.layer` (any
 * platform's `CommandExecutor`) by default; a Node program provides `NodeStdioTransport.layer`
 * (`Layer.succeed(StdioLauncher, NodeStdioTransport.layer)`), which costs less per message.
 */
export class StdioLauncher extends Context.Reference<StdioLauncher>()("@effect-mcp/host/StdioLauncher", {
  defaultValue: (): ((
    options: StdioTransport.StdioOptions
  ) => Layer.Layer<
    Transport.Transport | StdioTransport.StdioProcess,
    McpError.TransportError,
    CommandExecutor.CommandExecutor
  >) => StdioTransport.layer
}) {}

/** How a server's transport is made, beyond its target. */
export interface TransportOptions {
  /** Which of this process's environment variables a stdio server sees. Default: `"safe"`. */
  readonly inheritEnv?: "safe" | "all"
  /** OAuth options that override the entry's own (command-line client credentials, say). */
  readonly auth?: OAuth.OAuthOptions
}

/**
 * The transport layer of a configured server, named `name` in errors and logs (a stdio server's
 * layer also provides its `StdioProcess`: read it with `Effect.serviceOption`).
 */
export const layer = (
  name: string,
  target: Target,
  options: TransportOptions = {}
): Layer.Layer<
  Transport.Transport,
  McpError.TransportError,
  CommandExecutor.CommandExecutor | HttpClient.HttpClient
> =>
  target._tag === "Stdio"
    ? Layer.unwrapEffect(
        Effect.map(StdioLauncher, (launch) =>
          launch({
            command: target.command,
            args: target.args,
            env: target.env,
            name,
            inheritEnv: options.inheritEnv ?? "safe",
            ...(target.cwd === undefined ? {} : { cwd: target.cwd })
          })
        )
      )
    : HttpTransport.layer({
        url: target.url,
        transport: target.transport,
        headers: target.headers,
        name,
        auth: { ...oauthOptions(target.oauth), ...options.auth }
      })
