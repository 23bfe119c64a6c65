/**
 * Node's transports as the client's `Transports` service: `stdio` is `NodeStdioTransport`,
 * `http` is `HttpTransport` with its Streamable HTTP requests on `node:http` (`NodeHttpTransport`'s
 * route). Provide {@link layer} where a Node program is assembled (the CLI does) instead of the
 * client's generic `Transports.layer`; hosts and everything else that connects through
 * `Transports` then start servers on Node's own child processes and HTTP client.
 *
 * @since 0.1.0
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpTransport from "@effect-mcp/client/HttpTransport"
import { Transport } from "@effect-mcp/client/Transport"
import { Transports, type TransportsService } from "@effect-mcp/client/Transports"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as NodeHttpTransport from "./NodeHttpTransport.js"
import * as NodeStdioTransport from "./NodeStdioTransport.js"

/**
 * Node's transports, over the context's `HttpClient` (taken once, here: it serves `DELETE`, the
 * legacy HTTP+SSE transport and authorization) and one `node:http` route with keep-alive agents
 * shared by every HTTP server, destroyed with the scope.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<TransportsService, never, HttpClient.HttpClient | Scope.Scope> = Effect.gen(
  function* () {
    const route = yield* NodeHttpTransport.makeRoute()
    const client = yield* HttpClient.HttpClient
    return {
      stdio: NodeStdioTransport.layer,
      http: (options) =>
        Layer.scoped(
          Transport,
          Effect.provideService(HttpTransport.makeWithRoute(options, route), HttpClient.HttpClient, client)
        )
    }
  }
)

/**
 * The `Transports` of a Node program: `NodeStdioTransport`, and `HttpTransport` on `node:http`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<Transports, never, HttpClient.HttpClient> = Layer.scoped(Transports, make)
