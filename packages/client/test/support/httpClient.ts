/** The HTTP client layers the tests (and the examples) use: node:http with a keep-alive agent. */
import * as Http from "node:http"
import * as Https from "node:https"
import type { Duplex } from "node:stream"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { markReusedConnection } from "@effect-mcp/client/Platform"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/** `node:http` (measured cheaper than fetch) reusing connections; `NodeHttpClient.layer`'s agent does not keep them alive. */
export const keepAliveHttpClient = NodeHttpClient.layerWithoutAgent.pipe(
  Layer.provide(NodeHttpClient.makeAgentLayer({ keepAlive: true }))
)

/** A keep-alive agent that marks the requests it gives a pooled connection (as a platform's pool would). */
class MarkingAgent extends Http.Agent {
  override reuseSocket(socket: Duplex, request: Http.ClientRequest) {
    super.reuseSocket(socket, request)
    markReusedConnection(request)
  }
}

/** As {@link keepAliveHttpClient}, its pool (for `http:`) saying which requests went on a reused connection. */
export const reuseAwareHttpClient = NodeHttpClient.layerWithoutAgent.pipe(
  Layer.provide(
    Layer.scoped(
      NodeHttpClient.HttpAgent,
      Effect.acquireRelease(
        Effect.sync(() =>
          NodeHttpClient.HttpAgent.of({
            [NodeHttpClient.HttpAgentTypeId]: NodeHttpClient.HttpAgentTypeId,
            http: new MarkingAgent({ keepAlive: true }),
            https: new Https.Agent({ keepAlive: true })
          })
        ),
        (agents) =>
          Effect.sync(() => {
            agents.http.destroy()
            agents.https.destroy()
          })
      )
    )
  )
)
