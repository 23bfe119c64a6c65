/**
 * Runs the official TypeScript SDK's `McpServer` as the peer of our client, in process:
 * the server end of an in-memory pair is adapted to the SDK's `Transport` interface.
 */

import { type InMemoryTransport, Transport } from "@effect-mcp/client"
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import type { Transport as SdkTransport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

/** Adapts the server end of a pair to the SDK's transport interface. */
export const sdkTransport = (end: InMemoryTransport.End): Effect.Effect<SdkTransport, never, Scope.Scope> =>
  Effect.gen(function* () {
    const runtime = yield* Effect.runtime<never>()
    const started = yield* Deferred.make<void>()
    const transport: SdkTransport = {
      start: () => Runtime.runPromise(runtime)(Deferred.succeed(started, undefined)).then(() => undefined),
      send: (message: JSONRPCMessage) =>
        Runtime.runPromise(runtime)(Effect.ignore(end.send(JSON.parse(JSON.stringify(message))))),
      close: () => Runtime.runPromise(runtime)(end.close)
    }
    yield* Deferred.await(started).pipe(
      Effect.zipRight(
        Transport.incoming(end).pipe(
          Stream.runForEach((item) =>
            Effect.sync(() => {
              // The SDK takes JSON-RPC messages as they are on the wire; ours are that JSON.
              if (item._tag === "Message") transport.onmessage?.(JSON.parse(JSON.stringify(item.message)))
              else transport.onerror?.(new Error("malformed message"))
            })
          )
        )
      ),
      Effect.ensuring(Effect.sync(() => transport.onclose?.())),
      Effect.forkScoped
    )
    return transport
  })

/** Serves an SDK server on the server end of a pair (for `InMemoryTransport.layer`). */
export const serveSdk =
  (makeServer: () => McpServer) =>
  (end: InMemoryTransport.End): Effect.Effect<void, never, Scope.Scope> =>
    Effect.gen(function* () {
      const server = makeServer()
      const transport = yield* sdkTransport(end)
      yield* Effect.promise(() => server.connect(transport))
      yield* Effect.addFinalizer(() => Effect.promise(() => server.close()))
    })
