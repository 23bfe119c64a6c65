/**
 * The transports of a platform, as one service: for code that connects to servers it learns of
 * at run time (a host, a CLI), `stdio(options)` and `http(options)` give a server's transport
 * layer. Which transports they are is chosen where the program is assembled, by the layer
 * provided, as with `@effect/platform`'s `HttpClient`: {@link layer} is the generic pair
 * (`StdioTransport` over a `CommandExecutor`, `HttpTransport` over an `HttpClient`);
 * `@effect-mcp/node`'s `NodeTransports.layer` is Node's. The tag has no default: a program that
 * needs it says which.
 *
 * @since 0.1.0
 */
import * as CommandExecutor from "@effect/platform/CommandExecutor"
import * as HttpClient from "@effect/platform/HttpClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as HttpTransport from "./HttpTransport.js"
import type { TransportError } from "./McpError.js"
import * as StdioTransport from "./StdioTransport.js"
import type { Transport } from "./Transport.js"

/**
 * A platform's transports.
 *
 * @since 0.1.0
 * @category models
 */
export interface TransportsService {
  /** The transport (and `StdioProcess`) of a server run as a child process; fails as `StdioTransport.layer`. */
  readonly stdio: (
    options: StdioTransport.StdioOptions
  ) => Layer.Layer<Transport | StdioTransport.StdioProcess, TransportError>
  /**
   * The transport of a server at a URL, as `HttpTransport.layer` (the options, the authorization
   * with the optional `TokenStore` and `Authorizer` of the context it is built in, the failures).
   */
  readonly http: (options: HttpTransport.HttpOptions) => Layer.Layer<Transport, TransportError>
}

/**
 * The transports servers are connected with: provide {@link layer} or a platform package's.
 *
 * @since 0.1.0
 * @category services
 */
export class Transports extends Context.Tag("@effect-mcp/client/Transports")<Transports, TransportsService>() {}

/**
 * The generic transports over the context's `CommandExecutor` and `HttpClient` (taken once, here).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<TransportsService, never, CommandExecutor.CommandExecutor | HttpClient.HttpClient> =
  Effect.gen(function* () {
    const executor = Layer.succeed(CommandExecutor.CommandExecutor, yield* CommandExecutor.CommandExecutor)
    const client = Layer.succeed(HttpClient.HttpClient, yield* HttpClient.HttpClient)
    return {
      stdio: (options) => Layer.provide(StdioTransport.layer(options), executor),
      http: (options) => Layer.provide(HttpTransport.layer(options), client)
    }
  })

/**
 * The generic transports: `StdioTransport` over the `CommandExecutor`, `HttpTransport` over the `HttpClient`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<Transports, never, CommandExecutor.CommandExecutor | HttpClient.HttpClient> =
  Layer.effect(Transports, make)
