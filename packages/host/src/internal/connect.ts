/**
 * One server's client, from its target: the stdio or HTTP transport under `McpClient.make`,
 * in the caller's scope. The platform (a `CommandExecutor`, an `HttpClient`) comes from context.
 */
import type * as CommandExecutor from "@effect/platform/CommandExecutor"
import type * as HttpClient from "@effect/platform/HttpClient"
import { HttpTransport, McpClient, type McpError, StdioTransport, Transport } from "@effect-mcp/client"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import { oauthOptions, type Target } from "../config/ServerEntry.js"

/** A connected client and, for a stdio server, its process id. */
export interface Connected {
  readonly client: McpClient.McpClientService
  readonly pid: number | undefined
}

/** Connects and initializes; the session and its process or connection end with the scope. */
export const connect = (
  name: string,
  target: Target,
  options: McpClient.McpClientOptions & { readonly inheritEnv?: "safe" | "all" }
): Effect.Effect<
  Connected,
  McpError.InitializeError,
  Scope.Scope | CommandExecutor.CommandExecutor | HttpClient.HttpClient
> =>
  Effect.gen(function* () {
    const { inheritEnv, ...clientOptions } = options
    if (target._tag === "Stdio") {
      const [transport, process] = yield* StdioTransport.make({
        command: target.command,
        args: target.args,
        env: target.env,
        name,
        inheritEnv: inheritEnv ?? "safe",
        ...(target.cwd === undefined ? {} : { cwd: target.cwd })
      })
      const client = yield* McpClient.make(clientOptions).pipe(Effect.provideService(Transport.Transport, transport))
      return { client, pid: process.pid }
    }
    const context = yield* Layer.build(
      HttpTransport.layer({
        url: target.url,
        transport: target.transport,
        headers: target.headers,
        name,
        auth: oauthOptions(target.oauth)
      })
    )
    const client = yield* McpClient.make(clientOptions).pipe(Effect.provide(context))
    return { client, pid: undefined }
  })
