/**
 * One server's client, from its target: the client's layer (`McpClient.layer`) over the server's
 * transport layer, built in the caller's scope. The transports (the `Transports` service) and the
 * handler services (`Sampling`, `Elicitation`, `Roots`) come from context.
 */
import { McpClient, type McpError, StdioTransport, type Transports } from "@effect-mcp/client"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type { Target } from "../config/ServerEntry.js"
import * as ServerTransport from "../ServerTransport.js"

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
): Effect.Effect<Connected, McpError.InitializeError, Scope.Scope | Transports.Transports> =>
  Effect.gen(function* () {
    const { inheritEnv, ...clientOptions } = options
    const transport = ServerTransport.layer(name, target, inheritEnv === undefined ? {} : { inheritEnv })
    const context = yield* Layer.build(McpClient.layer(clientOptions).pipe(Layer.provideMerge(transport)))
    const client = Context.get(context, McpClient.McpClient)
    const process = Context.getOption(context, StdioTransport.StdioProcess)
    return { client, pid: Option.getOrUndefined(Option.map(process, (info) => info.pid)) }
  })
