/**
 * The one mapping from a configured server to its transport: a stdio target becomes the
 * `Transports` service's `stdio` layer (which also provides its `StdioProcess`), an HTTP target
 * its `http` layer (Streamable HTTP, legacy SSE or auto, authorizing with the entry's OAuth
 * settings and the caller's). The host and the CLI both connect through it. Which transports
 * those are is the `Transports` layer the program provides (the client's generic
 * `Transports.layer`, or `@effect-mcp/node`'s `NodeTransports.layer`); the optional `TokenStore`
 * and `Authorizer` come from the layer's context.
 *
 * @since 0.1.0
 */
import { type McpError, type OAuth, type StdioTransport, type Transport, Transports } from "@effect-mcp/client"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { oauthOptions, type Target } from "./config/ServerEntry.js"

/**
 * How a server's transport is made, beyond its target.
 *
 * @since 0.1.0
 * @category options
 */
export interface TransportOptions {
  /** Which of this process's environment variables a stdio server sees. Default: `"safe"`. */
  readonly inheritEnv?: "safe" | "all"
  /** OAuth options that override the entry's own (command-line client credentials, say). */
  readonly auth?: OAuth.OAuthOptions
  /**
   * How long a stdio server is given to exit once its stdin is closed, then after SIGTERM.
   * Default: the transport's (2 seconds each).
   */
  readonly shutdown?: StdioTransport.StdioOptions["shutdown"]
}

/**
 * The transport layer of a configured server, named `name` in errors and logs (a stdio server's
 * layer also provides its `StdioProcess`: read it with `Effect.serviceOption`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  name: string,
  target: Target,
  options: TransportOptions = {}
): Layer.Layer<Transport.Transport, McpError.TransportError, Transports.Transports> =>
  Layer.unwrapEffect(
    Effect.map(Transports.Transports, (transports) =>
      target._tag === "Stdio"
        ? transports.stdio({
            command: target.command,
            args: target.args,
            env: target.env,
            name,
            inheritEnv: options.inheritEnv ?? "safe",
            ...(target.cwd === undefined ? {} : { cwd: target.cwd }),
            ...(options.shutdown === undefined ? {} : { shutdown: options.shutdown })
          })
        : transports.http({
            url: target.url,
            transport: target.transport,
            headers: target.headers,
            name,
            auth: { ...oauthOptions(target.oauth), ...options.auth }
          })
    )
  )
