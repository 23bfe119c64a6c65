/** The HTTP client layer the tests (and the examples) use: node:http with a keep-alive agent. */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Layer from "effect/Layer"

/** `node:http` (measured cheaper than fetch) reusing connections; `NodeHttpClient.layer`'s agent does not keep them alive. */
export const keepAliveHttpClient = NodeHttpClient.layerWithoutAgent.pipe(
  Layer.provide(NodeHttpClient.makeAgentLayer({ keepAlive: true }))
)
