/**
 * The gateway over Streamable HTTP (stateful 2025-11-25 and older revisions, and 2026-07-28) as an
 * `HttpApp` for `@effect/platform`'s `HttpServer`, on any platform. The protocol is the gateway's
 * HTTP core (sessions, event streams, resumption, the guards); this module only adapts requests and
 * answers. On Node, `NodeStreamableHttpServer` serves the same core on `node:http` directly.
 *
 * @since 0.1.0
 */

import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type { McpHost } from "@effect-mcp/host"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { toStream } from "./internal/events.js"
import * as HttpCore from "./internal/httpCore.js"
import * as Ops from "./internal/ops.js"
import type * as Reply from "./internal/reply.js"
import * as Sealing from "./internal/sealing.js"
import type * as ServerRequests from "./internal/serverRequests.js"

/**
 * Where and how the gateway listens.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options extends HttpCore.Options {
  /** The operator's endpoints beside the MCP one: `/healthz`, `/readyz`, `/metrics` (on by default). */
  readonly ops?: Ops.Options
}

/**
 * A key of input rounds' `requestState`: an id, and 32 bytes of secret.
 *
 * @since 0.1.0
 * @category models
 */
export type SealingKey = Sealing.SealingKey

/**
 * Keys from their text form, `id:secret[,id:secret…]` (each secret hashed to 32 bytes; the first
 * seals, the others still open what they sealed: rotation).
 *
 * @since 0.1.0
 * @category constructors
 */
export const sealingKeys: (text: string) => Effect.Effect<ReadonlyArray<SealingKey>> = Sealing.keysFrom

/**
 * The request's body as JSON. A body declared too large is not read; one that grows past the
 * limit (sent in chunks, say) is kept no further, and drained (ending the request's stream early
 * would close the connection before the 413 is written): both {@link HttpCore.BodyTooLarge}.
 */
const jsonOf = (request: HttpServerRequest.HttpServerRequest, limit: number): Effect.Effect<unknown, unknown> =>
  HttpCore.declaredTooLarge(request.headers, limit)
    ? Effect.fail(new HttpCore.BodyTooLarge({ limit }))
    : Effect.suspend(() => {
        const body = HttpCore.bodyReader(limit)
        return Effect.zipRight(
          Stream.runForEach(request.stream, (chunk) => Effect.sync(() => body.push(chunk))),
          body.json
        )
      })

/** An answer as the platform's response. */
const respond = (reply: Reply.Reply): HttpServerResponse.HttpServerResponse => {
  switch (reply._tag) {
    case "Json":
      return HttpServerResponse.unsafeJson(reply.body, { status: reply.status, headers: reply.headers })
    case "Empty":
      return HttpServerResponse.empty({ status: reply.status, headers: reply.headers })
    case "Text": {
      const { "content-type": contentType, ...headers } = reply.headers
      return HttpServerResponse.text(reply.body, {
        status: reply.status,
        headers,
        ...(contentType === undefined ? {} : { contentType })
      })
    }
    case "Events": {
      const { "content-type": contentType = "text/event-stream", ...headers } = reply.headers
      return HttpServerResponse.stream(toStream(reply.events), { contentType, headers })
    }
  }
}

/**
 * The gateway's `HttpApp`; sessions live until they are deleted, their client's connection ends
 * or the scope closes.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: Options = {}
): Effect.Effect<HttpApp.Default, never, Scope.Scope | McpHost.McpHost | ServerRequests.Attachments> =>
  Effect.map(
    Effect.flatMap(HttpCore.make(options), (handle) =>
      Ops.around(handle, {
        ...options.ops,
        ...(options.allowedHosts === undefined ? {} : { allowedHosts: options.allowedHosts })
      })
    ),
    (handle) => {
      const limit = HttpCore.bodyLimit(options)
      // The platform's HTTP server runs a handler uninterruptibly; the gateway's work (a call racing
      // its input rounds, a session's fiber) must stay interruptible, or a lost race never ends.
      return Effect.interruptible(
        Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
          Effect.map(
            handle({
              method: request.method,
              url: request.url,
              headers: request.headers,
              json: jsonOf(request, limit)
            }),
            respond
          )
        )
      )
    }
  )
