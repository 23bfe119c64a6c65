/** Connects a client to the official SDK's server in process, with optional handler layers. */
import { InMemoryTransport, McpClient } from "@effect-mcp/client"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { serveSdk } from "./SdkBridge.js"
import { makeSdkServer } from "./sdkServer.js"

/** A client of a fresh SDK test server, plus what that server observed. */
export const connectSdk = <E>(
  handlers: Layer.Layer<never, E> = Layer.empty,
  options: McpClient.McpClientOptions = {}
) =>
  Effect.gen(function* () {
    const { server, observed } = makeSdkServer()
    const layer = McpClient.layer({ name: "sdk", ...options }).pipe(
      Layer.provide(
        InMemoryTransport.layer(
          serveSdk(() => server),
          "sdk"
        )
      ),
      Layer.provide(handlers)
    )
    const context = yield* Layer.build(layer)
    return { client: Context.get(context, McpClient.McpClient), observed }
  })
